/*
 * Unit tests of analyzer/profile/hide.c: which functions the patterns hide
 * (function names, module file names, module paths, the defaults) and
 * that applying rules that hide nothing keeps the profile itself.
 */
#include "hide.h"

#include <check.h>
#include <stdlib.h>

struct fixture {
	struct profile *p;
	uint32_t main_, memcpy_, trampoline, restore, marker, bare;
};

static struct fixture
make(void)
{
	struct fixture f;
	f.p = profile_new(PROFILE_KIND_TIME);
	uint32_t exe = profile_module(f.p, "/usr/bin/app");
	uint32_t libc = profile_module(f.p, "/lib/x86_64-linux-gnu/libc.so.6");
	uint32_t own = profile_module(f.p, "/opt/profrun/lib/libprofrun.so");
	f.main_ = profile_add_func(f.p, exe, "main", 0x10, 0);
	f.memcpy_ = profile_add_func(f.p, libc, "memcpy", 0x20, 0);
	f.trampoline = profile_add_func(f.p, own, "trampoline", 0x30, 0);
	f.restore = profile_add_func(f.p, libc, "__restore_rt", 0x40, 0);
	f.marker = profile_add_func(f.p, PROFILE_NONE, "[truncated stack]", 0,
				    PROFILE_FUNC_PSEUDO);
	f.bare = profile_add_func(f.p, PROFILE_NONE, "0x1234", 0x1234,
				  PROFILE_FUNC_UNNAMED);
	uint32_t s[] = { f.marker, f.trampoline, f.main_, f.restore,
			 f.memcpy_, f.bare };
	profile_add_sample(f.p, s, 6, profile_thread(f.p, 1), 1, 0);
	profile_finish(f.p);
	return f;
}

START_TEST(hide_defaults_hide_profiler_and_trampoline)
{
	struct fixture f = make();
	struct hide_rules r;
	size_t n;
	hide_rules_defaults(&r);
	bool *m = hide_mask(f.p, &r, &n);
	ck_assert(m[f.trampoline]);
	ck_assert(m[f.restore]);
	ck_assert(!m[f.main_]);
	ck_assert(!m[f.memcpy_]);
	ck_assert(!m[f.bare]);
	ck_assert_uint_eq(n, 2);
	free(m);
	hide_rules_free(&r);
	profile_free(f.p);
}
END_TEST

START_TEST(hide_modules_by_file_name_or_path)
{
	struct fixture f = make();
	struct hide_rules r;
	size_t n;
	hide_rules_defaults(&r);
	hide_rules_clear(&r);
	/* A pattern without '/' sees the file name only... */
	hide_rules_add_module(&r, "libc.so*");
	bool *m = hide_mask(f.p, &r, &n);
	ck_assert(m[f.memcpy_] && m[f.restore] && !m[f.trampoline]);
	ck_assert_uint_eq(n, 2);
	free(m);
	/* ...one with '/' the whole path, so a file name never matches it. */
	hide_rules_clear(&r);
	hide_rules_add_module(&r, "/opt/*");
	hide_rules_add_module(&r, "/libc.so.6");
	m = hide_mask(f.p, &r, &n);
	ck_assert(m[f.trampoline] && !m[f.memcpy_]);
	ck_assert_uint_eq(n, 1);
	free(m);
	hide_rules_free(&r);
	profile_free(f.p);
}
END_TEST

START_TEST(hide_functions_by_glob_never_markers)
{
	struct fixture f = make();
	struct hide_rules r = { 0 };
	size_t n;
	hide_rules_add_func(&r, "m*");
	hide_rules_add_func(&r, "[[]*");  /* would match "[truncated stack]" */
	hide_rules_add_func(&r, "0x????");
	bool *m = hide_mask(f.p, &r, &n);
	ck_assert(m[f.main_] && m[f.memcpy_] && m[f.bare]);
	ck_assert(!m[f.marker]);
	ck_assert_uint_eq(n, 3);
	free(m);
	hide_rules_free(&r);
	profile_free(f.p);
}
END_TEST

START_TEST(hide_apply_keeps_profile_when_nothing_hidden)
{
	struct fixture f = make();
	struct hide_rules r = { 0 };
	hide_rules_add_func(&r, "no_such_function");
	ck_assert_ptr_eq(hide_apply(f.p, &r), f.p);
	hide_rules_add_func(&r, "memcpy");
	struct profile *d = hide_apply(f.p, &r);
	ck_assert_ptr_ne(d, f.p);
	ck_assert(d->funcs[f.memcpy_].flags & PROFILE_FUNC_HIDDEN);
	/* memcpy's callee is now __restore_rt's; memcpy had no samples of
	 * its own, so __restore_rt is no composite ("...") */
	ck_assert(!(d->funcs[f.restore].flags & PROFILE_FUNC_ELIDED));
	size_t n;
	const uint32_t *e = profile_callees(d, f.restore, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(d->edges[e[0]].callee, f.bare);
	profile_free(d);
	hide_rules_free(&r);
	profile_free(f.p);
}
END_TEST

/* The composite mark "... f": f's own figures include hidden frames
 * that had samples themselves, in a profile of either kind; a hidden
 * frame that samples only passed through (a time sample in libc's
 * malloc under libprofrun's wrapper) leaves its caller unmarked. */
START_TEST(hide_composite_only_for_hidden_samples)
{
	static const enum profile_kind kinds[] = { PROFILE_KIND_TIME,
						   PROFILE_KIND_SPACE };
	for (size_t k = 0; k < 2; k++) {
		struct profile *p = profile_new(kinds[k]);
		uint32_t exe = profile_module(p, "/usr/bin/app");
		uint32_t libc = profile_module(p, "/lib/libc.so.6");
		uint32_t own = profile_module(p, "/lib/libprofrun.so");
		uint32_t through = profile_add_func(p, exe, "through", 0x10, 0);
		uint32_t in = profile_add_func(p, exe, "in", 0x20, 0);
		uint32_t wrap = profile_add_func(p, own, "malloc", 0x30, 0);
		uint32_t real = profile_add_func(p, libc, "malloc", 0x40, 0);
		uint32_t s1[] = { through, wrap, real }, s2[] = { in, wrap };
		profile_add_sample(p, s1, 3, profile_thread(p, 1), 7, 0);
		profile_add_sample(p, s2, 2, profile_thread(p, 1), 5, 0);
		profile_finish(p);
		struct hide_rules r;
		hide_rules_defaults(&r);
		struct profile *d = hide_apply(p, &r);
		ck_assert_ptr_ne(d, p);
		ck_assert(!(d->funcs[through].flags & PROFILE_FUNC_ELIDED));
		ck_assert(d->funcs[in].flags & PROFILE_FUNC_ELIDED);
		ck_assert_uint_eq(d->funcs[in].elided, 5);
		ck_assert_uint_eq(d->funcs[through].total, 7);
		profile_free(d);
		hide_rules_free(&r);
		profile_free(p);
	}
}
END_TEST

/* C++'s global operator new and delete, hidden by default in space
 * profiles only (by name or, with --no-demangle, mangled); a class's own
 * operator new and a function merely named like one stay shown. */
START_TEST(hide_defaults_hide_operator_new_in_space_profiles)
{
	static const char *const hidden[] = {
		"operator new(unsigned long)",
		"operator new[](unsigned long, std::nothrow_t const&)",
		"operator delete(void*, unsigned long, std::align_val_t)",
		"operator delete[](void*)",
		"_Znwm",
		"_ZnamSt11align_val_t",
		"_ZdlPvm",
		"_ZdaPvRKSt9nothrow_t",
	};
	static const char *const shown[] = {
		"Pool::operator new(unsigned long)",
		"_ZN4PoolnwEm",
		"operator new_thing",
		"operator newline()",
	};
	const size_t nh = sizeof(hidden) / sizeof(hidden[0]);
	const size_t ns = sizeof(shown) / sizeof(shown[0]);
	for (int kind = 0; kind < 2; kind++) {
		struct profile *p = profile_new(kind ? PROFILE_KIND_SPACE :
						       PROFILE_KIND_TIME);
		uint32_t lib = profile_module(p, "/usr/lib/libstdc++.so.6");
		uint32_t ids[16], k = 0;
		for (size_t i = 0; i < nh; i++, k++)
			ids[k] = profile_add_func(p, lib, hidden[i], 0x10 * k, 0);
		for (size_t i = 0; i < ns; i++, k++)
			ids[k] = profile_add_func(p, lib, shown[i], 0x10 * k, 0);
		profile_add_sample(p, ids, k, profile_thread(p, 1), 1, 0);
		profile_finish(p);
		struct hide_rules r;
		size_t n;
		hide_rules_defaults(&r);
		bool *m = hide_mask(p, &r, &n);
		for (size_t i = 0; i < nh; i++)
			ck_assert_msg(m[ids[i]] == (kind == 1), "%s", hidden[i]);
		for (size_t i = 0; i < ns; i++)
			ck_assert_msg(!m[ids[nh + i]], "%s", shown[i]);
		free(m);
		/* --show-all: nothing hidden. */
		hide_rules_clear(&r);
		m = hide_mask(p, &r, &n);
		ck_assert_uint_eq(n, 0);
		free(m);
		hide_rules_free(&r);
		profile_free(p);
	}
}
END_TEST

static Suite *
hide_suite(void)
{
	Suite *s = suite_create("analyzer:hide");
	TCase *tc = tcase_create("rules");
	tcase_add_test(tc, hide_defaults_hide_profiler_and_trampoline);
	tcase_add_test(tc, hide_defaults_hide_operator_new_in_space_profiles);
	tcase_add_test(tc, hide_modules_by_file_name_or_path);
	tcase_add_test(tc, hide_functions_by_glob_never_markers);
	tcase_add_test(tc, hide_apply_keeps_profile_when_nothing_hidden);
	tcase_add_test(tc, hide_composite_only_for_hidden_samples);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(hide_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
