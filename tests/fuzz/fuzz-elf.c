/*
 * fuzz-elf: libFuzzer harness of the ELF and DWARF readers: elffile,
 * elfsym and debuginfo (libelf), srcline (libdw).
 *
 * The input is an ELF file. It is read twice, as the analyzer reads
 * modules: from a file (in.elf in the scratch directory, see fuzzdir.h),
 * with separate debug files looked for there and its DWARF opened for
 * source lines, and from memory, as a module image from a spool (the
 * vdso). Every symbol is then looked up by its first and last address and
 * its source line asked for. The seed's separate debug file is copied
 * beside in.elf, so that an input linking to it (the stripped seed) has
 * its debug file found, checked and read.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "elfsym.h"
#include "fuzzdir.h"
#include "srcline.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv);
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Lookups per table: enough for every symbol of a seed, bounded so that
 * a table of millions of symbols does not make one execution slow. */
#define MAX_LOOKUPS 512

static volatile uintptr_t sink;

static void
walk_symbols(const struct elfsym *t, struct srcline *lines)
{
	size_t n = elfsym_count(t);

	for (size_t i = 0; i < n && i < MAX_LOOKUPS; i++) {
		const struct elfsym_sym *s = elfsym_get(t, i);
		const char *version, *file;
		bool is_default;
		unsigned line;

		sink += (uintptr_t)elfsym_lookup(t, s->addr);
		if (s->size)
			sink += (uintptr_t)elfsym_lookup(t, s->addr + s->size - 1);
		sink += elfsym_split_version(s->name, &version, &is_default);
		if (lines && srcline_lookup(lines, s->addr, &file, &line))
			sink += line + (uintptr_t)file;
	}
	sink += (uintptr_t)elfsym_source(t) + (uintptr_t)elfsym_note(t);
}

static void
read_file(const char *path)
{
	struct elfsym_opts o = {
		.debug_root = fuzzdir_path(),
		.want_dwarf = true,
	};
	struct elffile_why why;
	struct elfsym *t = elfsym_load(path, &o, &why);
	char whyline[256];

	if (!t)
		return;
	const char *dw = elfsym_dwarf_path(t);
	struct srcline *lines = dw ? srcline_open(dw, whyline,
						  sizeof(whyline)) : NULL;
	walk_symbols(t, lines);
	srcline_free(lines);
	elfsym_free(t);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzzdir_copy(FUZZ_SEED_DEBUG, "seed-target.debug");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *path;
	struct elffile_why why;

	if (!path)
		path = fuzzdir_file("in.elf");
	fuzzdir_write("in.elf", data, size);
	int fds = fuzzdir_lowest_free_fd();
	read_file(path);
	struct elfsym *t = elfsym_load_image(data, size, NULL, &why);
	if (t) {
		walk_symbols(t, NULL);
		elfsym_free(t);
	}
	fuzzdir_check_fds(fds, "the ELF readers");
	return 0;
}
