/*
 * Unit tests of analyzer/util/textesc.c: the C0 control characters and DEL of
 * a string come out as \xNN, everything else (printable ASCII, UTF-8,
 * bytes that are not UTF-8) as it is; what needs escaping is told apart
 * from what does not; the stream and the string forms agree.
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
	{ "back\\slash", "back\\slash" },   /* not a control character */
	{ "caf\xc3\xa9", "caf\xc3\xa9" },  /* UTF-8 */
	{ "\xff\x80\x9b", "\xff\x80\x9b" }, /* not UTF-8: left alone */
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

int
main(void)
{
	Suite *s = suite_create("analyzer:textesc");
	TCase *tc = tcase_create("escapes");
	tcase_add_loop_test(tc, textesc_escapes_controls, 0, ARRAY_LEN(cases));
	tcase_add_test(tc, textesc_every_control_byte);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
