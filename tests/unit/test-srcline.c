/*
 * Unit tests of analyzer/symbolize/srcline.c against libfixture-lines.so, whose
 * line table is written by hand (golden/fixture-lines.S), fixture-exe (a
 * compiled program with -g) and, on x86-64, libfixture-inline.so (code
 * inlined two deep, golden/fixture-inline.S).
 *
 * The fixtures are found under $PROFRUN_BUILD_ROOT/tests.
 */
#include "srcline.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static char lines_so[4096], exe[4096], inline_so[4096];

static uint64_t
sym_addr(const char *path, const char *name)
{
	struct elffile_why why;
	struct elfsym *t = elfsym_load(path, NULL, &why);
	ck_assert_msg(t, "%s: %s", path, why.text);
	uint64_t a = 0;
	for (size_t i = 0; i < elfsym_count(t); i++)
		if (strcmp(elfsym_get(t, i)->name, name) == 0)
			a = elfsym_get(t, i)->addr;
	elfsym_free(t);
	ck_assert_msg(a, "%s: no %s", path, name);
	return a;
}

static const struct {
	const char *sym;
	uint64_t off;
	const char *file; /* NULL: no line */
	unsigned line;
} cases[] = {
	{ "fl_outer", 0, "/fixture/lines.c", 10 },
	{ "fl_outer", 3, "/fixture/lines.c", 10 },
	{ "fl_outer", 4, "/fixture/lines.c", 12 },
	{ "fl_outer", 11, "/fixture/lines.c", 12 },
	{ "fl_outer", 12, "/fixture/lines.c", 13 },
	{ "fl_inner", 0, "/fixture/lines.c", 20 },
	{ "fl_inner", 8, "/fixture/inc/lines.h", 3 },
	{ "fl_inner", 15, "/fixture/inc/lines.h", 3 },
	/* Past the end of the unit: no line. */
	{ "fl_inner", 16, NULL, 0 },
	/* Below the unit: the fixture's code starts at fl_outer. */
	{ "fl_outer", (uint64_t)-1, NULL, 0 },
};

START_TEST(srcline_hand_written_table)
{
	char why[256];
	struct srcline *s = srcline_open(lines_so, why, sizeof(why));
	ck_assert_msg(s, "%s: %s", lines_so, why);
	uint64_t a = sym_addr(lines_so, cases[_i].sym) + cases[_i].off;
	const char *file = NULL;
	unsigned line = 0;
	bool ok = srcline_lookup(s, a, &file, &line);
	if (!cases[_i].file) {
		ck_assert_msg(!ok, "%s+%lld: want no line, got %s:%u",
			      cases[_i].sym, (long long)cases[_i].off, file,
			      line);
	} else {
		ck_assert_msg(ok, "%s+%llu: no line", cases[_i].sym,
			      (unsigned long long)cases[_i].off);
		ck_assert_str_eq(file, cases[_i].file);
		ck_assert_uint_eq(line, cases[_i].line);
	}
	srcline_free(s);
}
END_TEST

/* Compiled code: the entry of a function is on a line of its source
 * file, between the first and the last line of the file. */
START_TEST(srcline_compiled_program)
{
	char why[256];
	struct srcline *s = srcline_open(exe, why, sizeof(why));
	ck_assert_msg(s, "%s: %s", exe, why);
	const char *file;
	unsigned line;
	ck_assert(srcline_lookup(s, sym_addr(exe, "fe_work"), &file, &line));
	ck_assert_ptr_nonnull(strstr(file, "fixture-exe.c"));
	ck_assert_uint_gt(line, 0);
	ck_assert_uint_lt(line, 40);
	srcline_free(s);
}
END_TEST

#if defined(__x86_64__)
/* The inlined calls of fi_outer's code (offsets in fixture-inline.S),
 * innermost first: nested ones too, each with the line of its call. */
static const struct {
	uint64_t off;
	size_t n;
	const char *name[2];
	unsigned call_line[2];
} inline_cases[] = {
	{ 0x04, 2, { "fi_leaf", "fi_mid" }, { 14, 22 } },
	{ 0x12, 2, { "fi_leaf", "fi_mid" }, { 14, 22 } },
	{ 0x1c, 1, { "fi_mid" }, { 22 } },
	{ 0x28, 0, { NULL }, { 0 } },
	{ 0x35, 1, { "fi_leaf" }, { 24 } },
};

START_TEST(srcline_nested_inlines)
{
	char why[256];
	struct srcline *s = srcline_open(inline_so, why, sizeof(why));
	ck_assert_msg(s, "%s: %s", inline_so, why);
	uint64_t a = sym_addr(inline_so, "fi_outer") + inline_cases[_i].off;
	struct srcline_inline in[4];
	size_t n = srcline_inlines(s, a, in, 4);
	ck_assert_uint_eq(n, inline_cases[_i].n);
	for (size_t k = 0; k < n; k++) {
		ck_assert_str_eq(in[k].name, inline_cases[_i].name[k]);
		ck_assert_uint_eq(in[k].call_line,
				  inline_cases[_i].call_line[k]);
		ck_assert_str_eq(in[k].call_file, "/fixture/inline.c");
	}
	/* At most max, the innermost. */
	if (inline_cases[_i].n == 2) {
		ck_assert_uint_eq(srcline_inlines(s, a, in, 1), 1);
		ck_assert_str_eq(in[0].name, "fi_leaf");
	}
	srcline_free(s);
}
END_TEST
#endif

START_TEST(srcline_without_dwarf)
{
	char why[256], path[4096];
	snprintf(path, sizeof(path), "%s/tests/libfixture-stripped.so",
		 getenv("PROFRUN_BUILD_ROOT"));
	ck_assert_ptr_null(srcline_open(path, why, sizeof(why)));
	ck_assert_str_ne(why, "");
	ck_assert_ptr_null(srcline_open("/nonexistent/x.so", why, sizeof(why)));
	ck_assert_str_eq(why, "No such file or directory");
}
END_TEST

int
main(void)
{
	const char *root = getenv("PROFRUN_BUILD_ROOT");
	if (!root) {
		fprintf(stderr, "test-srcline: PROFRUN_BUILD_ROOT is not set\n");
		return 1;
	}
	if (!srcline_available()) {
		printf("built without libdw: nothing to test\n");
		return 77;
	}
	snprintf(lines_so, sizeof(lines_so), "%s/tests/libfixture-lines.so",
		 root);
	snprintf(exe, sizeof(exe), "%s/tests/fixture-exe", root);
	snprintf(inline_so, sizeof(inline_so),
		 "%s/tests/libfixture-inline.so", root);
	Suite *su = suite_create("analyzer:srcline");
	TCase *tc = tcase_create("lines");
	tcase_add_loop_test(tc, srcline_hand_written_table, 0,
			    ARRAY_LEN(cases));
	tcase_add_test(tc, srcline_compiled_program);
	tcase_add_test(tc, srcline_without_dwarf);
#if defined(__x86_64__)
	tcase_add_loop_test(tc, srcline_nested_inlines, 0,
			    ARRAY_LEN(inline_cases));
#endif
	suite_add_tcase(su, tc);
	SRunner *sr = srunner_create(su);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
