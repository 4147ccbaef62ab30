/*
 * Unit tests of analyzer/symbolize/modmap.c: a PC belongs to the module instance
 * mapped at the sample's time, by its segments (not the gaps between
 * them); unloads end the right instance; an address range reused by a
 * later library resolves by time; times between instances fall back to
 * the nearest one; a module image goes to the module it was taken from;
 * the lookup index agrees with a brute-force scan and copes with
 * hundreds of thousands of overlapping loads.
 */
#include "modmap.h"

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const struct modmap_segment two_segs[] = {
	{ 0x0, 0x1000, 0 },    /* [base, base+0x1000) */
	{ 0x3000, 0x2000, 0x3000 }, /* [base+0x3000, base+0x5000) */
};

static size_t
load(struct modmap *m, const char *path, uint64_t base, uint64_t t)
{
	return modmap_load(m, path, strlen(path), NULL, 0, base, two_segs, 2,
			   t);
}

START_TEST(modmap_finds_pc_in_segments_only)
{
	struct modmap m;
	modmap_init(&m);
	size_t a = load(&m, "/lib/a.so", 0x10000, 0);
	size_t b = load(&m, "/lib/b.so", 0x20000, 0);
	modmap_seal(&m);
	ck_assert_int_eq(modmap_lookup(&m, 0x10000, 5), (long)a);
	ck_assert_int_eq(modmap_lookup(&m, 0x10fff, 5), (long)a);
	ck_assert_int_eq(modmap_lookup(&m, 0x11000, 5), -1); /* the gap */
	ck_assert_int_eq(modmap_lookup(&m, 0x12fff, 5), -1);
	ck_assert_int_eq(modmap_lookup(&m, 0x13000, 5), (long)a);
	ck_assert_int_eq(modmap_lookup(&m, 0x14fff, 5), (long)a);
	ck_assert_int_eq(modmap_lookup(&m, 0x15000, 5), -1);
	ck_assert_int_eq(modmap_lookup(&m, 0x23000, 5), (long)b);
	ck_assert_int_eq(modmap_lookup(&m, 0xfff, 5), -1);
	ck_assert_int_eq(modmap_lookup(&m, UINT64_MAX, 5), -1);
	modmap_free(&m);
}
END_TEST

START_TEST(modmap_reused_range_resolves_by_time)
{
	struct modmap m;
	modmap_init(&m);
	size_t a = load(&m, "/lib/a.so", 0x10000, 100);
	ck_assert(modmap_unload(&m, "/lib/a.so", 9, 0x10000, 200));
	size_t b = load(&m, "/lib/b.so", 0x10000, 300);
	modmap_seal(&m);
	ck_assert_int_eq(modmap_lookup(&m, 0x10010, 150), (long)a);
	ck_assert_int_eq(modmap_lookup(&m, 0x10010, 199), (long)a);
	ck_assert_int_eq(modmap_lookup(&m, 0x10010, 300), (long)b);
	ck_assert_int_eq(modmap_lookup(&m, 0x10010, 1000000), (long)b);
	/* Between the two: the one nearest in time. */
	ck_assert_int_eq(modmap_lookup(&m, 0x10010, 210), (long)a);
	ck_assert_int_eq(modmap_lookup(&m, 0x10010, 290), (long)b);
	/* Before the first load (its record was stamped late). */
	ck_assert_int_eq(modmap_lookup(&m, 0x10010, 10), (long)a);
	modmap_free(&m);
}
END_TEST

START_TEST(modmap_unload_matches_base_path_and_time)
{
	struct modmap m;
	modmap_init(&m);
	size_t a = load(&m, "/lib/a.so", 0x10000, 100);
	size_t b = load(&m, "/lib/b.so", 0x40000, 100);
	/* Wrong base, wrong path, or before the load: nothing ends. */
	ck_assert(!modmap_unload(&m, "/lib/a.so", 9, 0x40000, 500));
	ck_assert(!modmap_unload(&m, "/lib/x.so", 9, 0x10000, 500));
	ck_assert(!modmap_unload(&m, "/lib/a.so", 9, 0x10000, 50));
	/* No path: the base decides. */
	ck_assert(modmap_unload(&m, "", 0, 0x40000, 500));
	ck_assert(modmap_unload(&m, "/lib/a.so", 9, 0x10000, 600));
	ck_assert(!modmap_unload(&m, "/lib/a.so", 9, 0x10000, 700));
	ck_assert_uint_eq(m.inst[a].unload_ns, 600);
	ck_assert_uint_eq(m.inst[b].unload_ns, 500);
	modmap_free(&m);
}
END_TEST

START_TEST(modmap_shares_files_between_instances)
{
	struct modmap m;
	modmap_init(&m);
	uint8_t id[] = { 1, 2, 3 }, other[] = { 1, 2, 4 };
	size_t a = modmap_load(&m, "/lib/a.soXX", 9, id, 3, 0x10000, two_segs,
			       2, 0);
	size_t b = modmap_load(&m, "/lib/a.so", 9, id, 3, 0x90000, two_segs,
			       2, 10);
	size_t c = load(&m, "/lib/c.so", 0xa0000, 0);
	/* Same path, another build-id: the file was replaced in between. */
	size_t d = modmap_load(&m, "/lib/a.so", 9, other, 3, 0xb0000, two_segs,
			       2, 20);
	ck_assert_uint_eq(m.nfiles, 3);
	ck_assert_uint_eq(m.inst[a].file, m.inst[b].file);
	ck_assert_uint_ne(m.inst[a].file, m.inst[c].file);
	ck_assert_uint_ne(m.inst[a].file, m.inst[d].file);
	ck_assert_str_eq(m.files[m.inst[a].file].path, "/lib/a.so");
	ck_assert_uint_eq(m.files[m.inst[a].file].build_id_len, 3);
	modmap_free(&m);
}
END_TEST

START_TEST(modmap_ignores_empty_and_wrapping_segments)
{
	struct modmap m;
	static const struct modmap_segment odd[] = {
		{ 0x0, 0x0, 0 },
		{ 0x1000, UINT64_MAX, 0x1000 },
	};
	modmap_init(&m);
	modmap_load(&m, "/lib/odd.so", 4, NULL, 0, 0x10000, odd, 2, 0);
	modmap_seal(&m);
	ck_assert_int_eq(modmap_lookup(&m, 0x10000, 0), -1);
	ck_assert_int_eq(modmap_lookup(&m, 0x12000, 0), -1);
	modmap_free(&m);
}
END_TEST

START_TEST(modmap_image_goes_to_its_module)
{
	static const uint8_t img1[] = { 1 }, img2[] = { 2, 2 };
	struct modmap m;
	modmap_init(&m);
	size_t vdso = load(&m, "[vdso]", 0x7fff0000, 100);
	size_t lib = load(&m, "/lib/a.so", 0x10000, 100);
	ck_assert(modmap_unload(&m, "/lib/a.so", 9, 0x10000, 200));
	size_t lib2 = load(&m, "/lib/b.so", 0x10000, 300);
	/* No module at that base: refused. */
	ck_assert(!modmap_add_image(&m, 0x5000, 100, img1, 1));
	ck_assert(modmap_add_image(&m, 0x7fff0000, 100, img1, sizeof(img1)));
	/* At a reused base, the instance live at the image's time. */
	ck_assert(modmap_add_image(&m, 0x10000, 350, img2, sizeof(img2)));
	modmap_seal(&m);
	const struct modmap_file *f = &m.files[m.inst[vdso].file];
	ck_assert_ptr_eq(f->image, img1);
	ck_assert_uint_eq(f->image_len, 1);
	ck_assert_ptr_null(m.files[m.inst[lib].file].image);
	ck_assert_ptr_eq(m.files[m.inst[lib2].file].image, img2);
	/* A file keeps its first image. */
	ck_assert(modmap_add_image(&m, 0x7fff0000, 100, img2, sizeof(img2)));
	ck_assert_ptr_eq(f->image, img1);
	modmap_free(&m);
}
END_TEST

/* The lookup's rule, by brute force over every instance: among those
 * with a segment holding pc, the least time distance, ties to the later
 * instance. The index must agree with it everywhere. */
static uint64_t
ref_distance(const struct modmap_instance *in, uint64_t t)
{
	if (t < in->load_ns)
		return in->load_ns - t;
	if (t >= in->unload_ns)
		return t - in->unload_ns + 1;
	return 0;
}

static long
ref_lookup(const struct modmap *m, uint64_t pc, uint64_t t)
{
	long best = -1;
	uint64_t best_dist = UINT64_MAX;
	for (size_t i = 0; i < m->ninst; i++) {
		const struct modmap_instance *in = &m->inst[i];
		bool holds = false;
		for (uint32_t s = 0; s < in->nsegs; s++) {
			uint64_t start = in->base + in->segs[s].vaddr;
			uint64_t end = start + in->segs[s].memsz;
			if (in->segs[s].memsz && end >= start && pc >= start &&
			    pc < end)
				holds = true;
		}
		uint64_t d = ref_distance(in, t);
		if (holds && (d < best_dist ||
			      (d == best_dist && (long)i > best))) {
			best = (long)i;
			best_dist = d;
		}
	}
	return best;
}

static uint64_t
rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* Several hundred instances at a few bases (so that many overlap at one
 * address, more than a node of the index scans), loaded and unloaded at
 * times that repeat, some never unloaded, some live at once over the
 * same range; looked up at random PCs and at the times that matter
 * (every load and unload, one before and after, 0 and the largest). */
START_TEST(modmap_index_agrees_with_brute_force)
{
	static const uint64_t bases[] = { 0x10000, 0x10800, 0x14000, 0x40000 };
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	struct modmap m;
	modmap_init(&m);
	for (int i = 0; i < 600; i++) {
		uint64_t base = bases[rnd(&seed) % 4];
		uint64_t t = rnd(&seed) % 50 * 10;
		load(&m, rnd(&seed) % 2 ? "/lib/a.so" : "/lib/b.so", base, t);
		if (rnd(&seed) % 5)
			m.inst[m.ninst - 1].unload_ns = t + rnd(&seed) % 40 * 10;
	}
	modmap_seal(&m);
	for (int q = 0; q < 20000; q++) {
		uint64_t pc = 0xf000 + rnd(&seed) % 0x37000;
		const struct modmap_instance *in = &m.inst[rnd(&seed) % m.ninst];
		uint64_t times[] = { in->load_ns, in->unload_ns,
				     in->load_ns - 1, in->unload_ns + 1,
				     rnd(&seed) % 600, 0, UINT64_MAX };
		for (size_t k = 0; k < sizeof(times) / sizeof(times[0]); k++)
			ck_assert_int_eq(modmap_lookup(&m, pc, times[k]),
					 ref_lookup(&m, pc, times[k]));
	}
	modmap_free(&m);
}
END_TEST

/* 200,000 loads of one plugin at one address (dlopen and dlclose in a
 * loop) and as many lookups: a lookup that visits every overlapping
 * range does 4e10 steps and runs into the test's timeout; the index
 * takes well under a second. */
START_TEST(modmap_many_overlapping_loads_finish)
{
	enum { N = 200000 };
	struct modmap m;
	modmap_init(&m);
	for (uint64_t i = 0; i < N; i++) {
		load(&m, "/lib/plugin.so", 0x10000, i * 1000);
		ck_assert(modmap_unload(&m, "/lib/plugin.so", 14, 0x10000,
					i * 1000 + 500));
	}
	modmap_seal(&m);
	for (uint64_t i = 0; i < N; i++) {
		/* Live: that one; after its unload: it, nearer than the
		 * next load. */
		ck_assert_int_eq(modmap_lookup(&m, 0x10010, i * 1000 + 10),
				 (long)i);
		ck_assert_int_eq(modmap_lookup(&m, 0x13010, i * 1000 + 600),
				 (long)i);
	}
	modmap_free(&m);
}
END_TEST

static Suite *
modmap_suite(void)
{
	Suite *s = suite_create("analyzer:modmap");
	TCase *tc = tcase_create("lookup");
	tcase_add_test(tc, modmap_finds_pc_in_segments_only);
	tcase_add_test(tc, modmap_reused_range_resolves_by_time);
	tcase_add_test(tc, modmap_unload_matches_base_path_and_time);
	tcase_add_test(tc, modmap_shares_files_between_instances);
	tcase_add_test(tc, modmap_ignores_empty_and_wrapping_segments);
	tcase_add_test(tc, modmap_image_goes_to_its_module);
	tcase_add_test(tc, modmap_index_agrees_with_brute_force);
	tcase_add_test(tc, modmap_many_overlapping_loads_finish);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(modmap_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
