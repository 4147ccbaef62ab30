/*
 * Unit tests of the perf map's copy into the spool (preload/core/perfmap.c),
 * built with the appender and the base below it: a map longer than a
 * chunk is split into PERF_MAP records of whole lines, numbered in file
 * order, each at the start of a chunk of its own, the last flagged; their
 * text put together is the file; a line too long for a record is left
 * out; a map the user does not own, or no map, gives no record; the
 * appender's finish hook runs once, before the footer; deleting the map
 * copies it first, deleting another file does not.
 */
#include "appender.h"
#include "image-spool.h"
#include "perfmap.h"
#include "spool.h"
#include "state.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64], map_path[64];

static void
setup(void)
{
	image_spool_open(dir, "/tmp/test-perfmap-XXXXXX");
	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	unlink(map_path);
}

static void
teardown(void)
{
	unlink(map_path);
	image_spool_remove(dir);
}

/* What the spool's PERF_MAP records hold. */
struct copied {
	char *text;     /* their texts put together (malloc'd) */
	size_t len;
	uint32_t parts;
	uint32_t last_flags;
	int footer_after; /* the footer came after every PERF_MAP */
};

static void
read_copied(struct copied *out)
{
	int fd = open(prof_state.cfg.spool_path, O_RDONLY);
	struct stat st;
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	uint8_t *p = malloc((size_t)st.st_size + 1);
	ck_assert_int_eq(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	struct spool_cursor c;
	struct spool_rec r;
	struct spool_perf_map m;
	memset(out, 0, sizeof(*out));
	out->text = malloc((size_t)st.st_size + 1);
	int footer = 0;
	ck_assert_int_eq(spool_cursor_init(&c, p, (size_t)st.st_size), 0);
	while (spool_next(&c, &r) == SPOOL_OK) {
		if (r.type == SPOOL_REC_FOOTER)
			footer = 1;
		if (r.type != SPOOL_REC_PERF_MAP)
			continue;
		ck_assert_int_eq(spool_get_perf_map(&r, &m), 0);
		ck_assert_uint_eq(r.offset % APPENDER_CHUNK, 0);
		ck_assert_uint_eq(m.pid, (uint32_t)getpid());
		ck_assert_uint_eq(m.part, out->parts);
		ck_assert_int_eq(footer, 0);
		/* Whole lines: each part but the last (the file's last line
		 * may lack it) ends with a newline. */
		if (!(m.flags & SPOOL_PERF_MAP_LAST))
			ck_assert_int_eq(m.text.ptr[m.text.len - 1], '\n');
		memcpy(out->text + out->len, m.text.ptr, m.text.len);
		out->len += m.text.len;
		out->parts++;
		out->last_flags = m.flags;
	}
	out->text[out->len] = '\0';
	out->footer_after = footer;
	free(p);
}

/* Writes n lines of the map (line i: "ADDR 10 fn_i_xxxx", padded to
 * about 60 bytes) to f and to want. */
static size_t
write_lines(FILE *f, char *want, size_t at, int n)
{
	for (int i = 0; i < n; i++) {
		char line[128];
		int len = snprintf(line, sizeof(line),
				   "%x 10 fn_%d_%040d\n", 0x10000 + 16 * i, i, i);
		fputs(line, f);
		if (want)
			memcpy(want + at, line, (size_t)len);
		at += (size_t)len;
	}
	return at;
}

/* A map of about 300 KiB: five parts or more, the text whole and in
 * order, the last part flagged LAST, and the footer after them. */
START_TEST(perfmap_copy_splits_large_map)
{
	static char want[1 << 20];
	FILE *f = fopen(map_path, "w");
	ck_assert_ptr_nonnull(f);
	size_t len = write_lines(f, want, 0, 5000);
	fclose(f);
	appender_set_finish_hook(perfmap_copy);
	ck_assert_int_eq(appender_finish(SPOOL_END_EXIT, 0), 0);
	appender_set_finish_hook(NULL);
	unlink(map_path); /* before any check: a failed one skips teardown */
	struct copied c;
	read_copied(&c);
	ck_assert_uint_ge(c.parts, len / APPENDER_CHUNK + 1);
	ck_assert_uint_eq(c.len, len);
	ck_assert_int_eq(memcmp(c.text, want, len), 0);
	ck_assert_uint_eq(c.last_flags, SPOOL_PERF_MAP_LAST);
	ck_assert_int_eq(c.footer_after, 1);
	free(c.text);
}
END_TEST

/* A line longer than a record is left out, the lines around it kept;
 * a last line without its newline is kept whole. */
START_TEST(perfmap_copy_skips_overlong_line)
{
	static char want[1 << 20];
	FILE *f = fopen(map_path, "w");
	ck_assert_ptr_nonnull(f);
	size_t len = write_lines(f, want, 0, 10);
	fputs("20000 10 ", f);
	for (int i = 0; i < 100000; i++)
		fputc('x', f);
	fputc('\n', f);
	len = write_lines(f, want, len, 10);
	fputs("30000 10 last", f);
	memcpy(want + len, "30000 10 last", 13);
	len += 13;
	fclose(f);
	perfmap_copy();
	unlink(map_path);
	struct copied c;
	read_copied(&c);
	ck_assert_uint_eq(c.len, len);
	ck_assert_int_eq(memcmp(c.text, want, len), 0);
	ck_assert_uint_eq(c.last_flags, SPOOL_PERF_MAP_LAST);
	free(c.text);
}
END_TEST

/* No map, an empty map, or a map that is no regular file: no record. */
START_TEST(perfmap_copy_nothing_to_copy)
{
	struct copied c;
	perfmap_copy();
	close(open(map_path, O_CREAT | O_WRONLY, 0600));
	perfmap_copy();
	unlink(map_path);
	ck_assert_int_eq(mkfifo(map_path, 0600), 0);
	perfmap_copy(); /* returns at once: O_NONBLOCK, then not regular */
	unlink(map_path);
	read_copied(&c);
	ck_assert_uint_eq(c.parts, 0);
	free(c.text);
}
END_TEST

/* Deleting the map copies it first, by any spelling of its path; the
 * deletion of another file copies nothing. */
START_TEST(perfmap_copy_on_unlink)
{
	char other[128], rel[64];
	snprintf(other, sizeof(other), "%s/perf-%d.map", dir, (int)getpid());
	FILE *f = fopen(other, "w");
	ck_assert_ptr_nonnull(f);
	write_lines(f, NULL, 0, 3);
	fclose(f);
	perfmap_unlinking(AT_FDCWD, other); /* same name, another file */
	perfmap_unlinking(AT_FDCWD, NULL);
	unlink(other);
	struct copied c;
	read_copied(&c);
	ck_assert_uint_eq(c.parts, 0);
	free(c.text);

	f = fopen(map_path, "w");
	ck_assert_ptr_nonnull(f);
	size_t len = write_lines(f, NULL, 0, 3);
	fclose(f);
	int tmp = open("/tmp", O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(tmp, 0);
	snprintf(rel, sizeof(rel), "perf-%d.map", (int)getpid());
	perfmap_unlinking(tmp, rel);
	close(tmp);
	unlink(map_path);
	read_copied(&c);
	ck_assert_uint_eq(c.parts, 1);
	ck_assert_uint_eq(c.len, len);
	free(c.text);
}
END_TEST

static int hook_calls;

static void
count_hook(void)
{
	hook_calls++;
}

/* The hook runs once per ending, by the ending that writes the footer. */
START_TEST(appender_hook_runs_once)
{
	appender_set_finish_hook(count_hook);
	ck_assert_int_eq(appender_finish(SPOOL_END_EXIT, 0), 0);
	ck_assert_int_eq(appender_finish(SPOOL_END_EXIT, 0), -EALREADY);
	appender_set_finish_hook(NULL);
	ck_assert_int_eq(hook_calls, 1);
}
END_TEST

static Suite *
perfmap_suite(void)
{
	Suite *s = suite_create("preload:perfmap");
	TCase *tc = tcase_create("copy");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, perfmap_copy_splits_large_map);
	tcase_add_test(tc, perfmap_copy_skips_overlong_line);
	tcase_add_test(tc, perfmap_copy_nothing_to_copy);
	tcase_add_test(tc, perfmap_copy_on_unlink);
	tcase_add_test(tc, appender_hook_runs_once);
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
