/*
 * Unit tests of analyzer/symbolize/debuginfo.c: the CRC-32 of .gnu_debuglink
 * (known vectors, and the value objcopy wrote into the fixture's link),
 * and the places a debug file is looked for. The lookups themselves,
 * through elfsym, are in test-elfsym; here, what tells libdw's search
 * from our own walk.
 *
 * The fixtures are found under $PROFRUN_BUILD_ROOT/tests.
 */
#include "debuginfo.h"

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *root;

static char *
fx(const char *name)
{
	char *p;
	ck_assert(asprintf(&p, "%s/tests/%s", root, name) > 0);
	return p;
}

START_TEST(debuginfo_crc32_vectors)
{
	ck_assert_uint_eq(debuginfo_crc32(0, "", 0), 0);
	ck_assert_uint_eq(debuginfo_crc32(0, "123456789", 9), 0xcbf43926u);
	ck_assert_uint_eq(debuginfo_crc32(0, "a", 1), 0xe8b7be43u);
	/* Block by block is the same as all at once. */
	uint32_t c = debuginfo_crc32(0, "1234", 4);
	ck_assert_uint_eq(debuginfo_crc32(c, "56789", 5), 0xcbf43926u);
}
END_TEST

/* objcopy --add-gnu-debuglink computed the CRC of fixture-exe-noid.debug;
 * ours must agree, or no link would ever match. */
START_TEST(debuginfo_crc_matches_objcopy)
{
	struct elffile f;
	struct elffile_why why;
	char *linked = fx("fixture-exe-noid-linked");
	char *dbg = fx("fixture-exe-noid.debug");
	ck_assert_msg(elffile_open(&f, linked, &why) == 0, "%s", why.text);
	ck_assert_str_eq(f.debuglink, "fixture-exe-noid.debug");
	ck_assert_uint_eq(f.build_id_len, 0);

	FILE *in = fopen(dbg, "rb");
	ck_assert_ptr_nonnull(in);
	uint8_t buf[4096];
	size_t n;
	uint32_t crc = 0;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		crc = debuginfo_crc32(crc, buf, n);
	fclose(in);
	ck_assert_uint_eq(crc, f.debuglink_crc);

	struct elffile d;
	char *found, *note;
	ck_assert_int_eq(debuginfo_open(&f, linked, NULL, &d, &found, &note), 0);
	ck_assert_str_eq(found, dbg);
	ck_assert_ptr_null(note);
	ck_assert(d.symtab);
	elffile_close(&d);
	free(found);
	elffile_close(&f);
	free(dbg);
	free(linked);
}
END_TEST

/* Nothing to find: no build-id root, no link. */
START_TEST(debuginfo_none)
{
	struct elffile f, d;
	struct elffile_why why;
	char *found, *note;
	char *exe = fx("fixture-exe-noid");
	ck_assert_int_eq(elffile_open(&f, exe, &why), 0);
	ck_assert_ptr_null(f.debuglink);
	ck_assert_int_eq(debuginfo_open(&f, exe, "/nonexistent", &d, &found,
					&note), -1);
	ck_assert_ptr_null(note);
	elffile_close(&f);
	free(exe);
}
END_TEST

/* libdw also looks beside the file a symlink leads to (a library reached
 * through /lib on a merged /usr); our own walk does not. So a symlink to
 * fixture-exe-linked in an empty directory finds fixture-exe.debug if
 * and only if the search is libdw's. */
START_TEST(debuginfo_libdw_follows_symlink)
{
	struct elffile f, d;
	struct elffile_why why;
	char *found, *note, *app, dir[] = "/tmp/test-debuginfo-XXXXXX";
	char *exe = fx("fixture-exe-linked"), *dbg = fx("fixture-exe.debug");
	char *want = realpath(dbg, NULL);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert(asprintf(&app, "%s/app", dir) > 0);
	ck_assert_int_eq(symlink(exe, app), 0);
	ck_assert_int_eq(elffile_open(&f, app, &why), 0);
	int rc = debuginfo_open(&f, app, NULL, &d, &found, &note);
	unlink(app);
	rmdir(dir);
	if (debuginfo_uses_libdw()) {
		ck_assert_int_eq(rc, 0);
		ck_assert_str_eq(found, want);
		ck_assert(d.symtab);
		elffile_close(&d);
		free(found);
	} else {
		ck_assert_int_eq(rc, -1);
	}
	ck_assert_ptr_null(note);
	elffile_close(&f);
	free(want);
	free(app);
	free(dbg);
	free(exe);
}
END_TEST

int
main(void)
{
	root = getenv("PROFRUN_BUILD_ROOT");
	if (!root) {
		fprintf(stderr, "test-debuginfo: PROFRUN_BUILD_ROOT is not set\n");
		return 1;
	}
	Suite *s = suite_create("analyzer:debuginfo");
	TCase *tc = tcase_create("debuginfo");
	tcase_add_test(tc, debuginfo_crc32_vectors);
	tcase_add_test(tc, debuginfo_crc_matches_objcopy);
	tcase_add_test(tc, debuginfo_none);
	tcase_add_test(tc, debuginfo_libdw_follows_symlink);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
