/*
 * Unit tests of the set of sampled addresses (preload/base/addrset.c): the
 * filter byte that answers most frees (shared by many addresses, sticky
 * when full), full buckets, removal of what is not there, and the
 * lock-free inserts and removes of many threads at once (every thread's own addresses, as in the library: an address is
 * only ever inserted and removed by whoever owns the block).
 */
#include "addrset.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

static struct addrset set __attribute__((aligned(4096)));

static void
setup(void)
{
	memset(&set, 0, sizeof(set));
}

/* The n-th address (16-byte aligned, as malloc's) after start that falls
 * into bucket b. */
static uint64_t
in_bucket(uint32_t b, uint64_t start, int n)
{
	for (uint64_t a = start;; a += 16)
		if (addrset_bucket(a) == b && n-- == 0)
			return a;
}

START_TEST(addrset_insert_remove)
{
	uint64_t a = 0x7f0012345670ull;

	ck_assert(!addrset_maybe(&set, a));
	ck_assert_int_eq(addrset_insert(&set, a), 0);
	ck_assert(addrset_maybe(&set, a));
	ck_assert_uint_eq(addrset_count(&set), 1);
	ck_assert_int_eq(addrset_remove(&set, a), 1);
	ck_assert_int_eq(addrset_remove(&set, a), 0);
	ck_assert(!addrset_maybe(&set, a));
	ck_assert_uint_eq(addrset_count(&set), 0);
}
END_TEST

/* Another address with the same filter byte (bits 4 to 17): maybe, but
 * not a member. */
START_TEST(addrset_same_filter_not_member)
{
	uint64_t a = 0x555500001230ull;
	uint64_t b = a + (UINT64_C(1) << 18);

	ck_assert_uint_eq(addrset_filter_index(a), addrset_filter_index(b));
	ck_assert_int_eq(addrset_insert(&set, a), 0);
	ck_assert(addrset_maybe(&set, b));
	ck_assert_int_eq(addrset_remove(&set, b), 0);
	ck_assert_int_eq(addrset_remove(&set, a), 1);
	ck_assert(!addrset_maybe(&set, b));
}
END_TEST

/* Inserts n addresses that all share base's filter byte (bits 4 to 17
 * alike) and removes them again, checking every step and that the byte
 * said "maybe" while any was in. Returns what it says once all are gone. */
static int
fill_and_empty(uint64_t base, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		ck_assert_int_eq(addrset_insert(&set, base + (i << 18)), 0);
	for (uint64_t i = 0; i < n; i++) {
		ck_assert(addrset_maybe(&set, base));
		ck_assert_int_eq(addrset_remove(&set, base + (i << 18)), 1);
	}
	ck_assert_uint_eq(addrset_count(&set), 0);
	return addrset_maybe(&set, base);
}

/* Many members share a filter byte (page-aligned blocks do): the filter
 * limits nothing, the byte counts them, and says no again once the last
 * one is gone. */
START_TEST(addrset_filter_shared)
{
	ck_assert(!fill_and_empty(0x7f0000000000ull, 200));
}
END_TEST

/* A filter byte that reached 255 members can no longer count: it stays
 * "maybe" for good, and every member is still found. */
START_TEST(addrset_filter_sticky)
{
	ck_assert(fill_and_empty(0x7f0000000010ull, 300));
	ck_assert_int_eq(addrset_remove(&set, 0x7f0000000010ull), 0);
}
END_TEST

/* A pin makes the filter say maybe without taking a slot, until it is
 * taken back; pins add up. */
START_TEST(addrset_pin_no_slot)
{
	uint64_t a = 0x7f00dead0000ull;

	ck_assert(!addrset_maybe(&set, a));
	addrset_pin(&set, a);
	addrset_pin(&set, a);
	ck_assert(addrset_maybe(&set, a));
	ck_assert_uint_eq(addrset_count(&set), 0);
	ck_assert_int_eq(addrset_remove(&set, a), 0);
	ck_assert(addrset_maybe(&set, a));
	addrset_unpin(&set, a);
	ck_assert(addrset_maybe(&set, a));
	addrset_unpin(&set, a);
	ck_assert(!addrset_maybe(&set, a));
}
END_TEST

/* A bucket holds ADDRSET_WAYS addresses; one more is refused until one
 * leaves. */
START_TEST(addrset_full_bucket)
{
	uint64_t a[ADDRSET_WAYS + 1];

	for (int i = 0; i <= ADDRSET_WAYS; i++)
		a[i] = in_bucket(4242, 0x600000000000ull, i);
	for (int i = 0; i < ADDRSET_WAYS; i++)
		ck_assert_int_eq(addrset_insert(&set, a[i]), 0);
	ck_assert_int_eq(addrset_insert(&set, a[ADDRSET_WAYS]), -ENOSPC);
	ck_assert_int_eq(addrset_remove(&set, a[3]), 1);
	ck_assert_int_eq(addrset_insert(&set, a[ADDRSET_WAYS]), 0);
	for (int i = 0; i <= ADDRSET_WAYS; i++)
		ck_assert_int_eq(addrset_remove(&set, a[i]), i != 3);
	ck_assert_uint_eq(addrset_count(&set), 0);
}
END_TEST

/* Consecutive page-aligned blocks spread over the buckets: none is
 * refused, and clearing the members removes them all. (Their filter
 * bytes, 64 of them shared by all 20000, stay sticky: filter_sticky.) */
START_TEST(addrset_spread)
{
	enum { N = 20000 };
	uint32_t refused = 0;

	for (uint64_t i = 0; i < N; i++)
		refused += addrset_insert(&set, 0x7f0000000000ull + i * 4096) != 0;
	/* 20000 page-aligned blocks in 16384 buckets of 8 ways. */
	ck_assert_uint_eq(refused, 0);
	ck_assert_uint_eq(addrset_count(&set), N);
	addrset_clear_members(&set);
	ck_assert_uint_eq(addrset_count(&set), 0);
	ck_assert_int_eq(addrset_remove(&set, 0x7f0000000000ull), 0);
}
END_TEST

/* In a forked child the members go and the pins stay: a free of the
 * parent's sampled block is no longer looked up, one of the arena's
 * still is. Unpinning then clears the filter. */
START_TEST(addrset_clear_members_keeps_pins)
{
	uint64_t member = 0x7f0000001230ull, pinned = 0x7f0000004560ull;

	ck_assert_int_eq(addrset_insert(&set, member), 0);
	addrset_pin(&set, pinned);
	addrset_clear_members(&set);
	ck_assert_uint_eq(addrset_count(&set), 0);
	ck_assert(!addrset_maybe(&set, member));
	ck_assert(addrset_maybe(&set, pinned));
	addrset_unpin(&set, pinned);
	ck_assert(!addrset_maybe(&set, pinned));
}
END_TEST

/* Large blocks: glibc's mmapped chunks (offset 0x10 in a page) one
 * mapping after another, and jemalloc's page-aligned extents 2 MiB apart.
 * Their low bits are all alike: buckets indexed by the low bits, as the
 * filter is, would take only a handful of them (8 per bucket) and refuse
 * the rest. */
START_TEST(addrset_spread_large)
{
	enum { N = 6000 };
	uint32_t refused = 0;

	for (uint64_t i = 0; i < N; i++) {
		refused += addrset_insert(&set, 0x7f1000000000ull -
						    i * (1048576 + 4096) + 0x10) != 0;
		refused += addrset_insert(&set, 0x7e0000000000ull +
						    i * 2097152) != 0;
	}
	ck_assert_uint_eq(refused, 0);
	ck_assert_uint_eq(addrset_count(&set), 2 * N);
}
END_TEST

struct worker {
	uint64_t base;
	uint32_t missing;
};

static void *
churn(void *arg)
{
	struct worker *w = arg;
	enum { LIVE = 64, ROUNDS = 20000 };
	for (uint32_t r = 0; r < ROUNDS; r++) {
		uint64_t a[LIVE];
		for (int i = 0; i < LIVE; i++) {
			a[i] = w->base + ((uint64_t)r * LIVE + (uint64_t)i) * 16;
			if (addrset_insert(&set, a[i]) != 0)
				a[i] = 0; /* a full bucket: not ours to find */
		}
		for (int i = 0; i < LIVE; i++)
			if (a[i] && addrset_remove(&set, a[i]) != 1)
				w->missing++;
	}
	return NULL;
}

/* Four threads insert and remove at once; none loses an address. */
START_TEST(addrset_concurrent)
{
	pthread_t t[4];
	struct worker w[4];

	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){ 0x100000000000ull * (uint64_t)(i + 1), 0 };
		ck_assert_int_eq(pthread_create(&t[i], NULL, churn, &w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		ck_assert_uint_eq(w[i].missing, 0);
	}
	ck_assert_uint_eq(addrset_count(&set), 0);
}
END_TEST

static Suite *
addrset_suite(void)
{
	Suite *s = suite_create("preload:addrset");
	TCase *tc = tcase_create("set");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, addrset_insert_remove);
	tcase_add_test(tc, addrset_same_filter_not_member);
	tcase_add_test(tc, addrset_filter_shared);
	tcase_add_test(tc, addrset_filter_sticky);
	tcase_add_test(tc, addrset_pin_no_slot);
	tcase_add_test(tc, addrset_clear_members_keeps_pins);
	tcase_add_test(tc, addrset_full_bucket);
	tcase_add_test(tc, addrset_spread);
	tcase_add_test(tc, addrset_spread_large);
	tcase_add_test(tc, addrset_concurrent);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(addrset_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
