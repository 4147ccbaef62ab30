/*
 * Unit tests of analyzer/profile/diff.c's statistics: the two-sided p-value of
 * Student's t (and of the normal distribution, infinite degrees of
 * freedom) against values from the tables, and its inverse.
 */
#include "diff.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* t, df, two-sided p: the 95 % and 99 % points of the t tables. */
static const struct {
	double t, df, p;
} points[] = {
	{ 1.959964, INFINITY, 0.05 },
	{ 2.575829, INFINITY, 0.01 },
	{ 12.7062, 1, 0.05 },
	{ 4.30265, 2, 0.05 },
	{ 2.77645, 4, 0.05 },
	{ 2.22814, 10, 0.05 },
	{ 3.16927, 10, 0.01 },
	{ 2.04227, 30, 0.05 },
	{ 0, 5, 1 },
};

START_TEST(diff_t_table)
{
	double p = diff_t_pvalue(points[_i].t, points[_i].df);
	ck_assert_double_eq_tol(p, points[_i].p, 1e-5);
	ck_assert_double_eq_tol(diff_t_pvalue(-points[_i].t, points[_i].df),
				p, 1e-12);
	if (points[_i].p < 1)
		ck_assert_double_eq_tol(diff_t_quantile(points[_i].p,
							points[_i].df),
					points[_i].t, 1e-4 * points[_i].t);
}
END_TEST

/* Bonferroni's per-row levels are small: the tails far out. */
START_TEST(diff_t_far_tail)
{
	/* The normal's two-sided 1e-4 point, and t's with 4 df (15.5441:
	 * the t density integrated numerically gives 1.0000e-4 beyond it,
	 * both tails; its one-tailed point is 13.0337). */
	ck_assert_double_eq_tol(diff_t_quantile(1e-4, INFINITY), 3.890592,
				1e-5);
	ck_assert_double_eq_tol(diff_t_quantile(1e-4, 4), 15.5441, 1e-3);
	ck_assert(diff_t_pvalue(40, INFINITY) < 1e-300 ||
		  diff_t_pvalue(40, INFINITY) == 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("analyzer:diff");
	TCase *tc = tcase_create("statistics");
	tcase_add_loop_test(tc, diff_t_table, 0, ARRAY_LEN(points));
	tcase_add_test(tc, diff_t_far_tail);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
