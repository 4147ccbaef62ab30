/*
 * Unit tests of analyzer/profile/merge.c: several profiles (process images) as
 * one. The same function in two profiles (same module path, name and
 * address) is one function of the merged profile, whatever its id was in
 * each; functions that differ in any of those stay apart; every sample is
 * there with its stack, thread and weight; the header keeps the first
 * profile's description and sums the counts, saturating instead of
 * wrapping, with a drop count that was corrupt in any part unknown in the
 * sum; a merged run is complete only when every part is; symbol versions
 * are kept.
 */
#include "merge.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static uint32_t
func(const struct profile *p, const char *name, const char *module)
{
	for (uint32_t i = 0; i < p->nfuncs; i++)
		if (strcmp(p->funcs[i].name, name) == 0 &&
		    strcmp(profile_func_module(p, i), module) == 0)
			return i;
	ck_abort_msg("no function %s in %s", name, module);
	return 0;
}

/* A profile of process pid: main -> work -> leaf, n samples of 10 ns on
 * thread tid; functions added in an order that differs with pid. */
static struct profile *
part(uint32_t pid, uint32_t tid, const char *leaf, int n, bool complete)
{
	struct profile *p = profile_new(PROFILE_KIND_TIME);
	p->hdr.has_process = true;
	p->hdr.pid = pid;
	p->hdr.period_ns = 10;
	p->hdr.complete = complete;
	p->hdr.cpu_ns = 1000u * pid;
	p->hdr.sampled_cpu_ns = 600u * pid; /* as a user-mode-only source's */
	p->hdr.footer_threads = 1;
	p->hdr.drops[SPOOL_DROP_RING_FULL] = pid;
	p->hdr.exe = strdup("/bin/app");
	uint32_t m = profile_module(p, "/bin/app");
	uint8_t id[4] = { 1, 2, 3, (uint8_t)pid };
	profile_module_set_build_id(p, m, id, sizeof(id));
	uint32_t l = profile_add_func(p, m, leaf, 0x300, 0);
	uint32_t w = profile_add_func(p, m, "work", 0x200, 0);
	uint32_t mn = profile_add_func(p, m, "main", 0x100, 0);
	uint32_t stack[] = { mn, w, l };
	uint32_t th = profile_thread(p, tid);
	profile_thread_set_name(p, th, "worker", 6);
	for (int i = 0; i < n; i++)
		profile_add_sample(p, stack, 3, th, 10, 0);
	profile_finish(p);
	return p;
}

START_TEST(merge_same_functions_are_one)
{
	struct profile *ps[] = { part(10, 10, "leaf", 3, true),
				 part(20, 20, "leaf", 5, true) };
	struct profile *m = merge_profiles(ps, 2);

	ck_assert_uint_eq(m->nfuncs, 3);
	ck_assert_uint_eq(m->hdr.samples, 8);
	ck_assert_uint_eq(m->hdr.weight, 80);
	const struct profile_func *leaf = &m->funcs[func(m, "leaf", "/bin/app")];
	const struct profile_func *main_ = &m->funcs[func(m, "main", "/bin/app")];
	ck_assert_uint_eq(leaf->self_samples, 8);
	ck_assert_uint_eq(main_->total_samples, 8);
	ck_assert_uint_eq(main_->self_samples, 0);
	/* One path: root, main, work, leaf. */
	ck_assert_uint_eq(m->nnodes, 4);
	for (int i = 0; i < 2; i++)
		profile_free(ps[i]);
	profile_free(m);
}
END_TEST

START_TEST(merge_keeps_different_functions_apart)
{
	struct profile *ps[] = { part(10, 10, "leaf", 3, true),
				 part(20, 20, "other", 2, true) };
	struct profile *m = merge_profiles(ps, 2);

	ck_assert_uint_eq(m->nfuncs, 4);
	ck_assert_uint_eq(m->funcs[func(m, "leaf", "/bin/app")].self_samples, 3);
	ck_assert_uint_eq(m->funcs[func(m, "other", "/bin/app")].self_samples,
			  2);
	/* "leaf" and "other" share main -> work: the tree forks under work. */
	ck_assert_uint_eq(m->nnodes, 5);
	for (int i = 0; i < 2; i++)
		profile_free(ps[i]);
	profile_free(m);
}
END_TEST

START_TEST(merge_keeps_threads_and_times)
{
	struct profile *ps[] = { part(10, 10, "leaf", 3, true),
				 part(20, 20, "leaf", 5, true),
				 part(30, 10, "leaf", 1, true) };
	struct profile *m = merge_profiles(ps, 3);

	/* tid 10 twice (an exec'd image keeps its main thread): 2 threads. */
	ck_assert_uint_eq(m->nthreads, 2);
	uint32_t t10 = profile_thread(m, 10), t20 = profile_thread(m, 20);
	ck_assert_uint_eq(m->threads[t10].samples, 4);
	ck_assert_uint_eq(m->threads[t20].samples, 5);
	ck_assert_str_eq(m->threads[t20].name, "worker");
	/* One class per leaf and thread: tid 10's 3 + 1 and tid 20's 5. */
	ck_assert_uint_eq(m->nsamples, 2);
	uint64_t count = 0, weight = 0;
	for (size_t i = 0; i < m->nsamples; i++) {
		count += m->samples[i].count;
		weight += m->samples[i].weight;
		if (m->samples[i].thread == t10)
			ck_assert_uint_eq(m->samples[i].count, 4);
	}
	ck_assert_uint_eq(count, 9);
	ck_assert_uint_eq(weight, 90);
	for (int i = 0; i < 3; i++)
		profile_free(ps[i]);
	profile_free(m);
}
END_TEST

START_TEST(merge_header_sums_and_describes_the_first)
{
	struct profile *ps[] = { part(10, 10, "leaf", 3, true),
				 part(20, 20, "leaf", 5, false) };
	struct profile *m = merge_profiles(ps, 2);

	ck_assert_uint_eq(m->hdr.pid, 10);
	ck_assert_str_eq(m->hdr.exe, "/bin/app");
	ck_assert_uint_eq(m->hdr.cpu_ns, 30000);
	ck_assert_uint_eq(m->hdr.sampled_cpu_ns, 18000);
	ck_assert_uint_eq(m->hdr.drops[SPOOL_DROP_RING_FULL], 30);
	ck_assert_uint_eq(m->hdr.footer_threads, 2);
	ck_assert(!m->hdr.complete); /* one part had no footer */
	/* The module once, with the first part's build-id. */
	ck_assert_uint_eq(m->nmodules, 1);
	ck_assert_uint_eq(m->modules[0].build_id_len, 4);
	ck_assert_uint_eq(m->modules[0].build_id[3], 10);
	for (int i = 0; i < 2; i++)
		profile_free(ps[i]);
	profile_free(m);
}
END_TEST

START_TEST(merge_sums_saturate_and_keep_corrupt_counts_unknown)
{
	struct profile *ps[] = { part(10, 10, "leaf", 3, true),
				 part(20, 20, "leaf", 5, true) };
	ps[0]->hdr.drops[SPOOL_DROP_REENTRANT] = UINT64_MAX - 5;
	ps[1]->hdr.drops[SPOOL_DROP_REENTRANT] = 10;
	ps[0]->hdr.footer_threads = UINT64_MAX;
	/* The loader left part 2's ring-full count out as corrupt. */
	ps[1]->hdr.drops[SPOOL_DROP_RING_FULL] = 0;
	ps[1]->hdr.drops_corrupt = 1u << SPOOL_DROP_RING_FULL;
	struct profile *m = merge_profiles(ps, 2);

	ck_assert_uint_eq(m->hdr.drops[SPOOL_DROP_REENTRANT], UINT64_MAX);
	ck_assert_uint_eq(m->hdr.footer_threads, UINT64_MAX);
	ck_assert_uint_eq(m->hdr.drops[SPOOL_DROP_RING_FULL], 10);
	ck_assert_uint_eq(m->hdr.drops_corrupt, 1u << SPOOL_DROP_RING_FULL);
	for (int i = 0; i < 2; i++)
		profile_free(ps[i]);
	profile_free(m);
}
END_TEST

START_TEST(merge_keeps_symbol_versions)
{
	struct profile *ps[] = { part(10, 10, "leaf", 3, true),
				 part(20, 20, "leaf", 5, true) };
	for (int i = 0; i < 2; i++)
		profile_func_set_version(ps[i], func(ps[i], "leaf", "/bin/app"),
					 "V_2");
	struct profile *m = merge_profiles(ps, 2);

	ck_assert_uint_eq(m->nfuncs, 3);
	ck_assert_str_eq(m->funcs[func(m, "leaf", "/bin/app")].version, "V_2");
	ck_assert_ptr_null(m->funcs[func(m, "main", "/bin/app")].version);
	for (int i = 0; i < 2; i++)
		profile_free(ps[i]);
	profile_free(m);
}
END_TEST

static Suite *
merge_suite(void)
{
	Suite *s = suite_create("analyzer:merge");
	TCase *tc = tcase_create("merge");
	tcase_add_test(tc, merge_same_functions_are_one);
	tcase_add_test(tc, merge_keeps_different_functions_apart);
	tcase_add_test(tc, merge_keeps_threads_and_times);
	tcase_add_test(tc, merge_header_sums_and_describes_the_first);
	tcase_add_test(tc, merge_sums_saturate_and_keep_corrupt_counts_unknown);
	tcase_add_test(tc, merge_keeps_symbol_versions);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(merge_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
