/*
 * Unit tests of the build-id note walk of the preload library
 * (preload/base/notes.c): the id found among other notes, and notes whose
 * sizes (from the file) do not fit in what is left, among them sizes
 * near 2^32 that wrap to 0 when rounded up in 32 bits.
 */
#include "notes.h"

#include <check.h>
#include <elf.h>
#include <stdint.h>
#include <string.h>

/* Appends a note at buf[*pos]: its header with the sizes given, then
 * the name and desc bytes actually present (name_len, desc_len), each
 * padded to 4. */
static void
put_note(uint8_t *buf, size_t *pos, uint32_t namesz, uint32_t descsz,
	 uint32_t type, const char *name, size_t name_len,
	 const uint8_t *desc, size_t desc_len)
{
	uint32_t h[3] = { namesz, descsz, type };
	memcpy(buf + *pos, h, sizeof(h));
	*pos += sizeof(h);
	if (name_len)
		memcpy(buf + *pos, name, name_len);
	*pos += (name_len + 3) & ~(size_t)3;
	if (desc_len)
		memcpy(buf + *pos, desc, desc_len);
	*pos += (desc_len + 3) & ~(size_t)3;
}

static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6,
				7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint8_t abi[16] = { 0 };

static void
put_build_id(uint8_t *buf, size_t *pos)
{
	put_note(buf, pos, 4, sizeof(id), NT_GNU_BUILD_ID, "GNU", 4, id,
		 sizeof(id));
}

START_TEST(notes_build_id_found)
{
	uint8_t buf[256] = { 0 }, out[20];
	size_t len = 0;

	put_note(buf, &len, 4, sizeof(abi), NT_GNU_ABI_TAG, "GNU", 4, abi,
		 sizeof(abi));
	put_build_id(buf, &len);
	ck_assert_uint_eq(notes_build_id(buf, len, out, sizeof(out)), 20);
	ck_assert_mem_eq(out, id, sizeof(id));
}
END_TEST

START_TEST(notes_build_id_none)
{
	uint8_t buf[256] = { 0 }, out[20];
	size_t len = 0;

	ck_assert_uint_eq(notes_build_id(buf, 0, out, sizeof(out)), 0);
	put_note(buf, &len, 4, sizeof(abi), NT_GNU_ABI_TAG, "GNU", 4, abi,
		 sizeof(abi));
	ck_assert_uint_eq(notes_build_id(buf, len, out, sizeof(out)), 0);
	/* An id longer than the caller's room is not taken. */
	len = 0;
	put_build_id(buf, &len);
	ck_assert_uint_eq(notes_build_id(buf, len, out, 16), 0);
}
END_TEST

/* The id's desc reaching one byte past the end, and a header cut short. */
START_TEST(notes_build_id_cut)
{
	uint8_t buf[256] = { 0 }, out[20];
	size_t len = 0;

	put_build_id(buf, &len);
	ck_assert_uint_eq(notes_build_id(buf, len - 1, out, sizeof(out)), 0);
	ck_assert_uint_eq(notes_build_id(buf, 11, out, sizeof(out)), 0);
}
END_TEST

/* A note whose n_namesz is 0xfffffffd, then a build-id note right after
 * its header: rounded up in 32 bits the name's size is 0, and a walk
 * that does so takes the next 12 bytes for the following note. The real
 * next note would be 4 GiB on, past the end: there is no build-id. */
START_TEST(notes_build_id_namesz_wraps)
{
	uint8_t buf[256] = { 0 }, out[20];
	size_t len = 0;

	put_note(buf, &len, 0xfffffffd, 0, NT_GNU_ABI_TAG, "", 0, NULL, 0);
	put_build_id(buf, &len);
	ck_assert_uint_eq(notes_build_id(buf, len, out, sizeof(out)), 0);
}
END_TEST

/* The same with n_descsz 0xfffffffe on a note named "GNU". */
START_TEST(notes_build_id_descsz_wraps)
{
	uint8_t buf[256] = { 0 }, out[20];
	size_t len = 0;

	put_note(buf, &len, 4, 0xfffffffe, NT_GNU_ABI_TAG, "GNU", 4, NULL, 0);
	put_build_id(buf, &len);
	ck_assert_uint_eq(notes_build_id(buf, len, out, sizeof(out)), 0);
}
END_TEST

/* Sizes that fit in 32 bits but not in what is left. */
START_TEST(notes_build_id_too_long)
{
	uint8_t buf[256] = { 0 }, out[20];
	size_t len = 0;

	put_note(buf, &len, 4, 0x7ffffff0, NT_GNU_BUILD_ID, "GNU", 4, id,
		 sizeof(id));
	put_build_id(buf, &len);
	ck_assert_uint_eq(notes_build_id(buf, len, out, sizeof(out)), 0);
}
END_TEST

static Suite *
notes_suite(void)
{
	Suite *s = suite_create("preload:notes");
	TCase *tc = tcase_create("build-id");
	tcase_add_test(tc, notes_build_id_found);
	tcase_add_test(tc, notes_build_id_none);
	tcase_add_test(tc, notes_build_id_cut);
	tcase_add_test(tc, notes_build_id_namesz_wraps);
	tcase_add_test(tc, notes_build_id_descsz_wraps);
	tcase_add_test(tc, notes_build_id_too_long);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(notes_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
