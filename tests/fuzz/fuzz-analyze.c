/*
 * fuzz-analyze: libFuzzer harness of the whole of profanalyze: spool
 * loading, symbolization, hiding, every report and every export.
 *
 * The first byte of the input picks one of the option sets below; the
 * rest is the spool, written to in.spool in the scratch directory (see
 * fuzzdir.h), and profanalyze's own main() runs over it with the report
 * written to a file there. For the sets that read process trees
 * (--children, --processes), a second spool magic in the input starts a
 * second spool, written beside the first as a child's (in.spool.2). main() comes from analyzer/main.c, included
 * below under another name, and the rest from the same libraries the
 * program links (analyzer/cli/ among them), so the harness runs exactly
 * the program's code: option parsing, loading, report choice and output
 * files.
 *
 * The seeds (corpus/analyze) name their executable by the relative path
 * seed-target, copied into the scratch directory, which is the current
 * directory while main() runs: its symbols and DWARF are read as a real
 * run's would be. Separate debug files are looked for in the scratch
 * directory, not in the system's.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzzdir.h"
#include "spool.h"
#include "srcline.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv);
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
profanalyze_main(int argc, char **argv);

#define main profanalyze_main
#include "main.c"
#undef main

#define MAX_SET_ARGS 6

/* Each a valid command line (main() exits on a usage error, which would
 * end the fuzzing run), together covering every report, export, profile
 * kind and view, hiding, thread selection, process trees and lines. */
static const char *const option_sets[][MAX_SET_ARGS + 1] = {
	{ NULL }, /* --flat */
	{ "--graph", NULL },
	{ "--graph", "--style=racket", "--order=self", "--hide-self", "0",
	  NULL },
	{ "--graph", "--order=total", "--threshold", "0",
	  "--fractional-threshold", "0", NULL },
	{ "--outline", "--threshold", "0", NULL },
	{ "--outline", "--root=1", "--max-indent=4", NULL },
	{ "--json", NULL },
	{ "--threads", NULL },
	{ "--call-counts", NULL },
	{ "--processes", NULL },
	{ "--children", "--graph", NULL },
	{ "--space", "--graph", NULL },
	{ "--inuse", "--outline", NULL },
	{ "--peak", "--json", NULL },
	{ "--space", "--format=pprof", NULL },
	{ "--format=pprof", NULL },
	{ "--format=callgrind", NULL },
	{ "--format=folded", NULL },
	{ "--format=dot", "--hide-subs", "0", NULL },
	{ "--format=lispworks", NULL },
	{ "--format=mlmon", NULL },
	{ "--format=sympro", NULL },
	{ "--format=sympro-json", NULL },
	{ "--format=json", NULL },
	{ "--lines", "--json", NULL },
	{ "--lines", "--format=callgrind", NULL },
	{ "--show-all", "--lines", "--outline", NULL },
	{ "--no-demangle", "--hide=l*", "--hide-module=libc*", "--graph",
	  NULL },
	{ "--thread=1", "--thread=seed*", "--flat", NULL },
	{ "--time", "--format=folded", NULL },
	{ "--space", "--format=sympro", NULL },
	{ "--alloc", "--format=mlmon", NULL },
};
#define NSETS (sizeof(option_sets) / sizeof(option_sets[0]))

static int home_fd = -1, dir_fd = -1;
static char *spool_path, *child_path, *out_path;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *dir = fuzzdir_path();
	fuzzdir_copy(FUZZ_SEED_ELF, "seed-target");
	spool_path = fuzzdir_file("in.spool");
	child_path = fuzzdir_file("in.spool.2");
	out_path = fuzzdir_file("out");
	home_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (home_fd < 0 || dir_fd < 0)
		abort();
	return 0;
}

/* Writes in.spool, and in.spool.2 when the set reads process trees and
 * the input holds a second spool (from its second magic on). */
static void
write_spools(const char *const *set, const uint8_t *data, size_t size)
{
	bool family = false;
	const uint8_t *second = NULL;

	for (; *set; set++)
		family |= strcmp(*set, "--children") == 0 ||
			  strcmp(*set, "--processes") == 0;
	if (family && size > SPOOL_MAGIC_LEN)
		second = memmem(data + SPOOL_MAGIC_LEN, size - SPOOL_MAGIC_LEN,
				SPOOL_MAGIC, SPOOL_MAGIC_LEN);
	if (!second) {
		fuzzdir_write("in.spool", data, size);
		return;
	}
	fuzzdir_write("in.spool", data, (size_t)(second - data));
	fuzzdir_write("in.spool.2", second, size - (size_t)(second - data));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *args[MAX_SET_ARGS + 8];
	int n = 0;

	if (size < 1)
		return 0;
	const char *const *set = option_sets[data[0] % NSETS];
	write_spools(set, data + 1, size - 1);

	args[n++] = (char *)"profanalyze";
	for (; *set; set++) {
		/* (main() exits when it is asked for lines without libdw.) */
		if (strcmp(*set, "--lines") == 0 && !srcline_available())
			continue;
		args[n++] = (char *)*set;
	}
	args[n++] = (char *)"--debug-dir";
	args[n++] = (char *)fuzzdir_path();
	args[n++] = (char *)"-o";
	args[n++] = out_path;
	args[n++] = spool_path;
	args[n] = NULL;

	int fds = fuzzdir_lowest_free_fd();
	/* optind 0 makes glibc's getopt start over, as in a new process. */
	optind = 0;
	if (fchdir(dir_fd) != 0)
		abort();
	profanalyze_main(n, args);
	if (fchdir(home_fd) != 0)
		abort();
	fflush(stdout);
	fuzzdir_check_fds(fds, "profanalyze");
	unlink(out_path);
	unlink(child_path);
	return 0;
}
