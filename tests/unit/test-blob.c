/*
 * Unit tests of blob (a spool mapped for reading) and of the loader
 * over a spool that shrinks while it is read: a read through the mapping
 * past the file's new end must never become SIGBUS (issue #31, item 9).
 * The spools are genspool's (chunked, as profrun writes them), several
 * MB, so that the file is cut long before the reader's end.
 */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blob.h"
#include "loader.h"
#include "profile.h"

#define SAMPLES 200000
/* Where the file is cut: inside the first of its 64 KiB chunks past
 * the header and module map, far from its end (several MB). */
#define CUT ((off_t)300000)

static char dir[] = "/tmp/test-blob.XXXXXX";
static char spool[64];

/* Writes spool with genspool from the build tree. */
static void
make_spool(void)
{
	const char *root = getenv("PROFRUN_BUILD_ROOT");
	ck_assert_ptr_nonnull(root);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(spool, sizeof(spool), "%s/s.spool", dir);
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "%s/tests/genspool -n %d -t 2 %s",
		 root, SAMPLES, spool);
	ck_assert_int_eq(system(cmd), 0);
	struct stat st;
	ck_assert_int_eq(stat(spool, &st), 0);
	ck_assert_int_gt(st.st_size, 4 * CUT);
}

static void
remove_spool(void)
{
	unlink(spool);
	rmdir(dir);
}

/* stderr into a file until stop_capture, which returns what was
 * written (the caller frees it). */
static FILE *captured;
static int saved_stderr;

static void
start_capture(void)
{
	captured = tmpfile();
	ck_assert_ptr_nonnull(captured);
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	ck_assert_int_ge(dup2(fileno(captured), STDERR_FILENO), 0);
}

static char *
stop_capture(void)
{
	fflush(stderr);
	ck_assert_int_ge(dup2(saved_stderr, STDERR_FILENO), 0);
	close(saved_stderr);
	long n = ftell(captured);
	char *s = calloc(1, (size_t)n + 1);
	rewind(captured);
	ck_assert_uint_eq(fread(s, 1, (size_t)n, captured), (size_t)n);
	fclose(captured);
	return s;
}

START_TEST(blob_reads_zeros_past_a_shrunk_end)
{
	struct blob b;
	make_spool();
	ck_assert_int_eq(blob_open(spool, &b), 0);
	ck_assert_ptr_nonnull(b.map);
	ck_assert_uint_eq(blob_shrunk(&b), SIZE_MAX);
	ck_assert_int_eq(truncate(spool, CUT), 0);
	volatile uint64_t sum = 0;
	for (size_t i = 0; i < b.size; i += 512)
		sum += b.data[i];
	/* The first page past the cut is where reading stopped. */
	ck_assert_uint_eq(blob_shrunk(&b), (size_t)CUT - (size_t)CUT % 4096 +
						   4096);
	ck_assert_uint_eq(b.data[b.size - 1], 0);
	(void)sum;
	blob_close(&b);
	remove_spool();
}
END_TEST

/* Cuts the spool between the loader's two passes. */
static void
cut_between_passes(void *arg, const struct space_log *log,
		   const bool *chosen)
{
	(void)arg;
	(void)log;
	(void)chosen;
	ck_assert_int_eq(truncate(spool, CUT), 0);
}

/* Cuts the spool at the 1000th sample of the second pass. */
static void
cut_in_second_pass(void *arg, const struct loader_sample *ls)
{
	(void)ls;
	if (++*(int *)arg == 1000)
		ck_assert_int_eq(truncate(spool, CUT), 0);
}

static void
check_shrunk_load(const struct loader_opts *opts)
{
	start_capture();
	struct profile *p = loader_read(spool, opts);
	char *err = stop_capture();
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_gt(p->hdr.samples, 0);
	ck_assert_uint_lt(p->hdr.samples, SAMPLES);
	char want[256];
	snprintf(want, sizeof(want), "profanalyze: warning: %s: the file "
		 "shrank while it was read (at offset ", spool);
	ck_assert_msg(strstr(err, want), "stderr: %s", err);
	char covers[128];
	snprintf(covers, sizeof(covers), "); the report covers the %llu "
		 "samples before it\n", (unsigned long long)p->hdr.samples);
	ck_assert_msg(strstr(err, covers), "stderr: %s", err);
	free(err);
	profile_free(p);
	remove_spool();
}

START_TEST(loader_survives_a_spool_cut_between_passes)
{
	make_spool();
	struct loader_opts opts = { .space_hook = cut_between_passes };
	check_shrunk_load(&opts);
}
END_TEST

START_TEST(loader_survives_a_spool_cut_while_reading)
{
	int n = 0;
	make_spool();
	struct loader_opts opts = { .sample_hook = cut_in_second_pass,
				    .sample_hook_arg = &n };
	check_shrunk_load(&opts);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("analyzer:blob");
	TCase *tc = tcase_create("shrink");
	tcase_add_test(tc, blob_reads_zeros_past_a_shrunk_end);
	tcase_add_test(tc, loader_survives_a_spool_cut_between_passes);
	tcase_add_test(tc, loader_survives_a_spool_cut_while_reading);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
