/*
 * Unit tests of the analyzer's space log (analyzer/profile/space.c): which
 * sampled allocations each view selects, replayed in time order whatever
 * the order of the records, with the corner cases of a real spool (a free
 * and an allocation of the same address in one nanosecond, a FREE whose
 * ALLOC was lost, an ALLOC whose FREE was lost, untracked samples), the
 * estimates and their variances, and the call counts summed per thread.
 */
#include "space.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct space_log log_;

static void
setup(void)
{
	space_log_init(&log_);
}

static void
teardown(void)
{
	space_log_free(&log_);
}

static void
alloc(uint64_t t, uint64_t addr, uint64_t size, uint64_t weight,
      uint32_t flags)
{
	struct spool_alloc a = { .time_ns = t, .tid = 1, .flags = flags,
				 .size = size, .address = addr,
				 .weight = weight };
	space_log_alloc(&log_, &a);
}

static void
release(uint64_t t, uint64_t addr)
{
	struct spool_free f = { .time_ns = t, .tid = 1, .address = addr };
	space_log_free_rec(&log_, &f);
}

/* The selection of view as a bit mask over the allocations (file
 * order). */
static unsigned
mask(enum profile_space_view view, struct profile_space *s)
{
	bool *sel = space_log_select(&log_, view, s);
	unsigned m = 0;
	for (size_t i = 0; i < log_.nallocs; i++)
		m |= (unsigned)sel[i] << i;
	free(sel);
	return m;
}

/* Records written out of time order (two threads' rings): the replay
 * sorts them. A is freed, B leaks, C is allocated after A's free at the
 * same address and leaks too. */
START_TEST(space_inuse_out_of_order)
{
	struct profile_space s;
	alloc(300, 0xa0, 100, 1000, 0); /* C, written first */
	release(200, 0xa0);             /* A's free */
	alloc(100, 0xa0, 100, 1000, 0); /* A */
	alloc(150, 0xb0, 50, 2000, 0);  /* B */
	/* Allocations in file order: C, A, B. */
	ck_assert_uint_eq(mask(PROFILE_SPACE_INUSE, &s), 0x5); /* C and B */
	ck_assert_uint_eq(mask(PROFILE_SPACE_ALLOC, &s), 0x7);
	ck_assert_uint_eq(s.alloc_records, 3);
	ck_assert_uint_eq(s.matched_frees, 1);
	ck_assert(fabs(s.alloc_bytes - 4000) < 1e-9);
}
END_TEST

/* The library stamps a FREE before the block is released and an ALLOC
 * after the allocation returned: in one nanosecond, the free is first. */
START_TEST(space_same_time_free_first)
{
	struct profile_space s;
	alloc(10, 0xc0, 8, 100, 0);
	alloc(20, 0xc0, 8, 100, 0);
	release(20, 0xc0);
	ck_assert_uint_eq(mask(PROFILE_SPACE_INUSE, &s), 0x2);
}
END_TEST

/* A lost FREE: the next ALLOC at the address retires the older sample.
 * A lost ALLOC: its FREE matches nothing and is ignored. */
START_TEST(space_lost_records)
{
	struct profile_space s;
	alloc(10, 0xd0, 8, 100, 0);
	alloc(20, 0xd0, 8, 100, 0);
	release(30, 0xe0);
	ck_assert_uint_eq(mask(PROFILE_SPACE_INUSE, &s), 0x2);
	ck_assert_uint_eq(s.matched_frees, 0);
	ck_assert_uint_eq(s.free_records, 1);
}
END_TEST

/* An untracked sample counts in the allocations, never as in use. */
START_TEST(space_untracked)
{
	struct profile_space s;
	alloc(10, 0xf0, 8, 100, SPOOL_ALLOC_UNTRACKED);
	alloc(20, 0xf8, 8, 100, 0);
	ck_assert_uint_eq(mask(PROFILE_SPACE_INUSE, &s), 0x2);
	ck_assert_uint_eq(s.untracked, 1);
	ck_assert_uint_eq(mask(PROFILE_SPACE_ALLOC, &s), 0x3);
}
END_TEST

/* The heap (weights of live samples) goes 1000, 3000, 2000, 2500, 500,
 * 4500: the peak is at the end; before the last allocation it was
 * 3000 with A and B live. */
START_TEST(space_peak)
{
	struct profile_space s;
	alloc(1, 0x10, 10, 1000, 0);   /* A */
	alloc(2, 0x20, 10, 2000, 0);   /* B */
	release(3, 0x10);
	alloc(4, 0x30, 10, 500, 0);    /* C */
	release(5, 0x20);
	alloc(6, 0x40, 10, 4000, 0);   /* D */
	ck_assert_uint_eq(mask(PROFILE_SPACE_PEAK, &s), 0xc);
	ck_assert_uint_eq(s.peak_time_ns, 6);
	release(7, 0x40);
	alloc(8, 0x50, 10, 100, 0);    /* E: the heap is 600 at the end */
	ck_assert_uint_eq(mask(PROFILE_SPACE_PEAK, &s), 0xc);
	ck_assert_uint_eq(mask(PROFILE_SPACE_INUSE, &s), 0x14);
}
END_TEST

START_TEST(space_peak_early)
{
	struct profile_space s;
	alloc(1, 0x10, 10, 1000, 0);
	alloc(2, 0x20, 10, 2000, 0);
	release(3, 0x10);
	release(4, 0x20);
	alloc(5, 0x30, 10, 500, 0);
	ck_assert_uint_eq(mask(PROFILE_SPACE_PEAK, &s), 0x3);
	ck_assert_uint_eq(s.peak_time_ns, 2);
}
END_TEST

/* Variances: sum of w (w - n) over the samples of the whole and of the
 * view. */
START_TEST(space_variance)
{
	struct profile_space s;
	alloc(1, 0x10, 100, 1000, 0);
	alloc(2, 0x20, 3000, 3000, 0); /* always sampled: no variance */
	alloc(3, 0x30, 10, 500, 0);
	release(4, 0x30);
	mask(PROFILE_SPACE_INUSE, &s);
	ck_assert(fabs(s.alloc_var - (1000.0 * 900 + 500.0 * 490)) < 1e-6);
	ck_assert(fabs(s.view_var - 1000.0 * 900) < 1e-6);
	ck_assert(fabs(space_sample_var(10, 20)) < 1e-12);
}
END_TEST

/* Each CALL_COUNTS record holds a thread's calls since its previous one;
 * ids beyond a record's count read as 0. */
START_TEST(space_calls_summed)
{
	uint8_t raw[3 * 8] = { 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
			       7, 0, 0, 0, 0, 0, 0, 0 };
	struct spool_call_counts c = { .tid = 9, .n = 3, .counts_raw = raw };
	space_log_calls(&log_, &c);
	space_log_calls(&log_, &c);
	c.tid = 10;
	c.n = 1;
	space_log_calls(&log_, &c);
	ck_assert(log_.has_calls);
	ck_assert_uint_eq(log_.nthreads, 2);
	ck_assert_uint_eq(log_.threads[0].calls[SPOOL_ALLOC_FN_MALLOC], 10);
	ck_assert_uint_eq(log_.threads[0].calls[SPOOL_ALLOC_FN_REALLOC], 14);
	ck_assert_uint_eq(log_.threads[1].calls[SPOOL_ALLOC_FN_MALLOC], 5);
	ck_assert_uint_eq(log_.threads[1].calls[SPOOL_ALLOC_FN_REALLOC], 0);
}
END_TEST

static const struct {
	const char *name;
	int ok;
	enum profile_space_view view;
} view_cases[] = {
	{ "alloc", 0, PROFILE_SPACE_ALLOC },
	{ "inuse", 0, PROFILE_SPACE_INUSE },
	{ "peak", 0, PROFILE_SPACE_PEAK },
	{ "leak", -1, PROFILE_SPACE_ALLOC },
	{ "", -1, PROFILE_SPACE_ALLOC },
};

START_TEST(space_view_names)
{
	enum profile_space_view v = PROFILE_SPACE_ALLOC;
	ck_assert_int_eq(space_view_parse(view_cases[_i].name, &v),
			 view_cases[_i].ok);
	if (view_cases[_i].ok == 0) {
		ck_assert_int_eq(v, view_cases[_i].view);
		ck_assert_str_eq(space_view_name(v), view_cases[_i].name);
	}
}
END_TEST

static Suite *
space_suite(void)
{
	Suite *s = suite_create("analyzer:space");
	TCase *tc = tcase_create("log");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, space_inuse_out_of_order);
	tcase_add_test(tc, space_same_time_free_first);
	tcase_add_test(tc, space_lost_records);
	tcase_add_test(tc, space_untracked);
	tcase_add_test(tc, space_peak);
	tcase_add_test(tc, space_peak_early);
	tcase_add_test(tc, space_variance);
	tcase_add_test(tc, space_calls_summed);
	tcase_add_loop_test(tc, space_view_names, 0, ARRAY_LEN(view_cases));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(space_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
