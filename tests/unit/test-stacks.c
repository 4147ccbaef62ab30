/*
 * Unit tests of a thread's table of stacks (preload/base/stacks.c): ids in
 * the order stacks are added, a stack found again by its PCs and flags,
 * the table's growth from one page to its full size with every id kept,
 * no room past STACKS_MAX, and a table emptied (to one page again) when
 * it is asked for with another stream.
 */
#include "stacks.h"

#include <check.h>
#include <stdint.h>

/* The n-th test stack: depth 1 to 8, PCs that differ from every other
 * n's. */
static uint32_t
stack_of(uint32_t n, uint64_t *pcs)
{
	uint32_t depth = 1 + n % 8;
	for (uint32_t i = 0; i < depth; i++)
		pcs[i] = 0x400000u + (uint64_t)n * 0x100 + i * 8;
	return depth;
}

/* Looks test stack n up in tab. */
static void
probe(struct stacks_table *tab, uint32_t n, struct stacks_probe *p)
{
	uint64_t pcs[8];
	uint32_t depth = stack_of(n, pcs);
	stacks_find(tab, 0, pcs, depth, p);
}

/* Adds stack n as a new stack; returns its id. */
static uint32_t
add(struct stacks_table *tab, uint32_t n)
{
	struct stacks_probe p;
	probe(tab, n, &p);
	ck_assert_uint_eq(p.id, 0);
	uint32_t id = stacks_next_id(tab, &p);
	stacks_add(tab, &p);
	return id;
}

/* The id of stack n in tab, 0 when it has none. */
static uint32_t
find(struct stacks_table *tab, uint32_t n)
{
	struct stacks_probe p;
	probe(tab, n, &p);
	return p.id;
}

START_TEST(stacks_ids_in_order)
{
	struct stacks_table *tab = NULL;
	ck_assert_ptr_nonnull(stacks_table_for(&tab, 7));
	ck_assert_uint_eq(stacks_capacity(tab), STACKS_FIRST_SLOTS);

	uint64_t pcs[3] = { 0x401000, 0x402000, 0x403000 };
	struct stacks_probe p;
	stacks_find(tab, 0, pcs, 3, &p);
	ck_assert_uint_eq(p.id, 0);
	ck_assert_uint_eq(stacks_next_id(tab, &p), 1);
	stacks_add(tab, &p);
	stacks_find(tab, 0, pcs, 3, &p);
	ck_assert_uint_eq(p.id, 1);
	/* Found again: adding it is a no-op. */
	stacks_add(tab, &p);

	/* The same PCs with other flags or a shorter depth are other
	 * stacks. */
	stacks_find(tab, 1, pcs, 3, &p);
	ck_assert_uint_eq(p.id, 0);
	ck_assert_uint_eq(stacks_next_id(tab, &p), 2);
	stacks_add(tab, &p);
	stacks_find(tab, 0, pcs, 2, &p);
	ck_assert_uint_eq(p.id, 0);
	ck_assert_uint_eq(stacks_next_id(tab, &p), 3);
	stacks_find(tab, 1, pcs, 3, &p);
	ck_assert_uint_eq(p.id, 2);
	/* The same table for the same stream. */
	struct stacks_table *again = tab;
	ck_assert_ptr_eq(stacks_table_for(&again, 7), tab);
}
END_TEST

START_TEST(stacks_grow_keeping_ids)
{
	struct stacks_table *tab = NULL;
	ck_assert_ptr_nonnull(stacks_table_for(&tab, 1));
	uint32_t capacity = stacks_capacity(tab);
	int doublings = 0;
	for (uint32_t n = 0; n < STACKS_MAX; n++) {
		ck_assert_uint_eq(add(tab, n), n + 1);
		if (stacks_capacity(tab) != capacity) {
			ck_assert_uint_eq(stacks_capacity(tab), 2 * capacity);
			capacity = stacks_capacity(tab);
			doublings++;
			/* Every stack so far kept its id through the
			 * rehash. */
			for (uint32_t m = 0; m <= n; m++)
				ck_assert_uint_eq(find(tab, m), m + 1);
		}
		/* Never fuller than three quarters. */
		ck_assert_uint_le((n + 1) * 4, capacity * 3);
	}
	ck_assert_uint_eq(capacity, STACKS_SLOTS);
	ck_assert_int_eq(doublings, 7); /* 128 to 16384 */
	for (uint32_t n = 0; n < STACKS_MAX; n++)
		ck_assert_uint_eq(find(tab, n), n + 1);

	/* Full: a new stack gets no id, and is not added. */
	struct stacks_probe p;
	probe(tab, STACKS_MAX, &p);
	ck_assert_uint_eq(p.id, 0);
	ck_assert_uint_eq(p.slot, STACKS_SLOTS);
	ck_assert_uint_eq(stacks_next_id(tab, &p), 0);
	stacks_add(tab, &p);
	ck_assert_uint_eq(find(tab, STACKS_MAX), 0);
	ck_assert_uint_eq(find(tab, STACKS_MAX - 1), STACKS_MAX);
}
END_TEST

START_TEST(stacks_other_stream_empties)
{
	struct stacks_table *tab = NULL;
	ck_assert_ptr_nonnull(stacks_table_for(&tab, 3));
	for (uint32_t n = 0; n < 1000; n++)
		add(tab, n);
	ck_assert_uint_gt(stacks_capacity(tab), STACKS_FIRST_SLOTS);
	stacks_set_last(tab, 123, 456);
	stacks_space_chain(tab)->address = 789;

	struct stacks_table *old = tab;
	ck_assert_ptr_nonnull(stacks_table_for(&tab, 4));
	ck_assert_ptr_eq(tab, old); /* the same page, emptied */
	ck_assert_uint_eq(stacks_capacity(tab), STACKS_FIRST_SLOTS);
	ck_assert_uint_eq(find(tab, 0), 0);
	ck_assert_uint_eq(find(tab, 999), 0);
	uint64_t t, w;
	stacks_last(tab, &t, &w);
	ck_assert_uint_eq(t, 0);
	ck_assert_uint_eq(w, 0);
	ck_assert_uint_eq(stacks_space_chain(tab)->address, 0);
	/* Ids start again at 1 in the new stream. */
	ck_assert_uint_eq(add(tab, 999), 1);
	ck_assert_uint_eq(add(tab, 0), 2);
}
END_TEST

START_TEST(stacks_new_streams_differ)
{
	uint32_t a = stacks_new_stream(), b = stacks_new_stream();
	ck_assert_uint_ne(a, 0);
	ck_assert_uint_ne(b, 0);
	ck_assert_uint_ne(a, b);
}
END_TEST

static Suite *
stacks_suite(void)
{
	Suite *s = suite_create("stacks");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, stacks_ids_in_order);
	tcase_add_test(tc, stacks_grow_keeping_ids);
	tcase_add_test(tc, stacks_other_stream_empties);
	tcase_add_test(tc, stacks_new_streams_differ);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(stacks_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
