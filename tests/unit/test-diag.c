/*
 * Unit tests of analyzer/util/diag.c: every kind of message, the progress
 * line included, starts with "profanalyze: " and writes the control
 * characters of what it quotes (a spool path with a TAB or a BEL) as
 * \xNN, so a name from the profiled program can not act on the user's
 * terminal. Each check captures stderr in a file of its own (Check's fork
 * mode keeps the redirection inside the check).
 */
#include "diag.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The path of a spool that the profiled program chose: a TAB and a BEL. */
#define PATH "run\t1\a.spool"
#define PATH_ESC "run\\x091\\x07.spool"

static void
write_error(void)
{
	diag_error("%s: not a profrun spool", PATH);
}

static void
write_warn(void)
{
	diag_warn("%s: corrupt footer", PATH);
}

static void
write_note(void)
{
	diag_note("%s: 0 samples here", PATH);
}

static void
write_progress(void)
{
	diag_progress("%s: reading, %3.0f%% (%.0f s)", PATH, 42.0, 3.0);
}

static const struct {
	void (*write)(void);
	const char *want;
} cases[] = {
	{ write_error, "profanalyze: " PATH_ESC ": not a profrun spool\n" },
	{ write_warn, "profanalyze: warning: " PATH_ESC ": corrupt footer\n" },
	{ write_note, "profanalyze: note: " PATH_ESC ": 0 samples here\n" },
	{ write_progress, "\rprofanalyze: " PATH_ESC ": reading,  42% (3 s)" },
};

/* What write() puts on stderr: a string the caller frees. */
static char *
capture_stderr(void (*write)(void))
{
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	int saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	fflush(stderr);
	ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
	write();
	fflush(stderr);
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	close(saved);

	long n = ftell(f);
	ck_assert_int_ge(n, 0);
	char *buf = calloc(1, (size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	rewind(f);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return buf;
}

START_TEST(diag_escapes_controls)
{
	char *got = capture_stderr(cases[_i].write);
	ck_assert_str_eq(got, cases[_i].want);
	free(got);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("analyzer:diag");
	TCase *tc = tcase_create("messages");
	tcase_add_loop_test(tc, diag_escapes_controls, 0, ARRAY_LEN(cases));
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
