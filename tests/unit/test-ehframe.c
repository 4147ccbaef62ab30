/*
 * Unit tests of analyzer/symbolize/ehframe.c against the fixture library built in
 * tests/ (golden/fixture.c) and its stripped copy: every function the
 * unstripped copy's symbol table names (fx_static_helper included, which
 * the stripped copy has no symbol for) is found by the unwind tables
 * alone, at its start and at its last byte, in both copies; an address
 * far past the code is in no function.
 *
 * The fixtures are found under $PROFRUN_BUILD_ROOT/tests.
 */
#include "ehframe.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"

static const char *root;

static const char *
fx(const char *name)
{
	static char buf[2][4096];
	static int next;
	char *b = buf[next++ % 2];
	snprintf(b, sizeof(buf[0]), "%s/tests/%s", root, name);
	return b;
}

static struct ehframe *
load(const char *path)
{
	struct elffile ef;
	struct elffile_why why;
	ck_assert_msg(elffile_open(&ef, path, &why) == 0, "%s: %s", path,
		      why.text);
	struct ehframe *t = ehframe_load(&ef);
	elffile_close(&ef);
	return t;
}

static const char *const funcs[] = {
	"fx_static_helper", "fx_leaf_a", "fx_leaf_b", "fx_work", "fx_main",
};

/* The fixture's functions by the unstripped copy's symbols. */
static const struct elfsym_sym *
sym(const struct elfsym *s, const char *name)
{
	for (size_t i = 0; i < elfsym_count(s); i++)
		if (strcmp(elfsym_get(s, i)->name, name) == 0)
			return elfsym_get(s, i);
	ck_abort_msg("no symbol %s in the fixture", name);
	return NULL;
}

START_TEST(ehframe_functions_by_fde)
{
	const char *files[] = { "libfixture.so", "libfixture-stripped.so" };
	struct elffile_why why;
	struct elfsym *s = elfsym_load(fx("libfixture.so"), NULL, &why);
	ck_assert_msg(s, "%s", why.text);
	struct ehframe *t = load(fx(files[_i]));
	ck_assert_msg(t, "%s: no FDE table", files[_i]);
	for (size_t k = 0; k < sizeof(funcs) / sizeof(*funcs); k++) {
		const struct elfsym_sym *f = sym(s, funcs[k]);
		uint64_t start = 0;
		ck_assert_uint_gt(f->size, 1);
		ck_assert_msg(
			ehframe_lookup(t, f->addr, &start) && start == f->addr,
			"%s: %s at %#llx: start %#llx", files[_i], funcs[k],
			(unsigned long long)f->addr, (unsigned long long)start);
		start = 0;
		ck_assert(ehframe_lookup(t, f->addr + f->size - 1, &start));
		ck_assert_uint_eq(start, f->addr);
		/* The range is the function's: what --disassemble decodes
		 * of a function without a symbol. */
		uint64_t end = 0;
		ck_assert(ehframe_range(t, f->addr, &start, &end));
		ck_assert_uint_eq(end, f->addr + f->size);
	}
	uint64_t start;
	ck_assert(!ehframe_lookup(t, UINT64_MAX - 1, &start));
	ehframe_free(t);
	elfsym_free(s);
}
END_TEST

int
main(void)
{
	root = getenv("PROFRUN_BUILD_ROOT");
	if (!root) {
		fprintf(stderr,
			"test-ehframe: PROFRUN_BUILD_ROOT is not set\n");
		return 1;
	}
	Suite *s = suite_create("analyzer:ehframe");
	TCase *tc = tcase_create("ehframe");
	tcase_add_loop_test(tc, ehframe_functions_by_fde, 0, 2);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
