/*
 * blob: spool bytes in memory (see blob.h).
 */
#include "blob.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "regfile.h"
#include "xmalloc.h"

static int
read_all(int fd, struct blob *b)
{
	size_t cap = 0, len = 0;
	for (;;) {
		xgrow(&b->buf, &cap, len + 65536, 1);
		ssize_t n = read(fd, b->buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	b->data = b->buf;
	b->size = len;
	return 0;
}

int
blob_open(const char *path, struct blob *b)
{
	struct stat st;
	int ret = 0;

	memset(b, 0, sizeof(*b));
	int fd = regfile_open(path, &st);
	if (fd < 0)
		return fd;
	if (st.st_size > 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			       fd, 0);
		if (m != MAP_FAILED) {
			b->map = m;
			b->data = m;
			b->size = (size_t)st.st_size;
			/* Read ahead further; the reader drops what it
			 * passed (blob_drop). Only a hint. */
			(void)madvise(m, b->size, MADV_SEQUENTIAL);
			goto out_close;
		}
	}
	ret = read_all(fd, b);

out_close:
	close(fd);
	return ret;
}

void
blob_close(struct blob *b)
{
	if (b->map)
		munmap(b->map, b->size);
	free(b->buf);
}

size_t
blob_drop(const struct blob *b, size_t from, size_t to)
{
	if (!b->map || to <= from)
		return from;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t end = to > b->size ? b->size : to;
	end -= end % page;
	if (end <= from)
		return from;
	/* Private, read-only and never written: dropping loses nothing,
	 * the file backs every page. */
	if (madvise((uint8_t *)b->map + from, end - from, MADV_DONTNEED) != 0)
		return from;
	return end;
}

int
blob_open_spool(const char *path, struct blob *b, struct spool_cursor *c)
{
	int ret = blob_open(path, b);
	if (ret < 0) {
		diag_error("%s: %s", path, regfile_strerror(ret));
		return ret;
	}
	ret = spool_cursor_init(c, b->data, b->size);
	if (ret == -ENOTSUP)
		diag_error("%s: spool version %u is newer than this "
			   "profanalyze reads (%u)", path, c->version,
			   SPOOL_VERSION);
	else if (ret < 0)
		diag_error("%s: not a profrun spool", path);
	if (ret < 0)
		blob_close(b);
	return ret;
}

