/*
 * Unit tests of analyzer/util/hmap.c: keys anywhere in 64 bits (0 and ~0
 * included), replacement, growth past many rehashes, and lookups of keys
 * that collide in the low bits.
 */
#include "hmap.h"

#include <check.h>
#include <stdlib.h>

START_TEST(hmap_empty_map_finds_nothing)
{
	struct hmap m;
	uint64_t v = 7;
	hmap_init(&m);
	ck_assert(!hmap_get(&m, 0, &v));
	ck_assert(!hmap_get(&m, 42, &v));
	ck_assert_uint_eq(v, 7);
	hmap_free(&m);
}
END_TEST

START_TEST(hmap_stores_any_key)
{
	struct hmap m;
	uint64_t v;
	hmap_init(&m);
	hmap_put(&m, 0, 10);
	hmap_put(&m, UINT64_MAX, 20);
	hmap_put(&m, 1ull << 63, 30);
	ck_assert(hmap_get(&m, 0, &v) && v == 10);
	ck_assert(hmap_get(&m, UINT64_MAX, &v) && v == 20);
	ck_assert(hmap_get(&m, 1ull << 63, &v) && v == 30);
	hmap_put(&m, 0, 11);
	ck_assert(hmap_get(&m, 0, &v) && v == 11);
	ck_assert_uint_eq(m.count, 3);
	hmap_free(&m);
}
END_TEST

START_TEST(hmap_grows_and_keeps_everything)
{
	struct hmap m;
	uint64_t v;
	const uint64_t n = 100000;
	hmap_init(&m);
	/* Keys sharing their low 16 bits, as PCs of one page do not, but
	 * packed (parent << 32 | func) keys do. */
	for (uint64_t i = 0; i < n; i++)
		hmap_put(&m, i << 16, i * 3);
	ck_assert_uint_eq(m.count, n);
	for (uint64_t i = 0; i < n; i++) {
		ck_assert(hmap_get(&m, i << 16, &v));
		ck_assert_uint_eq(v, i * 3);
	}
	ck_assert(!hmap_get(&m, (n << 16) + 1, &v));
	ck_assert(!hmap_get(&m, 1, &v));
	hmap_free(&m);
}
END_TEST

START_TEST(hmap_ref_inserts_once)
{
	struct hmap m;
	bool found;
	uint64_t v;
	hmap_init(&m);
	for (uint64_t k = 0; k < 1000; k++) {
		uint64_t key = k == 999 ? UINT64_MAX : k * 0x1000;
		uint64_t *p = hmap_ref(&m, key, &found);
		ck_assert(!found);
		ck_assert_uint_eq(*p, 0);
		*p = k + 1;
		p = hmap_ref(&m, key, &found);
		ck_assert(found);
		ck_assert_uint_eq(*p, k + 1);
	}
	ck_assert_uint_eq(m.count, 1000);
	ck_assert(hmap_get(&m, UINT64_MAX, &v) && v == 1000);
	ck_assert(hmap_get(&m, 998 * 0x1000, &v) && v == 999);
	ck_assert(!hmap_get(&m, 5, &v));
	hmap_free(&m);
}
END_TEST

static Suite *
hmap_suite(void)
{
	Suite *s = suite_create("analyzer:hmap");
	TCase *tc = tcase_create("map");
	tcase_add_test(tc, hmap_empty_map_finds_nothing);
	tcase_add_test(tc, hmap_stores_any_key);
	tcase_add_test(tc, hmap_grows_and_keeps_everything);
	tcase_add_test(tc, hmap_ref_inserts_once);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(hmap_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
