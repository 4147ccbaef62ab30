/*
 * Unit tests of analyzer/util/textesc.c: the C0 control characters, DEL,
 * C1 control characters (in UTF-8) and bytes that are not UTF-8 come out
 * as \xNN a byte, a backslash doubled, everything else (printable ASCII,
 * other UTF-8) as it is; what needs escaping is told apart from what does
 * not; the stream and the string forms agree.
 */
#include "textesc.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *in;
	const char *want;
} cases[] = {
	{ "", "" },
	{ "fx_leaf_a", "fx_leaf_a" },
	{ "a b~", "a b~" },
	{ "\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m" },
	{ "\x1b]0;title\x07", "\\x1b]0;title\\x07" },
	{ "tab\tnl\ncr\r", "tab\\x09nl\\x0acr\\x0d" },
	{ "\x01\x1f\x7f", "\\x01\\x1f\\x7f" },
	{ "caf\xc3\xa9", "caf\xc3\xa9" },  /* UTF-8 */
	{ "\xe2\x82\xac\xf0\x9f\x98\x80", "\xe2\x82\xac\xf0\x9f\x98\x80" },
	/* A backslash is doubled: "\x1b" in a name is not an escaped ESC. */
	{ "back\\slash", "back\\\\slash" },
	{ "\\x1b\\u003c", "\\\\x1b\\\\u003c" },
	/* C1 control characters (U+0080..U+009F) in UTF-8, byte by byte:
	 * U+009B is CSI. */
	{ "\xc2\x9b" "31mred", "\\xc2\\x9b" "31mred" },
	{ "a\xc2\x80z\xc2\x9f", "a\\xc2\\x80z\\xc2\\x9f" },
	{ "\xc2\xa0\xc2\xbf", "\xc2\xa0\xc2\xbf" }, /* U+00A0, U+00BF */
	/* Bytes that are not UTF-8: each escaped, the valid ones after them
	 * kept. */
	{ "\xff\x80\x9b", "\\xff\\x80\\x9b" },
	{ "\x9b" "2J", "\\x9b" "2J" },
	{ "\xc2", "\\xc2" },                  /* cut short */
	{ "\xc2z\xc3\xa9", "\\xc2z\xc3\xa9" },
	{ "\xc0\xaf", "\\xc0\\xaf" },          /* overlong '/' */
	{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },  /* a surrogate */
	{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80" }, /* past U+10FFFF */
};

START_TEST(textesc_escapes_controls)
{
	char *got = textesc_dup(cases[_i].in);
	ck_assert_str_eq(got, cases[_i].want);
	ck_assert_int_eq(textesc_needed(cases[_i].in),
			 strcmp(cases[_i].in, cases[_i].want) != 0);
	free(got);

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	textesc_put(f, cases[_i].in);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(buf, cases[_i].want);
	free(buf);
}
END_TEST

/* Every control byte, once: 4 bytes each, and nothing below 0x20 left. */
START_TEST(textesc_every_control_byte)
{
	char in[34];
	int n = 0;
	for (int c = 1; c < 0x20; c++)
		in[n++] = (char)c;
	in[n++] = 0x7f;
	in[n] = '\0';
	char *got = textesc_dup(in);
	ck_assert_uint_eq(strlen(got), 4 * (size_t)n);
	for (const unsigned char *u = (const unsigned char *)got; *u; u++)
		ck_assert(*u >= 0x20 && *u != 0x7f);
	ck_assert(strstr(got, "\\x1b"));
	free(got);
}
END_TEST

/* Every byte from 0x80 up, alone: none is UTF-8, each is escaped. And
 * every C1 control character in UTF-8: no byte 0x80..0x9f and no ESC is
 * left raw in the result. */
START_TEST(textesc_every_high_byte_and_c1)
{
	for (int c = 0x80; c <= 0xff; c++) {
		char in[2] = { (char)c, '\0' }, want[8];
		snprintf(want, sizeof(want), "\\x%02x", c);
		char *got = textesc_dup(in);
		ck_assert_str_eq(got, want);
		ck_assert(textesc_needed(in));
		free(got);
	}
	for (int c = 0x80; c <= 0x9f; c++) {
		char in[4] = { (char)0xc2, (char)c, 'x', '\0' }, want[16];
		snprintf(want, sizeof(want), "\\xc2\\x%02xx", c);
		char *got = textesc_dup(in);
		ck_assert_str_eq(got, want);
		free(got);
	}
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("analyzer:textesc");
	TCase *tc = tcase_create("escapes");
	tcase_add_loop_test(tc, textesc_escapes_controls, 0, ARRAY_LEN(cases));
	tcase_add_test(tc, textesc_every_control_byte);
	tcase_add_test(tc, textesc_every_high_byte_and_c1);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
