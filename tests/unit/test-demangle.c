/*
 * Unit tests of analyzer/symbolize/demangle.c: C++ names come out as the source
 * spells them, GCC's clone suffixes included, and anything that is not a
 * mangled C++ name is left alone (NULL), C names that look like mangled
 * types first of all.
 */
#include "demangle.h"

#include <check.h>
#include <stdlib.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *mangled;
	const char *want; /* NULL: not demangled */
} cases[] = {
	{ "_Z3fooi", "foo(int)" },
	{ "_ZN7fixture5twiceEd", "fixture::twice(double)" },
	{ "_ZNK7fixture3BoxIlE3getEl", "fixture::Box<long>::get(long) const" },
	{ "_ZNK7fixture3VecplERKS0_",
	  "fixture::Vec::operator+(fixture::Vec const&) const" },
	{ "_Z3fooi.cold", "foo(int) [clone .cold]" },
	{ "_ZN12_GLOBAL__N_14workEv.isra.0",
	  "(anonymous namespace)::work() [clone .isra.0]" },
	{ "_ZSt4cout", "std::cout" },
	/* Not C++: */
	{ "main", NULL },
	{ "i", NULL },          /* would be "int" as a type */
	{ "fx_leaf_a", NULL },
	{ "_Z", NULL },         /* a prefix only */
	{ "_ZnwmXX", NULL },    /* garbage after a valid start */
	{ "", NULL },
};

START_TEST(demangle_names)
{
	char *got = demangle_name(cases[_i].mangled);
	if (!cases[_i].want) {
		ck_assert_msg(!got, "%s: want nothing, got %s",
			      cases[_i].mangled, got);
		return;
	}
	ck_assert_msg(got, "%s: not demangled", cases[_i].mangled);
	ck_assert_str_eq(got, cases[_i].want);
	free(got);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("analyzer:demangle");
	TCase *tc = tcase_create("names");
	tcase_add_loop_test(tc, demangle_names, 0, ARRAY_LEN(cases));
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
