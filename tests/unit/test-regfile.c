/*
 * Unit tests of analyzer/util/regfile.c: a regular file opens for blocking
 * reads; a FIFO, a device and a directory are refused with their errors
 * without being read (a FIFO opened the ordinary way would wait for a
 * writer: the tcase timeout fails such a regression instead of hanging).
 */
#include "regfile.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/test-regfile-XXXXXX";

static char *
tmp_path(const char *name)
{
	char *p;
	ck_assert(asprintf(&p, "%s/%s", tmpdir, name) > 0);
	return p;
}

START_TEST(regfile_opens_regular_files)
{
	char *path = tmp_path("regular");
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("data", f);
	ck_assert_int_eq(fclose(f), 0);

	struct stat st;
	int fd = regfile_open(path, &st);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(st.st_size, 4);
	ck_assert_int_eq(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	char buf[8];
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 4);
	close(fd);
	free(path);
}
END_TEST

START_TEST(regfile_refuses_fifo)
{
	char *path = tmp_path("fifo");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(regfile_open(path, NULL), -EINVAL);
	ck_assert_str_eq(regfile_strerror(-EINVAL), "not a regular file");
	free(path);
}
END_TEST

START_TEST(regfile_refuses_device_and_directory)
{
	ck_assert_int_eq(regfile_open("/dev/null", NULL), -EINVAL);
	ck_assert_int_eq(regfile_open(tmpdir, NULL), -EISDIR);
}
END_TEST

START_TEST(regfile_passes_open_errors_on)
{
	char *path = tmp_path("missing");
	ck_assert_int_eq(regfile_open(path, NULL), -ENOENT);
	ck_assert_str_eq(regfile_strerror(-ENOENT), strerror(ENOENT));
	free(path);
}
END_TEST

int
main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	Suite *s = suite_create("analyzer:regfile");
	TCase *tc = tcase_create("open");
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, regfile_opens_regular_files);
	tcase_add_test(tc, regfile_refuses_fifo);
	tcase_add_test(tc, regfile_refuses_device_and_directory);
	tcase_add_test(tc, regfile_passes_open_errors_on);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);

	char cmd[64];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "test-regfile: could not remove %s\n", tmpdir);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
