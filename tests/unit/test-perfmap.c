/*
 * Unit tests of analyzer/symbolize/perfmap.c: the lines of a perf map ("START SIZE
 * name", hex with or without 0x, a name with spaces) parse, malformed
 * ones are skipped and counted, a later line's range wins over the
 * earlier ones it overlaps (an earlier symbol keeps what is left of its
 * range, on both sides), and the lookup table agrees with a brute-force
 * reading of random maps.
 */
#include "perfmap.h"

#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct perfmap *
map_of(const char *text, size_t *bad)
{
	struct perfmap *pm = perfmap_new();
	size_t n = perfmap_add_text(pm, text, strlen(text));
	if (bad)
		*bad = n;
	perfmap_seal(pm);
	return pm;
}

/* The name at addr, or NULL. */
static const char *
name_at(const struct perfmap *pm, uint64_t addr)
{
	const struct perfmap_sym *s = perfmap_lookup(pm, addr);
	return s ? s->name : NULL;
}

static const struct line_case {
	const char *line;
	int ok;             /* parses */
	uint64_t start, size;
	const char *name;
} line_cases[] = {
	{ "1000 10 plain\n", 1, 0x1000, 0x10, "plain" },
	{ "0x1000 0x10 prefixed\n", 1, 0x1000, 0x10, "prefixed" },
	{ "7fABcd000 ff Mixed\n", 1, 0x7fabcd000, 0xff, "Mixed" },
	{ "1000 10 LazyCompile:~f /a b.js:12\n", 1, 0x1000, 0x10,
	  "LazyCompile:~f /a b.js:12" },
	{ "1000\t10\tpy::f:/x.py\r\n", 1, 0x1000, 0x10, "py::f:/x.py" },
	{ "1000 10 no newline", 1, 0x1000, 0x10, "no newline" },
	{ "1000 10 trailing blanks  \n", 1, 0x1000, 0x10, "trailing blanks" },
	{ "ffffffffffffff00 ff near the end\n", 1, 0xffffffffffffff00ull,
	  0xff, "near the end" },
	{ .line = "1000 10\n" },            /* no name */
	{ .line = "1000 10 \n" },           /* a blank name */
	{ .line = "1000\n" },
	{ .line = "xyz 10 bad start\n" },
	{ .line = "1000 1g bad size\n" },
	{ .line = "1000 0 empty\n" },       /* a size of 0 */
	{ .line = "0x 10 no digits\n" },
	{ .line = "ffffffffffffff00 100 ends past 2^64 - 1\n" },
	{ .line = "10000000000000000 10 over 64 bits\n" },
	{ .line = " 1000 10 leading blank\n" },
};

/* Each line alone: a good one gives its symbol over its whole range and
 * nothing outside; a bad one is counted and gives nothing. */
START_TEST(perfmap_parses_lines)
{
	const struct line_case *c = &line_cases[_i];
	size_t bad;
	struct perfmap *pm = map_of(c->line, &bad);
	ck_assert_msg(bad == (c->ok ? 0u : 1u), "%s: %zu skipped", c->line,
		      bad);
	ck_assert_uint_eq(perfmap_count(pm), c->ok ? 1 : 0);
	if (c->ok) {
		const struct perfmap_sym *s = perfmap_lookup(pm, c->start);
		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->start, c->start);
		ck_assert_uint_eq(s->size, c->size);
		ck_assert_str_eq(s->name, c->name);
		ck_assert_str_eq(name_at(pm, c->start + c->size - 1), c->name);
		ck_assert_ptr_null(name_at(pm, c->start - 1));
		if (c->start + c->size)
			ck_assert_ptr_null(name_at(pm, c->start + c->size));
	} else {
		ck_assert_ptr_null(name_at(pm, 0x1000));
	}
	perfmap_free(pm);
}
END_TEST

/* Bad lines among good ones are skipped without losing the others, and
 * blank lines are not counted as bad. */
START_TEST(perfmap_skips_malformed_lines)
{
	size_t bad;
	struct perfmap *pm = map_of("1000 10 a\n"
				    "garbage\n"
				    "\n"
				    "2000 zz b\n"
				    "3000 10 c\n", &bad);
	ck_assert_uint_eq(bad, 2);
	ck_assert_uint_eq(perfmap_count(pm), 2);
	ck_assert_str_eq(name_at(pm, 0x1008), "a");
	ck_assert_ptr_null(name_at(pm, 0x2000));
	ck_assert_str_eq(name_at(pm, 0x300f), "c");
	perfmap_free(pm);
}
END_TEST

/* A later line wins where it overlaps: inside an earlier range (which
 * keeps both of its ends), over its start, or redefining it whole; an
 * earlier line never shows through a later one. */
START_TEST(perfmap_later_line_wins)
{
	struct perfmap *pm = map_of("1000 100 outer\n"
				    "1040 10 inner\n"
				    "0f80 90 over_start\n"
				    "2000 20 old\n"
				    "2000 20 new\n"
				    "3000 10 small\n"
				    "2ff0 40 big\n", NULL);
	ck_assert_str_eq(name_at(pm, 0xf80), "over_start");
	ck_assert_str_eq(name_at(pm, 0x100f), "over_start");
	ck_assert_str_eq(name_at(pm, 0x1010), "outer");
	ck_assert_str_eq(name_at(pm, 0x103f), "outer");
	ck_assert_str_eq(name_at(pm, 0x1040), "inner");
	ck_assert_str_eq(name_at(pm, 0x104f), "inner");
	ck_assert_str_eq(name_at(pm, 0x1050), "outer");
	ck_assert_str_eq(name_at(pm, 0x10ff), "outer");
	ck_assert_ptr_null(name_at(pm, 0x1100));
	ck_assert_str_eq(name_at(pm, 0x2000), "new");
	ck_assert_str_eq(name_at(pm, 0x201f), "new");
	ck_assert_str_eq(name_at(pm, 0x2ff0), "big");
	ck_assert_str_eq(name_at(pm, 0x3008), "big");
	ck_assert_str_eq(name_at(pm, 0x302f), "big");
	/* The symbol found is the line as given, both parts of "outer"
	 * alike. */
	ck_assert_ptr_eq(perfmap_lookup(pm, 0x1010), perfmap_lookup(pm, 0x1050));
	ck_assert_uint_eq(perfmap_lookup(pm, 0x1050)->start, 0x1000);
	ck_assert_uint_eq(perfmap_lookup(pm, 0x1050)->size, 0x100);
	perfmap_free(pm);
}
END_TEST

/* Text added in several parts (the spool's records) reads as one map:
 * the later part's lines win. */
START_TEST(perfmap_parts_in_order)
{
	struct perfmap *pm = perfmap_new();
	const char *a = "1000 100 first\n", *b = "1000 100 second\n";
	ck_assert_uint_eq(perfmap_add_text(pm, a, strlen(a)), 0);
	ck_assert_uint_eq(perfmap_add_text(pm, b, strlen(b)), 0);
	perfmap_seal(pm);
	ck_assert_str_eq(name_at(pm, 0x1080), "second");
	perfmap_free(pm);
}
END_TEST

/* An empty map names nothing. */
START_TEST(perfmap_empty)
{
	struct perfmap *pm = map_of("", NULL);
	ck_assert_uint_eq(perfmap_count(pm), 0);
	ck_assert_ptr_null(perfmap_lookup(pm, 0));
	ck_assert_ptr_null(perfmap_lookup(pm, UINT64_MAX));
	perfmap_free(pm);
}
END_TEST

/* Random maps of overlapping ranges: every address near a range's ends
 * finds the last line that covers it, as a scan from the end says. */
START_TEST(perfmap_agrees_with_brute_force)
{
	enum { N = 300 };
	static uint64_t start[N], size[N];
	static char text[N * 48];
	unsigned seed = 12345u + (unsigned)_i;
	size_t len = 0;
	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		start[i] = 0x10000 + (seed >> 8) % 0x4000;
		seed = seed * 1103515245u + 12345u;
		size[i] = 1 + (seed >> 8) % (i % 10 == 0 ? 0x800 : 0x40);
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%" PRIx64 " %" PRIx64 " s%d\n",
					start[i], size[i], i);
	}
	struct perfmap *pm = perfmap_new();
	perfmap_add_text(pm, text, len);
	perfmap_seal(pm);
	for (int i = 0; i < N; i++) {
		uint64_t probes[] = { start[i] - 1, start[i], start[i] + 1,
				      start[i] + size[i] - 1,
				      start[i] + size[i] };
		for (size_t k = 0; k < ARRAY_LEN(probes); k++) {
			uint64_t a = probes[k];
			int want = -1;
			for (int j = N - 1; j >= 0 && want < 0; j--)
				if (a >= start[j] && a - start[j] < size[j])
					want = j;
			const struct perfmap_sym *s = perfmap_lookup(pm, a);
			if (want < 0)
				ck_assert_ptr_null(s);
			else
				ck_assert_msg(s && s->id == (uint32_t)want,
					      "0x%" PRIx64 ": s%d, want s%d", a,
					      s ? (int)s->id : -1, want);
		}
	}
	perfmap_free(pm);
}
END_TEST

static Suite *
perfmap_suite(void)
{
	Suite *s = suite_create("analyzer:perfmap");
	TCase *tc = tcase_create("perfmap");
	tcase_add_loop_test(tc, perfmap_parses_lines, 0, ARRAY_LEN(line_cases));
	tcase_add_test(tc, perfmap_skips_malformed_lines);
	tcase_add_test(tc, perfmap_later_line_wins);
	tcase_add_test(tc, perfmap_parts_in_order);
	tcase_add_test(tc, perfmap_empty);
	tcase_add_loop_test(tc, perfmap_agrees_with_brute_force, 0, 8);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(perfmap_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
