/*
 * regfile: regular files opened without blocking (see regfile.h).
 */
#include "regfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int
regfile_open(const char *path, struct stat *st)
{
	struct stat own;
	int ret;

	if (!st)
		st = &own;
	/* O_NONBLOCK: a FIFO opens at once instead of waiting for a
	 * writer, and is refused below. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) != 0) {
		ret = -errno;
		goto out_close;
	}
	if (!S_ISREG(st->st_mode)) {
		ret = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
		goto out_close;
	}
	/* Back to blocking reads: a regular file ignores the flag, but
	 * some file systems (FUSE) need not. */
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		ret = -errno;
		goto out_close;
	}
	return fd;

out_close:
	close(fd);
	return ret;
}

const char *
regfile_strerror(int err)
{
	return err == -EINVAL ? "not a regular file" : strerror(-err);
}
