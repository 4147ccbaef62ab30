/*
 * Unit tests of analyzer/profile/profile.c, the model every report reads: the
 * calling-context tree, self and total per function (a recursive function
 * counts once per sample), the order of the flat report, labels of
 * functions that share a name, threads and the header counters, the call
 * graph's edges and the collapse of hidden functions.
 */
#include "profile.h"
#include "report.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

struct fixture {
	struct profile *p;
	uint32_t main_, work, a, b, fact, mul, unnamed;
};

static struct fixture
make(void)
{
	struct fixture f;
	f.p = profile_new(PROFILE_KIND_TIME);
	uint32_t m = profile_module(f.p, "/lib/libx.so");
	f.main_ = profile_add_func(f.p, m, "main", 0x100, 0);
	f.work = profile_add_func(f.p, m, "work", 0x200, 0);
	f.a = profile_add_func(f.p, m, "a", 0x300, 0);
	f.b = profile_add_func(f.p, m, "b", 0x400, 0);
	f.fact = profile_add_func(f.p, m, "fact", 0x500, 0);
	f.mul = profile_add_func(f.p, m, "mul", 0x600, 0);
	f.unnamed = profile_add_func(f.p, m, "libx.so+0x700", 0x700,
				     PROFILE_FUNC_UNNAMED);
	return f;
}

static void
add(struct fixture *f, const uint32_t *stack, size_t n, int times,
    uint64_t weight)
{
	uint32_t th = profile_thread(f->p, 1);
	for (int i = 0; i < times; i++)
		profile_add_sample(f->p, stack, n, th, weight, 0);
}

START_TEST(profile_self_and_total_per_function)
{
	struct fixture f = make();
	uint32_t s1[] = { f.main_, f.work, f.a };
	uint32_t s2[] = { f.main_, f.work, f.b };
	uint32_t s3[] = { f.main_ };
	add(&f, s1, 3, 5, 10);
	add(&f, s2, 3, 3, 10);
	add(&f, s3, 1, 2, 10);
	profile_finish(f.p);
	const struct profile_func *fn = f.p->funcs;
	ck_assert_uint_eq(fn[f.a].self, 50);
	ck_assert_uint_eq(fn[f.a].total, 50);
	ck_assert_uint_eq(fn[f.b].self, 30);
	ck_assert_uint_eq(fn[f.work].self, 0);
	ck_assert_uint_eq(fn[f.work].total, 80);
	ck_assert_uint_eq(fn[f.main_].self, 20);
	ck_assert_uint_eq(fn[f.main_].total, 100);
	ck_assert_uint_eq(fn[f.main_].total_samples, 10);
	ck_assert_uint_eq(fn[f.work].total_samples, 8);
	ck_assert_uint_eq(f.p->hdr.samples, 10);
	ck_assert_uint_eq(f.p->hdr.weight, 100);
	profile_free(f.p);
}
END_TEST

/* The variance contributions add up as the weights do (a recursive
 * function's total once per sample), survive the collapse of hidden
 * functions, and give the binomial interval for samples of equal weight
 * and the delta method's for others. */
START_TEST(profile_variance_follows_weights)
{
	struct fixture f = make();
	uint32_t s1[] = { f.main_, f.fact, f.fact, f.a };
	uint32_t s2[] = { f.main_, f.b };
	add(&f, s1, 4, 3, 10);
	add(&f, s2, 2, 7, 10);
	profile_finish(f.p);
	const struct profile_func *fn = f.p->funcs;
	ck_assert(fn[f.a].self_var == 300.0);
	ck_assert(fn[f.fact].total_var == 300.0);
	ck_assert(fn[f.main_].total_var == 1000.0);
	ck_assert(f.p->hdr.var == 1000.0);
	/* 3 of 10 equal samples: 1.96 sqrt(0.3 * 0.7 / 10), in points */
	double want = 100 * 1.959964 * sqrt(0.3 * 0.7 / 10);
	ck_assert_double_eq_tol(report_pct_err(f.p, fn[f.a].self,
					       fn[f.a].self_var), want, 1e-9);
	ck_assert_double_eq_tol(report_pct_err(f.p, fn[f.main_].total,
					       fn[f.main_].total_var), 0.0,
				1e-9);

	bool hidden[16] = { false };
	hidden[f.fact] = true;
	struct profile *c = profile_collapse(f.p, hidden);
	ck_assert(c->funcs[f.a].self_var == 300.0);
	ck_assert(c->funcs[f.main_].total_var == 1000.0);
	profile_free(c);
	profile_free(f.p);

	/* A part known exactly (variance 0) against a sampled rest. */
	struct profile *p = profile_new(PROFILE_KIND_SPACE);
	uint32_t m = profile_module(p, "/x");
	uint32_t big = profile_add_func(p, m, "big", 0x10, 0);
	uint32_t small = profile_add_func(p, m, "small", 0x20, 0);
	uint32_t th = profile_thread(p, 1);
	profile_add_samples(p, &big, 1, th, 600, 0.0, 1, 0);
	profile_add_samples(p, &small, 1, th, 400, 400.0 * 300.0, 1, 0);
	profile_finish(p);
	/* s = 0.6: sqrt(0.6^2 * 120000) / 1000 */
	want = 100 * 1.959964 * sqrt(0.36 * 120000.0) / 1000.0;
	ck_assert_double_eq_tol(report_pct_err(p, p->funcs[big].self,
					       p->funcs[big].self_var),
				want, 1e-9);
	profile_free(p);
}
END_TEST

START_TEST(profile_recursion_counts_once_per_sample)
{
	struct fixture f = make();
	uint32_t deep[] = { f.main_, f.fact, f.fact, f.fact, f.mul };
	uint32_t mid[] = { f.main_, f.fact, f.fact };
	/* mutual recursion through another function, too */
	uint32_t mutual[] = { f.main_, f.fact, f.mul, f.fact, f.mul };
	add(&f, deep, LEN(deep), 4, 1);
	add(&f, mid, LEN(mid), 2, 1);
	add(&f, mutual, LEN(mutual), 1, 1);
	profile_finish(f.p);
	const struct profile_func *fn = f.p->funcs;
	ck_assert_uint_eq(fn[f.fact].self, 2);
	ck_assert_uint_eq(fn[f.fact].total, 7);
	ck_assert_uint_eq(fn[f.fact].total_samples, 7);
	ck_assert_uint_eq(fn[f.mul].self, 5);
	ck_assert_uint_eq(fn[f.mul].total, 5);
	ck_assert_uint_eq(fn[f.main_].total, 7);
	profile_free(f.p);
}
END_TEST

START_TEST(profile_tree_is_built_root_first)
{
	struct fixture f = make();
	uint32_t s1[] = { f.main_, f.work, f.a };
	uint32_t s2[] = { f.main_, f.work, f.b };
	uint32_t s3[] = { f.work };
	add(&f, s1, 3, 2, 1);
	add(&f, s2, 3, 1, 1);
	add(&f, s3, 1, 1, 1);
	profile_finish(f.p);
	const struct profile_node *n = f.p->nodes;
	/* root, main, main/work, main/work/a, main/work/b, work */
	ck_assert_uint_eq(f.p->nnodes, 6);
	ck_assert_uint_eq(n[PROFILE_ROOT].total, 4);
	uint32_t m = n[PROFILE_ROOT].first_child;
	ck_assert_uint_eq(n[m].func, f.main_);
	ck_assert_uint_eq(n[m].total, 3);
	ck_assert_uint_eq(n[m].self, 0);
	uint32_t w = n[m].first_child;
	ck_assert_uint_eq(n[w].func, f.work);
	uint32_t a = n[w].first_child, b = n[a].next_sibling;
	ck_assert_uint_eq(n[a].func, f.a);
	ck_assert_uint_eq(n[a].self_samples, 2);
	ck_assert_uint_eq(n[b].func, f.b);
	ck_assert_uint_eq(n[b].next_sibling, PROFILE_NONE);
	ck_assert_uint_eq(n[b].parent, w);
	uint32_t top_work = n[m].next_sibling;
	ck_assert_uint_eq(n[top_work].func, f.work);
	ck_assert_uint_eq(n[top_work].self, 1);
	/* Samples are kept by leaf node (and thread and flags), counted:
	 * the two at a are one class. */
	ck_assert_uint_eq(f.p->nsamples, 3);
	ck_assert_uint_eq(f.p->samples[0].node, a);
	ck_assert_uint_eq(f.p->samples[0].count, 2);
	ck_assert_uint_eq(f.p->samples[0].weight, 2);
	ck_assert_uint_eq(f.p->samples[2].node, top_work);
	ck_assert_uint_eq(f.p->samples[2].count, 1);
	profile_free(f.p);
}
END_TEST

START_TEST(profile_orders_by_self_then_total_then_name)
{
	struct fixture f = make();
	uint32_t s1[] = { f.main_, f.a };
	uint32_t s2[] = { f.work, f.b };
	uint32_t s3[] = { f.main_, f.fact };
	add(&f, s1, 2, 3, 1);
	add(&f, s2, 2, 3, 1);
	add(&f, s3, 2, 1, 1);
	profile_finish(f.p);
	size_t n;
	uint32_t *ids = profile_funcs_by_self(f.p, &n);
	/* a and b tie on self and total: by name. main (total 4) before
	 * work (total 3); functions never seen come last, by name. */
	uint32_t want[] = { f.a, f.b, f.fact, f.main_, f.work, f.unnamed, f.mul };
	ck_assert_uint_eq(n, LEN(want));
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(ids[i] == want[i], "position %zu: %s", i,
			      f.p->funcs[ids[i]].name);
	free(ids);
	profile_free(f.p);
}
END_TEST

START_TEST(profile_labels_tell_same_names_apart)
{
	struct profile *p = profile_new(PROFILE_KIND_TIME);
	uint32_t m1 = profile_module(p, "/lib/liba.so");
	uint32_t m2 = profile_module(p, "/usr/lib/libb.so");
	ck_assert_uint_eq(profile_module(p, "/lib/liba.so"), m1);
	uint32_t x1 = profile_add_func(p, m1, "init", 0x10, 0);
	uint32_t x2 = profile_add_func(p, m2, "init", 0x20, 0);
	uint32_t y1 = profile_add_func(p, m1, "cmp", 0x30, 0);
	uint32_t y2 = profile_add_func(p, m1, "cmp", 0x40, 0);
	uint32_t z = profile_add_func(p, m2, "only", 0x50, 0);
	profile_finish(p);
	ck_assert_str_eq(p->funcs[x1].label, "init (liba.so)");
	ck_assert_str_eq(p->funcs[x2].label, "init (libb.so)");
	ck_assert_str_eq(p->funcs[y1].label, "cmp (liba.so+0x30)");
	ck_assert_str_eq(p->funcs[y2].label, "cmp (liba.so+0x40)");
	ck_assert_str_eq(p->funcs[z].label, "only");
	ck_assert_str_eq(profile_func_module(p, z), "/usr/lib/libb.so");
	profile_free(p);
}
END_TEST

/* An inlined function's label ends in " [inlined]", also when it needs
 * its module; it is never confused with an outlined function of its
 * name, and the flag survives hiding. */
START_TEST(profile_labels_mark_inlined)
{
	struct profile *p = profile_new(PROFILE_KIND_TIME);
	uint32_t m1 = profile_module(p, "/lib/liba.so");
	uint32_t m2 = profile_module(p, "/lib/libb.so");
	uint32_t out = profile_add_func(p, m1, "mix", 0x10, 0);
	uint32_t in = profile_add_func(p, m1, "mix", 0, PROFILE_FUNC_INLINED);
	uint32_t s1 = profile_add_func(p, m1, "spin", 0, PROFILE_FUNC_INLINED);
	uint32_t s2 = profile_add_func(p, m2, "spin", 0, PROFILE_FUNC_INLINED);
	uint32_t stack[] = { out, in, s1, s2 };
	profile_add_sample(p, stack, 4, profile_thread(p, 1), 1, 0);
	profile_finish(p);
	ck_assert_str_eq(p->funcs[out].label, "mix");
	ck_assert_str_eq(p->funcs[in].label, "mix [inlined]");
	ck_assert_str_eq(p->funcs[s1].label, "spin (liba.so) [inlined]");
	ck_assert_str_eq(p->funcs[s2].label, "spin (libb.so) [inlined]");
	bool hidden[4] = { false, false, true, false };
	struct profile *d = profile_collapse(p, hidden);
	ck_assert(d->funcs[in].flags & PROFILE_FUNC_INLINED);
	ck_assert(!(d->funcs[out].flags & PROFILE_FUNC_INLINED));
	ck_assert_str_eq(d->funcs[s2].label, "spin [inlined]");
	profile_free(d);
	profile_free(p);
}
END_TEST

/* What a finished profile keeps per function and per node, for spools
 * of millions of distinct PCs (one function and one node each): a
 * function whose name is unique is labelled by that name, not a copy,
 * and the index of the tree's edges, needed only while samples are
 * added, is gone. */
START_TEST(profile_finish_keeps_no_per_pc_extras)
{
	struct profile *p = profile_new(PROFILE_KIND_TIME);
	uint32_t fn[64];
	char name[32];
	for (uint32_t i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "0x%x", 0x1000 + 16 * i);
		fn[i] = profile_add_func(p, PROFILE_NONE, name, 0x1000 + 16 * i,
					 PROFILE_FUNC_UNNAMED);
	}
	for (uint32_t i = 0; i < 64; i += 4)
		profile_add_sample(p, fn + i, 4, profile_thread(p, 1), 1, 0);
	ck_assert_uint_eq(p->children.count, 64);
	profile_finish(p);
	for (uint32_t i = 0; i < 64; i++)
		ck_assert_ptr_eq(p->funcs[fn[i]].label, p->funcs[fn[i]].name);
	ck_assert_uint_eq(p->children.cap, 0);
	ck_assert_uint_eq(p->nnodes, 65);
	ck_assert_uint_eq(p->funcs[fn[5]].total, 1);
	profile_free(p);
}
END_TEST

/* The text reports print a label's control characters as \xNN; the
 * label itself (for JSON and sorting) keeps them. A collapsed copy keeps
 * the symbol version. */
START_TEST(profile_text_escapes_labels)
{
	struct profile *p = profile_new(PROFILE_KIND_TIME);
	uint32_t m = profile_module(p, "/lib/lib\x1b[2J.so");
	uint32_t esc = profile_add_func(p, m, "evil\x1b]0;x\x07", 0x10, 0);
	uint32_t plain = profile_add_func(p, m, "memcpy", 0x20, 0);
	profile_func_set_version(p, plain, "GLIBC_2.14");
	uint32_t stack[] = { esc, plain };
	profile_add_sample(p, stack, 2, profile_thread(p, 1), 10, 0);
	profile_finish(p);
	ck_assert_str_eq(p->funcs[esc].label, "evil\x1b]0;x\x07");
	ck_assert_str_eq(p->funcs[esc].text, "evil\\x1b]0;x\\x07");
	ck_assert_ptr_eq(p->funcs[plain].text, p->funcs[plain].label);
	ck_assert_str_eq(p->funcs[plain].version, "GLIBC_2.14");

	bool hidden[2] = { false, false };
	struct profile *c = profile_collapse(p, hidden);
	ck_assert_str_eq(c->funcs[esc].text, "evil\\x1b]0;x\\x07");
	ck_assert_str_eq(c->funcs[plain].version, "GLIBC_2.14");
	profile_free(c);
	profile_free(p);
}
END_TEST

START_TEST(profile_counts_threads_and_flags)
{
	struct fixture f = make();
	uint32_t t1 = profile_thread(f.p, 100);
	uint32_t t2 = profile_thread(f.p, 200);
	ck_assert_uint_eq(profile_thread(f.p, 100), t1);
	profile_thread_set_name(f.p, t2, "worker-xyz", 6);
	uint32_t named[] = { f.main_, f.a };
	uint32_t unnamed[] = { f.main_, f.unnamed, f.unnamed };
	profile_add_sample(f.p, named, 2, t1, 5, 0);
	profile_add_sample(f.p, named, 2, t2, 7, SPOOL_SAMPLE_TRUNCATED);
	profile_add_sample(f.p, unnamed, 3, t2, 9,
			   SPOOL_SAMPLE_UNWIND_ERR);
	profile_finish(f.p);
	ck_assert_uint_eq(f.p->nthreads, 2);
	ck_assert_str_eq(f.p->threads[t2].name, "worker");
	ck_assert_ptr_null(f.p->threads[t1].name);
	ck_assert_uint_eq(f.p->threads[t1].samples, 1);
	ck_assert_uint_eq(f.p->threads[t2].samples, 2);
	ck_assert_uint_eq(f.p->threads[t2].weight, 16);
	ck_assert_uint_eq(f.p->hdr.truncated_stacks, 1);
	ck_assert_uint_eq(f.p->hdr.unwind_errors, 1);
	/* The sample with two unnamed frames counts once. */
	ck_assert_uint_eq(f.p->hdr.unnamed_samples, 1);
	/* Other thread or other flags: a class of its own each. */
	ck_assert_uint_eq(f.p->nsamples, 3);
	ck_assert_uint_eq(f.p->samples[2].count, 1);
	ck_assert_uint_eq(f.p->samples[2].flags, SPOOL_SAMPLE_UNWIND_ERR);
	profile_free(f.p);
}
END_TEST

START_TEST(profile_pseudo_functions_stay_out_of_lists)
{
	struct fixture f = make();
	uint32_t cut = profile_add_func(f.p, PROFILE_NONE, "[truncated stack]",
					0, PROFILE_FUNC_PSEUDO);
	uint32_t s[] = { cut, f.a };
	add(&f, s, 2, 1, 1);
	profile_finish(f.p);
	size_t n;
	uint32_t *ids = profile_funcs_by_self(f.p, &n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_ne(ids[i], cut);
	ck_assert_uint_eq(n, f.p->nfuncs - 1);
	/* ...but the tree keeps them as the path's root. */
	ck_assert_uint_eq(f.p->nodes[f.p->nodes[PROFILE_ROOT].first_child].func,
			  cut);
	ck_assert_ptr_null(profile_func_module(f.p, cut));
	free(ids);
	profile_free(f.p);
}
END_TEST

/* The edge from caller to callee (PROFILE_NONE for the root or leaf
 * end), or NULL. */
static const struct profile_edge *
find_edge(const struct profile *p, uint32_t caller, uint32_t callee)
{
	size_t n;
	const uint32_t *e = profile_callees(p, caller, &n);
	for (size_t i = 0; i < n; i++)
		if (p->edges[e[i]].callee == callee)
			return &p->edges[e[i]];
	return NULL;
}

START_TEST(profile_edges_count_each_sample_once)
{
	struct fixture f = make();
	uint32_t deep[] = { f.main_, f.fact, f.fact, f.fact, f.mul };
	uint32_t flat[] = { f.main_, f.fact, f.mul };
	uint32_t alone[] = { f.main_ };
	add(&f, deep, LEN(deep), 4, 10);
	add(&f, flat, LEN(flat), 2, 10);
	add(&f, alone, LEN(alone), 1, 10);
	profile_finish(f.p);
	const struct profile *p = f.p;
	/* fact -> fact is twice on the deep stacks: counted once each. */
	ck_assert_uint_eq(find_edge(p, f.fact, f.fact)->weight, 40);
	ck_assert_uint_eq(find_edge(p, f.fact, f.fact)->samples, 4);
	ck_assert_uint_eq(find_edge(p, f.fact, f.mul)->weight, 60);
	ck_assert_uint_eq(find_edge(p, f.main_, f.fact)->weight, 60);
	/* root and leaf ends */
	ck_assert_uint_eq(find_edge(p, PROFILE_NONE, f.main_)->weight, 70);
	ck_assert_uint_eq(find_edge(p, f.main_, PROFILE_NONE)->weight, 10);
	ck_assert_uint_eq(find_edge(p, f.mul, PROFILE_NONE)->weight, 60);
	ck_assert_ptr_null(find_edge(p, f.main_, f.mul));
	ck_assert(p->funcs[f.fact].flags & PROFILE_FUNC_RECURSIVE);
	ck_assert(!(p->funcs[f.main_].flags & PROFILE_FUNC_RECURSIVE));
	/* callers of fact, heaviest first */
	size_t n;
	const uint32_t *in = profile_callers(p, f.fact, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(p->edges[in[0]].caller, f.main_);
	ck_assert_uint_eq(p->edges[in[1]].caller, f.fact);
	profile_free(f.p);
}
END_TEST

/* Racket's example: one second on the stack A -> B -> B -> B -> A. */
START_TEST(profile_edges_divide_by_occurrences)
{
	struct fixture f = make();
	uint32_t s[] = { f.a, f.b, f.b, f.b, f.a };
	add(&f, s, LEN(s), 1, 600);
	profile_finish(f.p);
	const struct profile *p = f.p;
	const struct profile_edge *ab = find_edge(p, f.a, f.b);
	ck_assert_uint_eq(ab->weight, 600);
	ck_assert_double_eq_tol(ab->caller_time, 300, 1e-9);
	ck_assert_double_eq_tol(ab->callee_time, 200, 1e-9);
	const struct profile_edge *bb = find_edge(p, f.b, f.b);
	ck_assert_double_eq_tol(bb->caller_time, 400, 1e-9);
	ck_assert_double_eq_tol(bb->callee_time, 400, 1e-9);
	const struct profile_edge *ba = find_edge(p, f.b, f.a);
	ck_assert_double_eq_tol(ba->caller_time, 200, 1e-9);
	ck_assert_double_eq_tol(ba->callee_time, 300, 1e-9);
	/* The callee times into a function add up to its total, the
	 * caller times out of it too (root and leaf edges included). */
	const struct profile_edge *ra = find_edge(p, PROFILE_NONE, f.a);
	const struct profile_edge *al = find_edge(p, f.a, PROFILE_NONE);
	ck_assert_double_eq_tol(ra->callee_time + ba->callee_time, 600, 1e-9);
	ck_assert_double_eq_tol(ab->caller_time + al->caller_time, 600, 1e-9);
	profile_free(f.p);
}
END_TEST

/* The node under parent for func, or PROFILE_NONE. */
static uint32_t
child_of(const struct profile *p, uint32_t parent, uint32_t func)
{
	for (uint32_t c = p->nodes[parent].first_child; c != PROFILE_NONE;
	     c = p->nodes[c].next_sibling)
		if (p->nodes[c].func == func)
			return c;
	return PROFILE_NONE;
}

START_TEST(profile_collapse_charges_nearest_displayed_caller)
{
	struct fixture f = make();
	/* work is hidden. */
	uint32_t through[] = { f.main_, f.work, f.a };  /* a moves up */
	uint32_t ends[] = { f.main_, f.work };          /* main's self */
	uint32_t rooted[] = { f.work, f.b };            /* b becomes a root */
	uint32_t only[] = { f.work };                   /* "..." */
	add(&f, through, LEN(through), 3, 1);
	add(&f, ends, LEN(ends), 2, 1);
	add(&f, rooted, LEN(rooted), 4, 1);
	add(&f, only, LEN(only), 1, 1);
	profile_finish(f.p);
	bool *hidden = calloc(f.p->nfuncs, sizeof(*hidden));
	hidden[f.work] = true;
	struct profile *d = profile_collapse(f.p, hidden);
	free(hidden);

	uint32_t m = child_of(d, PROFILE_ROOT, f.main_);
	ck_assert_uint_ne(m, PROFILE_NONE);
	ck_assert_uint_eq(d->nodes[m].total, 5);
	ck_assert_uint_eq(d->nodes[m].self, 2);
	ck_assert_uint_eq(d->nodes[m].elided, 2);
	ck_assert(d->nodes[m].flags & PROFILE_NODE_ELIDED);
	ck_assert_uint_eq(d->nodes[child_of(d, m, f.a)].self, 3);
	uint32_t b = child_of(d, PROFILE_ROOT, f.b);
	ck_assert_uint_eq(d->nodes[b].total, 4);
	ck_assert(!(d->nodes[b].flags & PROFILE_NODE_ELIDED));
	ck_assert_uint_eq(child_of(d, PROFILE_ROOT, f.work), PROFILE_NONE);
	/* The "..." function takes what no displayed frame called. */
	uint32_t dots = (uint32_t)d->nfuncs - 1; /* added by the collapse */
	ck_assert_uint_ne(child_of(d, PROFILE_ROOT, dots), PROFILE_NONE);
	ck_assert_str_eq(d->funcs[dots].label, "...");
	ck_assert(d->funcs[dots].flags & PROFILE_FUNC_ELLIPSIS);
	ck_assert_uint_eq(d->funcs[dots].self, 1);
	ck_assert_uint_eq(d->nodes[PROFILE_ROOT].total, 10);
	/* Function figures and flags follow the new tree. */
	ck_assert_uint_eq(d->funcs[f.main_].self, 2);
	ck_assert(d->funcs[f.main_].flags & PROFILE_FUNC_ELIDED);
	ck_assert(d->funcs[f.work].flags & PROFILE_FUNC_HIDDEN);
	ck_assert_uint_eq(d->funcs[f.work].total, 0);
	ck_assert_uint_eq(find_edge(d, f.main_, f.a)->weight, 3);
	/* Sample classes keep their counts and move to their new leaves. */
	ck_assert_uint_eq(d->nsamples, 4);
	ck_assert_uint_eq(d->samples[0].node, child_of(d, m, f.a));
	ck_assert_uint_eq(d->samples[0].count, 3);
	ck_assert_uint_eq(d->samples[1].node, m);
	ck_assert_uint_eq(d->samples[1].count, 2);
	ck_assert_uint_eq(d->hdr.samples, 10);
	size_t n;
	uint32_t *ids = profile_funcs_by_self(d, &n);
	for (size_t i = 0; i < n; i++)
		ck_assert_uint_ne(ids[i], f.work);
	free(ids);
	profile_free(d);
	profile_free(f.p);
}
END_TEST

/* A profile of many random stacks (with recursion) over nfuncs
 * functions: enough distinct paths and edges that the id sets indexing
 * nodes and edges grow many times. The same seed gives the same
 * profile. */
static struct profile *
make_random(unsigned seed, size_t nfuncs, size_t nsamples)
{
	struct profile *p = profile_new(PROFILE_KIND_TIME);
	uint32_t m = profile_module(p, "/bin/app");
	uint32_t th = profile_thread(p, 1);
	uint32_t stack[24];
	char name[32];

	for (size_t i = 0; i < nfuncs; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		profile_add_func(p, m, name, 0x1000 + i, 0);
	}
	srand(seed);
	for (size_t k = 0; k < nsamples; k++) {
		size_t n = 1 + (size_t)rand() % LEN(stack);
		for (size_t i = 0; i < n; i++)
			stack[i] = (uint32_t)((size_t)rand() %
					      (i < 3 ? 4 : nfuncs));
		profile_add_sample(p, stack, n, th, 1 + (uint64_t)(k % 7), 0);
	}
	return p;
}

/* The weight of each (caller, callee) edge, counted from the samples
 * themselves: once per sample whatever the occurrences on its stack. */
START_TEST(profile_edges_match_samples_on_many_paths)
{
	enum { NF = 300, NS = 4000 };
	struct profile *p = make_random(7, NF, NS);
	profile_finish(p);
	size_t slots = (NF + 1) * (NF + 1);
	uint64_t *want = calloc(slots, sizeof(*want));
	int64_t *seen = malloc(slots * sizeof(*seen));
	ck_assert_ptr_nonnull(want);
	ck_assert_ptr_nonnull(seen);
	memset(seen, 0xff, slots * sizeof(*seen));
	for (size_t k = 0; k < p->nsamples; k++) {
		const struct profile_sample *s = &p->samples[k];
		uint32_t callee = NF; /* the leaf's edge to PROFILE_NONE */
		for (uint32_t x = s->node; x != PROFILE_ROOT;
		     x = p->nodes[x].parent) {
			uint32_t f = p->nodes[x].func;
			uint32_t up = p->nodes[p->nodes[x].parent].func;
			size_t pairs[2] = { (size_t)f * (NF + 1) + callee,
					    (size_t)(up == PROFILE_NONE ? NF : up) *
						    (NF + 1) + f };
			for (int i = 0; i < 2; i++) {
				if (seen[pairs[i]] == (int64_t)k)
					continue;
				seen[pairs[i]] = (int64_t)k;
				want[pairs[i]] += s->weight;
			}
			callee = f;
		}
	}
	size_t nonzero = 0;
	for (size_t i = 0; i < slots; i++)
		nonzero += want[i] != 0;
	ck_assert_uint_eq(p->nedges, nonzero);
	for (size_t i = 0; i < p->nedges; i++) {
		const struct profile_edge *e = &p->edges[i];
		size_t a = e->caller == PROFILE_NONE ? NF : e->caller;
		size_t b = e->callee == PROFILE_NONE ? NF : e->callee;
		ck_assert_uint_eq(e->weight, want[a * (NF + 1) + b]);
		want[a * (NF + 1) + b] = 0; /* a second edge would fail */
	}
	free(want);
	free(seen);
	profile_free(p);
}
END_TEST

/* profile_collapse_take (what profanalyze uses) gives what
 * profile_collapse gives, ids and order of edges included. */
START_TEST(profile_collapse_take_matches_collapse)
{
	enum { NF = 200, NS = 3000 };
	struct profile *a = make_random(11, NF, NS);
	struct profile *b = make_random(11, NF, NS);
	bool hidden[NF] = { false };
	for (size_t i = 0; i < NF; i += 3)
		hidden[i] = true;
	profile_finish(a);
	profile_finish(b);
	struct profile *ca = profile_collapse(a, hidden);
	struct profile *cb = profile_collapse_take(b, hidden);

	ck_assert_uint_eq(ca->nfuncs, cb->nfuncs);
	for (size_t i = 0; i < ca->nfuncs; i++) {
		const struct profile_func *x = &ca->funcs[i], *y = &cb->funcs[i];
		ck_assert_str_eq(x->label, y->label);
		ck_assert_uint_eq(x->flags, y->flags);
		ck_assert_uint_eq(x->self, y->self);
		ck_assert_uint_eq(x->total, y->total);
		ck_assert_uint_eq(x->elided, y->elided);
	}
	ck_assert_uint_eq(ca->nnodes, cb->nnodes);
	for (size_t i = 0; i < ca->nnodes; i++) {
		const struct profile_node *x = &ca->nodes[i], *y = &cb->nodes[i];
		ck_assert_uint_eq(x->func, y->func);
		ck_assert_uint_eq(x->parent, y->parent);
		ck_assert_uint_eq(x->total, y->total);
		ck_assert_uint_eq(x->elided, y->elided);
	}
	ck_assert_uint_eq(ca->nedges, cb->nedges);
	ck_assert_mem_eq(ca->edges, cb->edges,
			 ca->nedges * sizeof(*ca->edges));
	profile_free(ca);
	profile_free(cb);
	profile_free(a);
}
END_TEST

static Suite *
profile_suite(void)
{
	Suite *s = suite_create("analyzer:profile");
	TCase *tc = tcase_create("model");
	tcase_add_test(tc, profile_self_and_total_per_function);
	tcase_add_test(tc, profile_recursion_counts_once_per_sample);
	tcase_add_test(tc, profile_variance_follows_weights);
	tcase_add_test(tc, profile_tree_is_built_root_first);
	tcase_add_test(tc, profile_orders_by_self_then_total_then_name);
	tcase_add_test(tc, profile_labels_tell_same_names_apart);
	tcase_add_test(tc, profile_labels_mark_inlined);
	tcase_add_test(tc, profile_counts_threads_and_flags);
	tcase_add_test(tc, profile_text_escapes_labels);
	tcase_add_test(tc, profile_finish_keeps_no_per_pc_extras);
	tcase_add_test(tc, profile_pseudo_functions_stay_out_of_lists);
	tcase_add_test(tc, profile_edges_count_each_sample_once);
	tcase_add_test(tc, profile_edges_divide_by_occurrences);
	tcase_add_test(tc, profile_collapse_charges_nearest_displayed_caller);
	tcase_add_test(tc, profile_edges_match_samples_on_many_paths);
	tcase_add_test(tc, profile_collapse_take_matches_collapse);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(profile_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
