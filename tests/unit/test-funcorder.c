/*
 * Unit tests of analyzer/profile/funcorder.c: the entry orders of the call-graph
 * reports. Topological puts callers first, heaviest total first among
 * the ready ones, and breaks cycles the same way every time; self and
 * total sort by their figure.
 */
#include "funcorder.h"

#include <check.h>
#include <errno.h>
#include <stdlib.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

struct fixture {
	struct profile *p;
	uint32_t top, a, b, c, leaf;
};

static struct fixture
make(void)
{
	struct fixture f;
	f.p = profile_new(PROFILE_KIND_TIME);
	uint32_t m = profile_module(f.p, "/bin/x");
	f.top = profile_add_func(f.p, m, "top", 0x10, 0);
	f.a = profile_add_func(f.p, m, "a", 0x20, 0);
	f.b = profile_add_func(f.p, m, "b", 0x30, 0);
	f.c = profile_add_func(f.p, m, "c", 0x40, 0);
	f.leaf = profile_add_func(f.p, m, "leaf", 0x50, 0);
	return f;
}

static void
add(struct fixture *f, const uint32_t *stack, size_t n, int times)
{
	for (int i = 0; i < times; i++)
		profile_add_sample(f->p, stack, n, profile_thread(f->p, 1), 1, 0);
}

static void
check_order(const struct profile *p, enum funcorder o, const uint32_t *want,
	    size_t nwant)
{
	size_t n;
	uint32_t *ids = funcorder_sort(p, o, &n);
	ck_assert_uint_eq(n, nwant);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(ids[i] == want[i], "order %d, position %zu: %s",
			      (int)o, i, p->funcs[ids[i]].label);
	free(ids);
}

START_TEST(funcorder_callers_first_then_heaviest)
{
	struct fixture f = make();
	/* c is heavier than a but called by a: a, then c; b waits for
	 * both its callers. */
	uint32_t s1[] = { f.top, f.a, f.c, f.leaf };
	uint32_t s2[] = { f.top, f.c };
	uint32_t s3[] = { f.top, f.a, f.b };
	uint32_t s4[] = { f.top, f.c, f.b };
	add(&f, s1, LEN(s1), 3);
	add(&f, s2, LEN(s2), 4);
	add(&f, s3, LEN(s3), 1);
	add(&f, s4, LEN(s4), 1);
	profile_finish(f.p);
	uint32_t topo[] = { f.top, f.a, f.c, f.leaf, f.b };
	check_order(f.p, FUNCORDER_TOPOLOGICAL, topo, LEN(topo));
	/* self: c 4, leaf 3, b 2, top and a 0 (top's total is larger) */
	uint32_t self[] = { f.c, f.leaf, f.b, f.top, f.a };
	check_order(f.p, FUNCORDER_SELF, self, LEN(self));
	/* total: top 9, c 8, a 4, leaf 3, b 2 */
	uint32_t total[] = { f.top, f.c, f.a, f.leaf, f.b };
	check_order(f.p, FUNCORDER_TOTAL, total, LEN(total));
	profile_free(f.p);
}
END_TEST

START_TEST(funcorder_breaks_cycles_at_the_walks_back_edge)
{
	struct fixture f = make();
	/* a and b call each other; top calls a more than b, so the walk
	 * enters the cycle at a and b -> a closes it: a comes first. */
	uint32_t s1[] = { f.top, f.a, f.b, f.a, f.leaf };
	uint32_t s2[] = { f.top, f.b, f.a };
	add(&f, s1, LEN(s1), 3);
	add(&f, s2, LEN(s2), 2);
	profile_finish(f.p);
	uint32_t want[] = { f.top, f.a, f.b, f.leaf };
	check_order(f.p, FUNCORDER_TOPOLOGICAL, want, LEN(want));
	profile_free(f.p);

	/* The other way round when top calls b more. */
	f = make();
	uint32_t t1[] = { f.top, f.b, f.a, f.b, f.leaf };
	uint32_t t2[] = { f.top, f.a, f.b };
	add(&f, t1, LEN(t1), 3);
	add(&f, t2, LEN(t2), 2);
	profile_finish(f.p);
	uint32_t want2[] = { f.top, f.b, f.a, f.leaf };
	check_order(f.p, FUNCORDER_TOPOLOGICAL, want2, LEN(want2));
	profile_free(f.p);
}
END_TEST

START_TEST(funcorder_parses_names)
{
	enum funcorder o;
	ck_assert_int_eq(funcorder_parse("self", &o), 0);
	ck_assert_int_eq(o, FUNCORDER_SELF);
	ck_assert_int_eq(funcorder_parse("topological", &o), 0);
	ck_assert_int_eq(o, FUNCORDER_TOPOLOGICAL);
	ck_assert_int_eq(funcorder_parse("total", &o), 0);
	ck_assert_int_eq(o, FUNCORDER_TOTAL);
	ck_assert_int_eq(funcorder_parse("calls", &o), -EINVAL);
}
END_TEST

static Suite *
funcorder_suite(void)
{
	Suite *s = suite_create("analyzer:funcorder");
	TCase *tc = tcase_create("orders");
	tcase_add_test(tc, funcorder_callers_first_then_heaviest);
	tcase_add_test(tc, funcorder_breaks_cycles_at_the_walks_back_edge);
	tcase_add_test(tc, funcorder_parses_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(funcorder_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
