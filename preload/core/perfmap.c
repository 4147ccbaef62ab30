/*
 * perfmap: copying /tmp/perf-PID.map into the spool (see perfmap.h).
 * Layer: core. Everything here is async-signal-safe: the copy may run in
 * the fatal-signal handler (endings.c), so it uses system calls and two
 * static buffers only, no stdio and no malloc.
 *
 * The file is read a record's worth at a time; each record takes the
 * whole lines read so far and the rest of a cut line is carried over to
 * the next. A line longer than a record (no such symbol is real) is
 * skipped.
 */
#include "perfmap.h"

#include "appender.h"
#include "log.h"
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TEXT_MAX (APPENDER_CHUNK - SPOOL_REC_HEADER_LEN - SPOOL_PERF_MAP_FIXED)

/* The text read and not yet written, and the record it goes into. */
static char text[TEXT_MAX];
static uint8_t rec[APPENDER_CHUNK];

/* Taken by the one copy under way (the buffers above are its). */
static atomic_flag busy = ATOMIC_FLAG_INIT;
/* A failure was reported (once per process). */
static _Atomic int warned;

/* One copy in progress. */
struct copy {
	int fd;
	uint32_t pid, part;
	size_t have;      /* bytes in text */
	uint64_t total;   /* bytes read */
	int eof, cut;     /* end of the file (or of what is copied) */
	int skipping;     /* inside a line too long for a record */
};

/* Opens the map when it is one perf would read. async-signal-safe */
static int
open_map(const char *path)
{
	struct stat st;
	/* O_NONBLOCK: a FIFO planted at that name must not stop the exit. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads until text is full or the file ends. Returns 0 or -errno.
 * async-signal-safe */
static int
fill(struct copy *c)
{
	while (!c->eof && c->have < sizeof(text)) {
		size_t want = sizeof(text) - c->have;
		if (want > PERFMAP_MAX_BYTES - c->total)
			want = PERFMAP_MAX_BYTES - c->total;
		if (want == 0) {
			c->eof = c->cut = 1;
			break;
		}
		ssize_t n = read(c->fd, text + c->have, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			c->eof = 1;
		c->have += (size_t)n;
		c->total += (size_t)n;
	}
	return 0;
}

/* The length of the whole lines at the start of text: up to the last
 * newline, or all of it at the true end of the file (a last line without
 * its newline). async-signal-safe */
static size_t
whole_lines(const struct copy *c)
{
	if (c->eof && !c->cut)
		return c->have;
	size_t n = c->have;
	while (n && text[n - 1] != '\n')
		n--;
	return n;
}

/* Drops the bytes of a line too long for a record, up to and including
 * its newline. async-signal-safe */
static void
skip_long_line(struct copy *c)
{
	size_t i = 0;
	while (i < c->have && text[i] != '\n')
		i++;
	c->skipping = i == c->have && !c->eof;
	if (i < c->have)
		i++;
	memmove(text, text + i, c->have - i);
	c->have -= i;
}

/* Writes the first len bytes of text as a record and keeps the rest.
 * Returns 0 or -errno. async-signal-safe */
static int
put_part(struct copy *c, size_t len, uint32_t flags)
{
	struct spool_perf_map m = {
		.pid = c->pid, .part = c->part, .flags = flags,
		.text = { text, (uint32_t)len },
	};
	struct spool_buf b;
	spool_buf_init(&b, rec, sizeof(rec));
	if (spool_put_perf_map(&b, &m) < 0)
		return -ENOSPC;
	int rc = appender_put_chunk(rec, b.len);
	if (rc < 0)
		return rc;
	c->part++;
	memmove(text, text + len, c->have - len);
	c->have -= len;
	return 0;
}

/* The copy proper. Returns 0 or -errno. async-signal-safe */
static int
copy_map(struct copy *c)
{
	for (;;) {
		int rc = fill(c);
		if (rc < 0)
			return rc;
		if (c->skipping) {
			skip_long_line(c);
			continue;
		}
		size_t len = whole_lines(c);
		if (c->eof && len == c->have) {
			if (c->part == 0 && len == 0)
				return 0; /* an empty map: nothing to copy */
			return put_part(c, len, SPOOL_PERF_MAP_LAST |
					(c->cut ? SPOOL_PERF_MAP_CUT : 0));
		}
		if (len == 0 && c->have == sizeof(text)) {
			c->skipping = 1;
			continue;
		}
		if (len == 0) /* the cut end: a partial last line */
			c->have = 0;
		else if ((rc = put_part(c, len, 0)) < 0)
			return rc;
	}
}

/* Says why a copy fell short, the first time one does.
 * async-signal-safe */
static void
warn_once(const char *path, int rc, int cut)
{
	if ((rc == 0 && !cut) || atomic_exchange(&warned, 1))
		return;
	if (rc < 0)
		log_msg("%s: cannot copy the perf map into the spool (error "
			"%d); JIT code is named only if the file is still "
			"there when the spool is read", path, -rc);
	else
		log_msg("%s: perf map longer than %u MiB; only its first "
			"lines are copied into the spool", path,
			PERFMAP_MAX_BYTES >> 20);
}

void
perfmap_copy(void)
{
	char path[64];
	int pid = (int)getpid();
	int saved_errno = errno;
	log_snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	struct copy c = { .pid = (uint32_t)pid };
	if (atomic_flag_test_and_set(&busy))
		return;
	if ((c.fd = open_map(path)) < 0) {
		atomic_flag_clear(&busy);
		errno = saved_errno;
		return;
	}
	int rc = copy_map(&c);
	close(c.fd);
	atomic_flag_clear(&busy);
	warn_once(path, rc, c.cut);
	errno = saved_errno;
}

/* The part of path after its last '/'. async-signal-safe */
static const char *
base_name(const char *path)
{
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			base = p + 1;
	return base;
}

void
perfmap_unlinking(int dirfd, const char *path)
{
	/* Most files a program deletes are not perf-*.map: they cost a
	 * comparison of their last name and nothing else. */
	if (!path)
		return;
	const char *base = base_name(path);
	size_t len = strlen(base);
	if (len < 10 || memcmp(base, "perf-", 5) != 0 ||
	    memcmp(base + len - 4, ".map", 4) != 0)
		return;
	char name[64], full[64];
	struct stat a, b;
	int saved_errno = errno;
	log_snprintf(name, sizeof(name), "perf-%d.map", (int)getpid());
	log_snprintf(full, sizeof(full), "/tmp/%s", name);
	/* Then this process's name, then the file itself, whichever way
	 * the program spells its path. */
	if (strcmp(base, name) == 0 &&
	    fstatat(dirfd, path, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
	    stat(full, &b) == 0 && a.st_dev == b.st_dev &&
	    a.st_ino == b.st_ino)
		perfmap_copy();
	errno = saved_errno;
}
