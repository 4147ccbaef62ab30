/*
 * Unit tests of the range checks of the preload library (preload/base/range.h):
 * every word the unwinder reads directly (read_word, memo_holds in
 * unwind.c, modules_readable in modules.c) is tested through here, so the
 * cases are the addresses a hostile frame makes libunwind ask for: the top
 * of the address space, where addr + len wraps to a small number.
 */
#include "range.h"

#include <check.h>
#include <stdint.h>

#define TOP UINT64_MAX

struct range_case {
	uint64_t lo, hi, addr, len;
	int holds;
};

static const struct range_case cases[] = {
	/* An ordinary stack, and its edges. */
	{ 0x7ff000000000, 0x7ff000100000, 0x7ff000000000, 8, 1 },
	{ 0x7ff000000000, 0x7ff000100000, 0x7ff0000ffff8, 8, 1 },
	{ 0x7ff000000000, 0x7ff000100000, 0x7ff0000ffff9, 8, 0 },
	{ 0x7ff000000000, 0x7ff000100000, 0x7ff000100000, 8, 0 },
	{ 0x7ff000000000, 0x7ff000100000, 0x7feffffffff8, 8, 0 },
	/* The word at -8 (a CFA of 0), and -1: addr + 8 wraps to 0 or 7. */
	{ 0x7ff000000000, 0x7ff000100000, TOP - 7, 8, 0 },
	{ 0x7ff000000000, 0x7ff000100000, TOP, 8, 0 },
	{ 0x7ff000000000, 0x7ff000100000, TOP, 1, 0 },
	/* hi - 7: the last byte inside, a word reaching past hi. */
	{ 0x7ff000000000, 0x7ff000100000, 0x7ff000100000 - 7, 8, 0 },
	{ 0x7ff000000000, 0x7ff000100000, 0x7ff000100000 - 1, 1, 1 },
	/* A thread whose stack is unknown (0, 0) holds nothing. */
	{ 0, 0, 0, 8, 0 },
	{ 0, 0, TOP - 7, 8, 0 },
	{ 0, 0, 8, 8, 0 },
	/* A range ending at the top of the address space (hi = UINT64_MAX:
	 * the last byte, UINT64_MAX itself, is not in [lo, hi)). */
	{ TOP - 0xfff, TOP, TOP - 0xfff, 8, 1 },
	{ TOP - 0xfff, TOP, TOP - 15, 8, 1 },
	{ TOP - 0xfff, TOP, TOP - 7, 8, 0 },
	{ TOP - 0xfff, TOP, TOP - 6, 1, 1 },
	{ TOP - 0xfff, TOP, TOP, 1, 0 },
	/* A range smaller than the read, and inverted ranges. */
	{ 0x1000, 0x1004, 0x1000, 8, 0 },
	{ 0x2000, 0x1000, 0x1800, 8, 0 },
	{ TOP - 7, 8, TOP - 7, 8, 0 },
	{ 4, 0, TOP - 3, 8, 0 },
	/* A length that would wrap by itself. */
	{ 0x1000, 0x2000, 0x1000, TOP, 0 },
	{ 0x1000, 0x2000, 0x1008, TOP - 7, 0 },
	{ 0, TOP, 1, TOP, 0 },
	{ 0, TOP, 0, TOP, 1 },
	/* An empty read at either end is inside (nothing is read). */
	{ 0x1000, 0x2000, 0x2000, 0, 1 },
	{ 0x1000, 0x2000, 0x1000, 0, 1 },
};

/* range_within(lo, size, ...): the snapshot of a blocked thread's stack. */
static const struct range_case within[] = {
	{ 0x7ff000000000, 0x1000, 0x7ff000000ff8, 8, 1 },
	{ 0x7ff000000000, 0x1000, 0x7ff000000ff9, 8, 0 },
	{ 0x7ff000000000, 0x1000, 0x7ff000001000, 8, 0 },
	{ 0x7ff000000000, 0x1000, TOP - 7, 8, 0 },
	{ 0x7ff000000000, 0, 0x7ff000000000, 8, 0 },
	{ 0x7ff000000000, 4, 0x7ff000000000, 8, 0 },
	/* A snapshot taken at sp = -16 (the copy reaching past the top). */
	{ TOP - 15, 0x1000, TOP - 15, 8, 1 },
	{ TOP - 15, 0x1000, TOP - 7, 8, 1 },
	{ TOP - 15, 0x1000, 0, 8, 0 },
	{ TOP - 15, 0x1000, 8, 8, 0 },
	{ 0x1000, TOP, 0x1008, TOP - 7, 0 },
};

START_TEST(range_within_cases)
{
	const struct range_case *c = &within[_i];
	ck_assert_msg(range_within(c->lo, c->hi, c->addr, c->len) == c->holds,
		      "range_within(lo %#llx, size %#llx, addr %#llx, len %#llx) "
		      "!= %d",
		      (unsigned long long)c->lo, (unsigned long long)c->hi,
		      (unsigned long long)c->addr, (unsigned long long)c->len,
		      c->holds);
}
END_TEST

START_TEST(range_holds_cases)
{
	const struct range_case *c = &cases[_i];
	ck_assert_msg(range_holds(c->lo, c->hi, c->addr, c->len) == c->holds,
		      "range_holds(lo %#llx, hi %#llx, addr %#llx, len %#llx) "
		      "!= %d",
		      (unsigned long long)c->lo, (unsigned long long)c->hi,
		      (unsigned long long)c->addr, (unsigned long long)c->len,
		      c->holds);
}
END_TEST

static Suite *
range_suite(void)
{
	Suite *s = suite_create("preload:range");
	TCase *tc = tcase_create("holds");
	tcase_add_loop_test(tc, range_holds_cases, 0,
			    (int)(sizeof(cases) / sizeof(cases[0])));
	suite_add_tcase(s, tc);
	tc = tcase_create("within");
	tcase_add_loop_test(tc, range_within_cases, 0,
			    (int)(sizeof(within) / sizeof(within[0])));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(range_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
