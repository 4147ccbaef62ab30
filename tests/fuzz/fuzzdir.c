/*
 * fuzzdir: the per-process scratch directory of the harnesses (see
 * fuzzdir.h).
 */
#include "fuzzdir.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *dir;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuzzdir: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

static int
remove_one(const char *path, const struct stat *st, int flag,
	   struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void
remove_dir(void)
{
	if (dir)
		nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *
fuzzdir_path(void)
{
	if (dir)
		return dir;
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	if (asprintf(&dir, "%s/profrun-fuzz.XXXXXX", tmp) < 0)
		die("out of memory");
	if (!mkdtemp(dir))
		die("%s: %s", dir, strerror(errno));
	atexit(remove_dir);
	return dir;
}

char *
fuzzdir_file(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", fuzzdir_path(), name) < 0)
		die("out of memory");
	return p;
}

void
fuzzdir_write(const char *name, const void *data, size_t len)
{
	char *path = fuzzdir_file(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("%s: %s", path, n < 0 ? strerror(errno) : "short write");
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) != 0)
		die("%s: %s", path, strerror(errno));
	free(path);
}

void
fuzzdir_copy(const char *src, const char *name)
{
	FILE *f = fopen(src, "rb");
	if (!f)
		die("%s: %s", src, strerror(errno));
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 65536;
			if (!(buf = realloc(buf, cap)))
				die("out of memory");
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	if (ferror(f))
		die("%s: read error", src);
	fclose(f);
	fuzzdir_write(name, buf, len);
	free(buf);
}

int
fuzzdir_lowest_free_fd(void)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		die("/: %s", strerror(errno));
	close(fd);
	return fd;
}

void
fuzzdir_check_fds(int before, const char *what)
{
	int now = fuzzdir_lowest_free_fd();
	if (now != before)
		die("%s leaked a file descriptor (lowest free was %d, is %d)",
		    what, before, now);
}
