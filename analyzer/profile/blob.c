/*
 * blob: spool bytes in memory (see blob.h).
 */
#include "blob.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "regfile.h"
#include "xmalloc.h"

/*
 * A file that shrinks while it is mapped (profrun rewriting it, a user
 * truncating it, a --follow read racing the writer) turns a read of a
 * page past its new end into SIGBUS. Reading the file with read(2)
 * instead would keep the whole spool resident and cost a copy; so the
 * spool stays mapped and this module's SIGBUS handler, when the faulting
 * address is in a mapped blob, puts zeros in place of the pages from
 * there to the mapping's end and notes where (blob_shrunk). The reader
 * resumes and reads zeros, which a chunked spool's reader takes for
 * unused space, as it does the zeros the kernel shows past a file's end
 * inside its last page; the loader stops at the noted offset and says
 * so. A SIGBUS elsewhere gets the disposition that was in place before,
 * the fault happening again on return.
 *
 * The registry is the module's global state: the handler can find a
 * blob only through it. Slots are taken and given back outside the
 * handler, which only reads them.
 */
#define BLOB_MAPPED_MAX 64
static struct blob *volatile mapped[BLOB_MAPPED_MAX];
static struct sigaction old_sigbus;
static bool handler_set;
static uintptr_t page_size;

/* async-signal-safe */
static void
on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	uintptr_t a = (uintptr_t)si->si_addr;
	for (size_t i = 0; i < BLOB_MAPPED_MAX; i++) {
		struct blob *b = mapped[i];
		if (!b)
			continue;
		uintptr_t lo = (uintptr_t)b->map;
		if (a < lo || a - lo >= b->size)
			continue;
		uintptr_t page = a - a % page_size;
		size_t len = b->size - (page - lo);
		if (mmap((void *)page, len, PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			break;
		if (page - lo < b->shrunk)
			b->shrunk = page - lo;
		return;
	}
	/* Not a blob's, or no zeros could be put there: what was there
	 * before this module takes the fault when it happens again. */
	sigaction(sig, &old_sigbus, NULL);
}

/* Registers b's mapping with the SIGBUS handler, set up the first time.
 * Returns 0, or -1 when it cannot be (the caller reads instead). */
static int
watch(struct blob *b)
{
	if (!handler_set) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		page_size = (uintptr_t)sysconf(_SC_PAGESIZE);
		if (sigaction(SIGBUS, &sa, &old_sigbus) != 0)
			return -1;
		handler_set = true;
	}
	for (size_t i = 0; i < BLOB_MAPPED_MAX; i++) {
		if (!mapped[i]) {
			mapped[i] = b;
			return 0;
		}
	}
	return -1;
}

static void
unwatch(struct blob *b)
{
	for (size_t i = 0; i < BLOB_MAPPED_MAX; i++)
		if (mapped[i] == b)
			mapped[i] = NULL;
}

size_t
blob_shrunk(const struct blob *b)
{
	return b->shrunk;
}

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
	b->shrunk = SIZE_MAX;
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
			if (watch(b) != 0) {
				/* Never read a mapping no handler guards. */
				munmap(m, b->size);
				b->map = NULL;
				b->data = NULL;
				goto out_read;
			}
			/* Read ahead further; the reader drops what it
			 * passed (blob_drop). Only a hint. */
			(void)madvise(m, b->size, MADV_SEQUENTIAL);
			goto out_close;
		}
	}
out_read:
	ret = read_all(fd, b);

out_close:
	close(fd);
	return ret;
}

void
blob_close(struct blob *b)
{
	if (b->map) {
		unwatch(b);
		munmap(b->map, b->size);
	}
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

