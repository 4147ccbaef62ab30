/*
 * Unit tests of the allocation sampler's arithmetic (preload/base/countdown.c):
 * the generator, the exponential draws, the sampling probability and
 * weight of a block, and, by simulation of the countdown exactly as the
 * wrappers run it, that the sum of the weights is an unbiased estimate of
 * the bytes allocated whose variance the analyzer's formula,
 * sum w (w - n), predicts. The generator is seeded, so every run draws
 * the same numbers: the statistical checks have fixed outcomes, at bounds
 * of four or more standard deviations.
 */
#include "countdown.h"

#include <check.h>
#include <math.h>
#include <stdint.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

START_TEST(countdown_seed_nonzero)
{
	ck_assert_uint_ne(countdown_seed(0, 0), 0);
	ck_assert_uint_ne(countdown_seed(1, 0), countdown_seed(2, 0));
	ck_assert_uint_ne(countdown_seed(1, 1), countdown_seed(1, 2));
}
END_TEST

START_TEST(countdown_uniform_range)
{
	uint64_t rng = countdown_seed(7, 1);
	double sum = 0, lo = 1, hi = 0;
	enum { N = 1000000 };

	for (int i = 0; i < N; i++) {
		double u = countdown_uniform(&rng);
		ck_assert(u > 0 && u <= 1);
		sum += u;
		lo = u < lo ? u : lo;
		hi = u > hi ? u : hi;
	}
	/* mean 1/2, sd of the mean 0.29/1000 */
	ck_assert(fabs(sum / N - 0.5) < 0.0015);
	ck_assert(lo < 1e-4 && hi > 1 - 1e-4);
}
END_TEST

/* Exponential draws of mean T: mean T, variance T^2, P(d <= T) =
 * 1 - 1/e; never 0. */
START_TEST(countdown_draw_exponential)
{
	const uint64_t T = 524288;
	uint64_t rng = countdown_seed(11, 3);
	double sum = 0, sum2 = 0;
	uint64_t below = 0, min = UINT64_MAX;
	enum { N = 1000000 };

	for (int i = 0; i < N; i++) {
		uint64_t d = countdown_draw(&rng, T);
		sum += (double)d;
		sum2 += (double)d * (double)d;
		below += d <= T;
		min = d < min ? d : min;
	}
	double mean = sum / N, var = sum2 / N - mean * mean;
	ck_assert(min >= 1);
	ck_assert(fabs(mean / T - 1) < 0.005);      /* 5 sd */
	ck_assert(fabs(var / ((double)T * T) - 1) < 0.02);
	ck_assert(fabs((double)below / N - (1 - exp(-1))) < 0.0025);
	/* An interval of 1 byte: draws of 1 (and a few more). */
	ck_assert_uint_ge(countdown_draw(&rng, 1), 1);
}
END_TEST

static const struct {
	uint64_t n, interval;
	double weight; /* n / (1 - exp(-n / interval)) */
} weight_cases[] = {
	{ 0, 524288, 0 },
	{ 1, 524288, 524288.5 },
	{ 64, 524288, 524320.0 },
	{ 524288, 524288, 829411.4 },
	{ 262144, 524288, 666237.4 },
	{ 50 * 524288ull, 524288, 50 * 524288.0 },
	{ 4096, 0, 4096 },
	{ UINT64_C(1) << 40, 4096, (double)(UINT64_C(1) << 40) },
};

START_TEST(countdown_weight_table)
{
	uint64_t n = weight_cases[_i].n, t = weight_cases[_i].interval;
	double want = weight_cases[_i].weight;
	uint64_t w = countdown_weight(n, t);

	ck_assert_msg(fabs((double)w - want) <= 1.0 + want * 1e-9,
		      "weight(%llu, %llu) = %llu, want %.1f",
		      (unsigned long long)n, (unsigned long long)t,
		      (unsigned long long)w, want);
	/* p(n) * w(n) = n (the table's weights carry one decimal). */
	if (t && n)
		ck_assert(fabs(countdown_probability(n, t) * want - (double)n) <
			  1e-6 * (double)n + 0.1);
}
END_TEST

/* One simulated thread: a fixed stream of allocations (many small
 * blocks, some about half the interval, a few larger than it), sampled
 * by the countdown as the wrappers do. Returns the estimate; *var gets
 * the variance estimate sum w (w - n). */
static double
simulate(uint64_t seed, uint64_t interval, double *truth, double *var)
{
	struct countdown c = { 0, countdown_seed(seed, 0), 0 };
	double est = 0;
	*truth = 0;
	*var = 0;
	for (uint32_t i = 0; i < 40000; i++) {
		uint64_t n = i % 400 == 0 ? 4u << 20 :
			     i % 50 == 0 ? 256u << 10 : 64 + (i % 7) * 16;
		*truth += (double)n;
		if (n < c.left) {
			c.left -= n;
			continue;
		}
		if (!countdown_expired(&c, n, interval))
			continue;
		double w = (double)countdown_weight(n, interval);
		est += w;
		*var += w * (w - (double)n);
	}
	return est;
}

/* Over 400 seeds the mean estimate is the truth (within 4 standard
 * errors), and the squared errors average to the predicted variance. */
START_TEST(countdown_unbiased)
{
	enum { RUNS = 400 };
	const uint64_t T = 524288;
	double sum_err = 0, sum_sq = 0, sum_var = 0, truth = 0;

	for (uint64_t r = 0; r < RUNS; r++) {
		double var;
		double est = simulate(r + 1, T, &truth, &var);
		sum_err += est - truth;
		sum_sq += (est - truth) * (est - truth);
		sum_var += var;
	}
	double mse = sum_sq / RUNS, predicted = sum_var / RUNS;
	double se_mean = sqrt(mse / RUNS);
	ck_assert_msg(fabs(sum_err / RUNS) < 4 * se_mean,
		      "bias %.0f bytes, standard error %.0f", sum_err / RUNS,
		      se_mean);
	/* The variance of a variance estimate from 400 runs: about 10 %. */
	ck_assert_msg(fabs(mse / predicted - 1) < 0.3,
		      "mean squared error %.3g, predicted %.3g", mse,
		      predicted);
	ck_assert(predicted > 0);
}
END_TEST

/* The first call only starts the process: a request smaller than the
 * first draw is not sampled and the countdown keeps the difference. */
START_TEST(countdown_first_call)
{
	struct countdown c = { 0, countdown_seed(5, 5), 0 };
	int sampled = countdown_expired(&c, 1, 1u << 30);
	ck_assert_int_eq(c.armed, 1);
	ck_assert_int_eq(sampled, 0);
	ck_assert_uint_gt(c.left, 0);
	/* A request as large as 60 intervals is all but certain to reach
	 * the point: it is sampled and a new point drawn. */
	c.left = 1;
	ck_assert_int_eq(countdown_expired(&c, 5, 1u << 30), 1);
	ck_assert_uint_gt(c.left, 0);
}
END_TEST

static Suite *
countdown_suite(void)
{
	Suite *s = suite_create("preload:countdown");
	TCase *tc = tcase_create("countdown");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, countdown_seed_nonzero);
	tcase_add_test(tc, countdown_uniform_range);
	tcase_add_test(tc, countdown_draw_exponential);
	tcase_add_loop_test(tc, countdown_weight_table, 0,
			    ARRAY_LEN(weight_cases));
	tcase_add_test(tc, countdown_unbiased);
	tcase_add_test(tc, countdown_first_call);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(countdown_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
