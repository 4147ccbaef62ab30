/*
 * Unit tests of analyzer/util/json.c: the string escaper (quotes, backslashes,
 * control characters, valid UTF-8 kept, invalid bytes replaced) and the
 * writer's commas, nesting and number formats.
 */
#include "json.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Output captured in memory. */
struct capture {
	char *buf;
	size_t len;
	FILE *f;
};

static void
capture_open(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	ck_assert_ptr_nonnull(c->f);
}

static char *
capture_close(struct capture *c)
{
	ck_assert_int_eq(fclose(c->f), 0);
	return c->buf;
}

static const struct {
	const char *in;
	size_t len;
	const char *out;
} escapes[] = {
	{ "plain", 5, "\"plain\"" },
	{ "", 0, "\"\"" },
	{ "a\"b", 3, "\"a\\\"b\"" },
	{ "a\\b", 3, "\"a\\\\b\"" },
	{ "\n\r\t", 3, "\"\\n\\r\\t\"" },
	{ "\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"" },
	{ "nul\0in", 6, "\"nul\\u0000in\"" },
	/* valid UTF-8: 2, 3 and 4 byte sequences pass through */
	{ "\xc3\xa9t\xc3\xa9", 5, "\"\xc3\xa9t\xc3\xa9\"" },
	{ "\xe2\x82\xac", 3, "\"\xe2\x82\xac\"" },
	{ "\xf0\x9f\x98\x80", 4, "\"\xf0\x9f\x98\x80\"" },
	/* invalid: stray byte, cut sequence, overlong, surrogate, > U+10FFFF */
	{ "a\xff" "b", 3, "\"a\\ufffdb\"" },
	{ "\xc3", 1, "\"\\ufffd\"" },
	{ "\xe2\x82", 2, "\"\\ufffd\\ufffd\"" },
	{ "\xc0\xaf", 2, "\"\\ufffd\\ufffd\"" },
	{ "\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
};

START_TEST(json_escapes_strings)
{
	struct capture c;
	capture_open(&c);
	json_escape(c.f, escapes[_i].in, escapes[_i].len);
	char *got = capture_close(&c);
	ck_assert_str_eq(got, escapes[_i].out);
	free(got);
}
END_TEST

START_TEST(json_writes_nested_values)
{
	struct capture c;
	struct json j;
	capture_open(&c);
	json_init(&j, c.f);
	json_begin_object(&j);
	json_key(&j, "a");
	json_uint(&j, 18446744073709551615ull);
	json_key(&j, "b");
	json_begin_array(&j);
	json_bool(&j, true);
	json_null(&j);
	json_string(&j, NULL);
	json_begin_object(&j);
	json_end_object(&j);
	json_begin_array(&j);
	json_end_array(&j);
	json_end_array(&j);
	json_key(&j, "c\"");
	json_string(&j, "x");
	json_end_object(&j);
	json_finish(&j);
	char *got = capture_close(&c);
	ck_assert_str_eq(got, "{\n"
			      "  \"a\": 18446744073709551615,\n"
			      "  \"b\": [\n"
			      "    true,\n"
			      "    null,\n"
			      "    null,\n"
			      "    {},\n"
			      "    []\n"
			      "  ],\n"
			      "  \"c\\\"\": \"x\"\n"
			      "}\n");
	free(got);
}
END_TEST

static const struct {
	double v;
	int decimals;
	const char *out;
} numbers[] = {
	{ 0.0, 9, "0" },
	{ -0.0, 9, "0" },
	{ 1.0, 9, "1" },
	{ 0.5, 9, "0.5" },
	{ 1e-9, 9, "0.000000001" },
	{ 123456.000000789, 9, "123456.000000789" },
	{ 33.333333333, 4, "33.3333" },
	{ 100.0, 4, "100" },
	{ -2.25, 4, "-2.25" },
	{ 0.00004, 4, "0" },
};

START_TEST(json_formats_numbers)
{
	struct capture c;
	struct json j;
	capture_open(&c);
	json_init(&j, c.f);
	json_double(&j, numbers[_i].v, numbers[_i].decimals);
	char *got = capture_close(&c);
	ck_assert_str_eq(got, numbers[_i].out);
	free(got);
}
END_TEST

START_TEST(json_non_finite_numbers_are_null)
{
	struct capture c;
	struct json j;
	capture_open(&c);
	json_init(&j, c.f);
	json_begin_array(&j);
	json_double(&j, NAN, 3);
	json_double(&j, INFINITY, 3);
	json_double(&j, -INFINITY, 3);
	json_end_array(&j);
	char *got = capture_close(&c);
	ck_assert_str_eq(got, "[\n  null,\n  null,\n  null\n]");
	free(got);
}
END_TEST

static Suite *
json_suite(void)
{
	Suite *s = suite_create("analyzer:json");
	TCase *tc = tcase_create("writer");
	tcase_add_loop_test(tc, json_escapes_strings, 0,
			    sizeof(escapes) / sizeof(escapes[0]));
	tcase_add_test(tc, json_writes_nested_values);
	tcase_add_loop_test(tc, json_formats_numbers, 0,
			    sizeof(numbers) / sizeof(numbers[0]));
	tcase_add_test(tc, json_non_finite_numbers_are_null);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(json_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
