/*
 * appender: the spool file as its own buffer (see appender.h).
 * Layer: core. Everything here but opening, closing a stream, the shared
 * stream and the fork hooks is async-signal-safe: system calls, atomics
 * and stores into mapped chunks.
 *
 * Chunk 0 holds the file header and the PROCESS record, written with
 * pwrite, and goes to the first stream for the rest. Every chunk is
 * reserved whole with fallocate (or, where the file system has none, by
 * writing zeros) before it is mapped: a store into a page that has no
 * block behind it would raise SIGBUS in the target when the disk is full.
 * The footer is written with pwrite at the start of a chunk taken after
 * every other, so that a reader finds the last footer last, and the file
 * is cut just after it: a short run leaves no chunks of zeros behind.
 *
 * Nothing here may turn into a signal: every write, fallocate and
 * ftruncate stays within the file-size limit as it is at that moment
 * (RLIMIT_FSIZE: past it, the kernel sends SIGXFSZ), which is met like a
 * full disk; and a chunk whose file was cut under it (the user truncated
 * the spool) is replaced with anonymous memory by appender_fault when a
 * store into it raises SIGBUS, the spool then being lost.
 */
#include "appender.h"

#include "gate.h"
#include "log.h"
#include "state.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define SPOOL_FD_MIN 512
/* A program that has just closed every descriptor it does not know of
 * usually goes on to open or dup its own and may count on getting the
 * lowest free numbers; an open of ours meanwhile, from another thread,
 * would take one. So a thread that finds the spool's descriptor gone while
 * the program runs reopens it only this long after the loss was first
 * seen, and drops what does not fit in its chunk until then; the program's
 * own ending (exit, exec) reopens it at once. */
#define REOPEN_DELAY_NS 200000000ull
/* After a chunk could not be reserved (a full disk), the next try waits
 * this long: every record would otherwise cost a system call. */
#define RETRY_DELAY_NS 1000000000ull
/* Chunks handed from a thread that left to one that starts. */
#define POOL_SIZE 64
/* Chunks mapped at once (one a stream), known to appender_fault. */
#define MAPS_MAX 4096

static _Atomic int spool_fd = -1;
static char spool_name[PATH_MAX];
/* The spool's name in messages: spool_name, or the name profrun renames
 * it to when the program has ended (PROF_SPOOL_FINAL), since the file
 * the user will look for is that one. */
static const char *spool_shown = spool_name;
/* What spool_fd is: a program that closes every descriptor it does not
 * know of (closefrom) may reuse the number for a file of its own, which
 * must never receive spool records nor be closed by us. */
static dev_t spool_dev;
static ino_t spool_ino;
static _Atomic uint64_t lost_since_ns; /* when the fd was first seen gone */

static _Atomic uint64_t next_off;      /* the file's end, in whole chunks */
static _Atomic uint64_t retry_after_ns;
static _Atomic int warned_room;
static _Atomic uint64_t samples;
static _Atomic uint64_t size_limit_ns; /* when --max-size stopped sampling */
static _Atomic uint64_t used; /* bytes of records, against --max-size */
/* The footer is written (its offset: footer_off): no chunk is taken
 * after it, the file having been cut there, until appender_resume. */
static _Atomic int sealed;
static uint64_t footer_off;
/* Chunk 0 could not be reserved (the file-size limit): the spool is its
 * header, PROCESS record and footers, footers going at chunk0_end. */
static int chunk0_short;
static uint64_t chunk0_end;
/* The spool was truncated or replaced under a mapping: nothing more is
 * written to it. */
static _Atomic int lost;
/* The chunks mapped now (their addresses), for appender_fault. */
static _Atomic uintptr_t maps[MAPS_MAX];
/* 0 running, 1 a footer is being written, 2 written. */
static _Atomic int finish_state;
/* Chunks with room left by threads that ended: offset | bytes used (the
 * offset is a multiple of the chunk size, which is more than any use). */
static _Atomic uint64_t pool[POOL_SIZE];

static void (*_Atomic finish_hook)(void);

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct appender_stream shared;

/* Zeros to write where fallocate is not supported. */
static uint8_t zeros[APPENDER_CHUNK];

/* Words for the errors a spool can meet (strerror is not
 * async-signal-safe). async-signal-safe */
static const char *
error_words(int err)
{
	switch (err) {
	case ENOSPC: return "no space left on the device";
	case EDQUOT: return "disk quota exceeded";
	case EFBIG: return "the file size limit (ulimit -f) is reached";
	case EIO: return "input/output error";
	case EROFS: return "read-only file system";
	case ENOMEM: return "out of memory";
	case EMFILE: return "too many open files";
	case ENFILE: return "too many open files in the system";
	case EACCES: return "permission denied";
	case ENOENT: return "the spool was removed";
	default: return "unexpected error";
	}
}

/* async-signal-safe */
static int
fd_ours(int fd)
{
	struct stat st;
	return fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == spool_dev &&
	       st.st_ino == spool_ino;
}

/* The spool's descriptor, opened again by its name when the program
 * closed it (provided the name is still the same file), or -1. patient:
 * wait REOPEN_DELAY_NS after the loss was first seen. async-signal-safe */
static int
spool_fd_get(int patient)
{
	int fd = spool_fd;
	if (fd < 0)
		return -1;
	if (fd_ours(fd)) {
		atomic_store_explicit(&lost_since_ns, 0, memory_order_relaxed);
		return fd;
	}
	uint64_t now = prof_now_ns(), zero = 0;
	atomic_compare_exchange_strong(&lost_since_ns, &zero, now);
	if (patient && now - atomic_load(&lost_since_ns) < REOPEN_DELAY_NS)
		return -1;
	struct stat st;
	int nfd = open(spool_name, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (nfd < 0)
		return -1;
	if (fstat(nfd, &st) != 0 || st.st_dev != spool_dev ||
	    st.st_ino != spool_ino) {
		close(nfd);
		return -1;
	}
	nfd = prof_fd_raise(nfd, SPOOL_FD_MIN);
	if (nfd < 0)
		return -1;
	/* Two threads may reopen at once: one descriptor is kept. */
	int expect = fd;
	if (!atomic_compare_exchange_strong(&spool_fd, &expect, nfd)) {
		close(nfd);
		return expect;
	}
	atomic_store(&lost_since_ns, 0);
	return nfd;
}

/* Writes len bytes at off whole. Returns 0 or -errno. async-signal-safe */
static int
pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(fd, (const uint8_t *)p + done, len - done,
				   (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* Room kept for the footer: below the size limit, and below the
 * file-size limit after every chunk taken. */
#define FOOTER_ROOM 512u

/* Takes len bytes of records from the spool's size limit (PROF_MAX_SIZE),
 * room for the footer kept: 0, or -EFBIG when they do not fit. What is
 * counted is what is written, not the chunks reserved, so that threads
 * that each hold a chunk do not reach the limit at once. The first
 * refusal stops sampling and says so. async-signal-safe */
static int
size_take(size_t len)
{
	uint64_t max = prof_state.cfg.max_size;
	if (!max)
		return 0;
	uint64_t was = atomic_fetch_add_explicit(&used, len,
						 memory_order_relaxed);
	if (max >= FOOTER_ROOM && len <= max - FOOTER_ROOM &&
	    was <= max - FOOTER_ROOM - len)
		return 0;
	atomic_fetch_sub_explicit(&used, len, memory_order_relaxed);
	uint64_t zero = 0, now = prof_now_ns();
	if (atomic_compare_exchange_strong(&size_limit_ns, &zero, now ? now : 1)) {
		gate_size(1);
		log_msg("%s: the spool reached its size limit (%lu bytes); "
			"sampling stopped", spool_shown, (unsigned long)max);
	}
	return -EFBIG;
}

/* Gives back what size_take took for a record that was not written.
 * async-signal-safe */
static void
size_give(size_t len)
{
	if (prof_state.cfg.max_size)
		atomic_fetch_sub_explicit(&used, len, memory_order_relaxed);
}

/* Whether the file may grow to end bytes under the file-size limit as
 * the program has it now: past it, a write raises SIGXFSZ. One system
 * call, made when a chunk is reserved or the header or footer written.
 * async-signal-safe */
static int
fsize_allows(uint64_t end)
{
	/* The system call itself (struct rlimit64), not a libc function
	 * that the library might wrap. */
	struct { uint64_t cur, max; } rl;
	if (sys_call(SYS_prlimit64, 0, RLIMIT_FSIZE, NULL, &rl) != 0 ||
	    rl.cur == ~(uint64_t)0)
		return 1;
	return end <= rl.cur;
}

/* Gives the blocks of [off, off + APPENDER_CHUNK) to the file. Returns 0
 * or -errno. async-signal-safe */
static int
reserve(int fd, uint64_t off)
{
	if (!fsize_allows(off + APPENDER_CHUNK + FOOTER_ROOM))
		return -EFBIG;
	if (fallocate(fd, 0, (off_t)off, APPENDER_CHUNK) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS)
		return -errno;
	return pwrite_all(fd, zeros, APPENDER_CHUNK, off);
}

/* Reserves the chunk at the file's end and takes it: *off. The end moves
 * only past a chunk that has its blocks, so a failed reservation (a full
 * disk) leaves no hole behind it for a later chunk or the footer to skip
 * over: a hole in a full tmpfs raises SIGBUS in whoever maps and reads
 * it, profrun and profanalyze included. Two threads may reserve the same
 * chunk; the one that moves the end takes it, the other tries the next.
 * None is taken once the footer's chunk is (the file is cut after the
 * footer; a thread that read the end before it took the footer's
 * offset fails to move the end). Returns 0, 1 after the footer, or
 * -errno. async-signal-safe */
static int
reserve_next(int fd, uint64_t *off)
{
	for (;;) {
		uint64_t at = atomic_load(&next_off);
		if (atomic_load(&sealed))
			return 1;
		int rc = reserve(fd, at);
		if (rc < 0)
			return rc;
		if (atomic_compare_exchange_strong(&next_off, &at,
						   at + APPENDER_CHUNK)) {
			*off = at;
			return 0;
		}
	}
}

/* Says once why records are being dropped. async-signal-safe */
static void
warn_room(int err)
{
	if (!atomic_exchange(&warned_room, 1))
		log_msg("%s: cannot extend the spool (%s); records are dropped "
			"and counted until there is room", spool_shown,
			error_words(err));
}

/* A pooled chunk with room, or 0. async-signal-safe */
static uint64_t
pool_take(void)
{
	for (int i = 0; i < POOL_SIZE; i++) {
		uint64_t v = atomic_load_explicit(&pool[i], memory_order_relaxed);
		if (v && atomic_compare_exchange_strong(&pool[i], &v, 0))
			return v;
	}
	return 0;
}

/* Records a chunk mapped at p for appender_fault: 0, or -1 when
 * MAPS_MAX chunks are mapped already. async-signal-safe */
static int
maps_add(void *p)
{
	for (int i = 0; i < MAPS_MAX; i++) {
		uintptr_t zero = 0;
		if (atomic_compare_exchange_strong(&maps[i], &zero, (uintptr_t)p))
			return 0;
	}
	return -1;
}

/* Unmaps a chunk mapped by new_chunk. async-signal-safe */
static void
unmap_chunk(void *p)
{
	for (int i = 0; i < MAPS_MAX; i++) {
		uintptr_t v = (uintptr_t)p;
		if (atomic_compare_exchange_strong(&maps[i], &v, 0))
			break;
	}
	munmap(p, APPENDER_CHUNK);
}

/* The spool is no longer the file it was: says so once and stops
 * sampling. async-signal-safe */
static void
lose_spool(void)
{
	if (atomic_exchange(&lost, 1))
		return;
	atomic_store(&prof_state.enabled, 0);
	log_msg("%s: the spool was truncated or replaced while the program "
		"ran; profiling stopped", spool_shown);
}

/* Whether the file still has every chunk taken: it was cut (or emptied)
 * under us otherwise, and mapping a chunk of it would fault. The footer
 * cuts it too, but no chunk is taken after it (sealed, set before the
 * cut). The end is read before the file's size: the end moves only past
 * a chunk already given to the file (reserve_next), so a size read after
 * it covers it, whatever other threads reserve meanwhile; read the other
 * way round, a chunk another thread reserved in between looked like a
 * spool cut under us. async-signal-safe */
static int
spool_whole(int fd)
{
	struct stat st;
	uint64_t end = atomic_load(&next_off);
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size >= end)
		return 1;
	if (!atomic_load(&sealed))
		lose_spool();
	return 0;
}

/* The chunk at off, at pos, mapped for s: 0 or -ENOSPC. async-signal-safe */
static int
map_chunk(struct appender_stream *s, int fd, uint64_t off, uint32_t pos)
{
	void *p = mmap(NULL, APPENDER_CHUNK, PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, (off_t)off);
	if (p == MAP_FAILED) {
		warn_room(errno);
		return -ENOSPC;
	}
	if (maps_add(p) < 0) {
		munmap(p, APPENDER_CHUNK);
		return -ENOSPC;
	}
	s->base = p;
	s->off = off;
	s->pos = pos;
	s->batch = 0;
	return 0;
}

/* Maps a chunk for s: one a thread left with room, or a new one at the
 * file's end. Returns 0 or -ENOSPC. async-signal-safe */
static int
new_chunk(struct appender_stream *s)
{
	uint64_t now = prof_now_ns();
	if (s->base) {
		unmap_chunk(s->base);
		s->base = NULL;
	}
	if (chunk0_short || atomic_load(&lost) || atomic_load(&sealed) ||
	    now < atomic_load_explicit(&retry_after_ns, memory_order_relaxed))
		return -ENOSPC;
	int fd = spool_fd_get(1);
	if (fd < 0 || !spool_whole(fd))
		return -ENOSPC;
	uint64_t v = pool_take(), off = v & ~(uint64_t)(APPENDER_CHUNK - 1);
	uint32_t pos = (uint32_t)(v & (APPENDER_CHUNK - 1));
	if (!v) {
		int rc = reserve_next(fd, &off);
		if (rc > 0)
			return -ENOSPC; /* the footer is written */
		if (rc < 0) {
			atomic_store(&retry_after_ns, now + RETRY_DELAY_NS);
			warn_room(-rc);
			return -ENOSPC;
		}
	}
	return map_chunk(s, fd, off, pos);
}

/* Gives s a chunk with len bytes free: its own, or a new one (a pooled
 * chunk may have too little room, then one more is taken). Returns 0 or
 * as new_chunk. async-signal-safe */
static int
make_room(struct appender_stream *s, size_t len)
{
	for (int tries = 0; !s->base || APPENDER_CHUNK - s->pos < len; tries++) {
		int rc = tries < 2 ? new_chunk(s) : -ENOSPC;
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* async-signal-safe */
int
appender_append(struct appender_stream *s, const void *rec, size_t len)
{
	const uint8_t *r = rec;
	if (!prof_in_image())
		return -ESRCH;
	if (len < SPOOL_REC_HEADER_LEN || len > APPENDER_CHUNK - 16)
		return -ENOSPC;
	int rc = size_take(len);
	if (rc == 0 && (rc = make_room(s, len)) < 0)
		size_give(len);
	if (rc < 0)
		return rc;
	uint8_t *dst = s->base + s->pos;
	/* The type last: until it is stored, the record reads as unused
	 * space, so a kill in the middle leaves nothing half-written. */
	memcpy(dst + 4, r + 4, len - 4);
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(dst, r, 4);
	s->pos += (uint32_t)len;
	s->batch = 0; /* entries go after the chunk's last record only */
	if (r[0] == SPOOL_REC_SAMPLE && !r[1] && !r[2] && !r[3])
		atomic_fetch_add_explicit(&samples, 1, memory_order_relaxed);
	return 0;
}

/* Stores a record length with one instruction, so that no kill can
 * leave half of it. async-signal-safe */
typedef uint32_t __attribute__((aligned(1), may_alias)) unaligned_u32;

/* async-signal-safe */
static void
store_len(uint8_t *p, uint32_t v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	*(volatile unaligned_u32 *)p = v;
}

/* Grows the stream's batch record, when it is of type and the chunk has
 * room, by the entry: see appender_append_entry. Returns 1 when it did,
 * 0 when the entry needs a record of its own, -EFBIG at the size limit.
 * async-signal-safe */
static int
grow_batch(struct appender_stream *s, uint32_t type, const uint8_t *entry,
	   size_t len)
{
	if (!s->base || !s->batch || APPENDER_CHUNK - s->pos < len)
		return 0;
	uint8_t *rec = s->base + s->batch, *dst = s->base + s->pos;
	/* (The type as stored, little-endian; types are below 256.) */
	if (rec[0] != type || rec[1] || rec[2] || rec[3])
		return 0;
	if (size_take(len) < 0)
		return -EFBIG;
	store_len(rec + 4, s->pos + (uint32_t)len - s->batch -
				   SPOOL_REC_HEADER_LEN);
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(dst + 1, entry + 1, len - 1);
	atomic_signal_fence(memory_order_seq_cst);
	dst[0] = entry[0];
	s->pos += (uint32_t)len;
	return 1;
}

/* Stores a new batch record: head (hlen bytes, an empty record whose
 * length does not count the entry yet), then the entry, the type last.
 * Returns 0 or as make_room. async-signal-safe */
static int
start_batch(struct appender_stream *s, uint8_t *head, size_t hlen,
	    const uint8_t *entry, size_t len)
{
	size_t total = hlen + len;
	int rc = size_take(total);
	if (rc == 0 && (rc = make_room(s, total)) < 0)
		size_give(total);
	if (rc < 0)
		return rc;
	uint8_t *dst = s->base + s->pos;
	store_len(head + 4, (uint32_t)(total - SPOOL_REC_HEADER_LEN));
	memcpy(dst + 4, head + 4, hlen - 4);
	memcpy(dst + hlen, entry, len);
	atomic_signal_fence(memory_order_seq_cst);
	memcpy(dst, head, 4); /* the type last, as in appender_append */
	s->batch = s->pos;
	s->pos += (uint32_t)total;
	return 0;
}

/* async-signal-safe */
int
appender_append_entry(struct appender_stream *s, uint32_t tid,
		      uint64_t prev_time, uint64_t prev_weight,
		      const uint8_t *entry, size_t len)
{
	if (!prof_in_image())
		return -ESRCH;
	if (len == 0 || len > APPENDER_CHUNK - 64)
		return -ENOSPC;
	int grown = grow_batch(s, SPOOL_REC_SAMPLES, entry, len);
	if (grown < 0)
		return grown;
	if (!grown) {
		uint8_t head[SPOOL_REC_HEADER_LEN + SPOOL_SAMPLES_FIXED];
		struct spool_samples h = { .tid = tid, .stream = s->id,
					   .time_ns = prev_time,
					   .weight = prev_weight };
		struct spool_buf b;
		spool_buf_init(&b, head, sizeof(head));
		if (spool_put_samples(&b, &h, NULL, 0) < 0)
			return -ENOSPC;
		int rc = start_batch(s, head, sizeof(head), entry, len);
		if (rc < 0)
			return rc;
	}
	atomic_fetch_add_explicit(&samples, 1, memory_order_relaxed);
	return 0;
}

/* async-signal-safe */
int
appender_append_space_entry(struct appender_stream *s, uint32_t tid,
			    const struct spool_space_chain *prev,
			    const uint8_t *entry, size_t len)
{
	if (!prof_in_image())
		return -ESRCH;
	if (len == 0 || len > APPENDER_CHUNK - 64)
		return -ENOSPC;
	int grown = grow_batch(s, SPOOL_REC_ALLOCS, entry, len);
	if (grown)
		return grown < 0 ? grown : 0;
	uint8_t head[SPOOL_REC_HEADER_LEN + SPOOL_ALLOCS_FIXED];
	struct spool_allocs h = { .tid = tid, .stream = s->id, .prev = *prev };
	struct spool_buf b;
	spool_buf_init(&b, head, sizeof(head));
	if (spool_put_allocs(&b, &h, NULL, 0) < 0)
		return -ENOSPC;
	return start_batch(s, head, sizeof(head), entry, len);
}

void
appender_close_stream(struct appender_stream *s)
{
	if (!s->base)
		return;
	unmap_chunk(s->base);
	s->base = NULL;
	if (s->pos > APPENDER_CHUNK / 2 || !prof_in_image())
		return;
	uint64_t v = s->off | s->pos;
	if (v == 0)
		return;
	for (int i = 0; i < POOL_SIZE; i++) {
		uint64_t zero = 0;
		if (atomic_compare_exchange_strong(&pool[i], &zero, v))
			return;
	}
}

int
appender_shared(const void *rec, size_t len)
{
	/* Tried, and tried again, but never waited for: a signal handler of
	 * the program that frees memory may come here on a thread that holds
	 * the lock already. */
	int tries = 0;
	while (pthread_mutex_trylock(&shared_lock) != 0) {
		if (++tries == 100)
			return -EBUSY;
		sched_yield();
	}
	int rc = appender_append(&shared, rec, len);
	pthread_mutex_unlock(&shared_lock);
	return rc;
}

void
appender_shared_release(void)
{
	pthread_mutex_lock(&shared_lock);
	appender_close_stream(&shared);
	pthread_mutex_unlock(&shared_lock);
}

uint64_t
appender_samples(void)
{
	return atomic_load(&samples);
}

/* PROCESS.flags saying why the automatic choice passed perf over. */
static uint32_t
perf_refused_flags(void)
{
	int rc = prof_state.perf_refused;
	if (!rc || prof_state.timer == SPOOL_TIMER_PERF)
		return 0;
	return SPOOL_PROCESS_PERF_REFUSED |
	       (rc == -EACCES || rc == -EPERM ? SPOOL_PROCESS_PERF_DENIED : 0) |
	       (rc == -EMFILE || rc == -ENFILE ? SPOOL_PROCESS_PERF_NO_FD : 0);
}

static struct spool_str
str_of(const char *s, size_t len)
{
	return (struct spool_str){ s, (uint32_t)len };
}

static size_t
read_small_file(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || (len += (size_t)n) == cap)
			break;
	}
	close(fd);
	return len;
}

/* The file header and PROCESS record, at the start of chunk 0: their
 * length, or -errno (-EFBIG: the file-size limit leaves no room). */
static int
write_process(void)
{
	static char exe[4096], cmdline[8192];
	static uint8_t out[16384];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe));
	size_t cmd_len = read_small_file("/proc/self/cmdline", cmdline,
					 sizeof(cmdline));
	while (cmd_len && cmdline[cmd_len - 1] == '\0')
		cmd_len--;
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	struct spool_process p = {
		.pid = (uint32_t)getpid(), .ppid = (uint32_t)getppid(),
		.start_realtime_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec,
		.start_mono_ns = prof_state.start_mono_ns,
		.timer = (uint32_t)prof_state.timer, .clock = (uint32_t)prof_state.cfg.clock,
		/* --no-time: no period, no rate. */
		.period_ns = prof_state.cfg.time ? prof_state.period_ns : 0,
		.requested_hz = prof_state.cfg.time ? prof_state.cfg.hz : 0,
		.max_depth = prof_state.cfg.max_depth,
		.exe = str_of(exe, n > 0 ? (size_t)n : 0),
		.cmdline = str_of(cmdline, cmd_len),
		.flags = (prof_state.timer == SPOOL_TIMER_PERF ?
				  SPOOL_PROCESS_USER_ONLY : 0) |
			 (prof_state.timer == SPOOL_TIMER_PERF &&
					  prof_state.cfg.time &&
					  prof_state.cfg.jitter ?
				  SPOOL_PROCESS_JITTER : 0) |
			 perf_refused_flags(),
		.space_interval = prof_state.cfg.space_interval,
	};
	struct spool_buf b;
	spool_buf_init(&b, out, sizeof(out));
	spool_put_file_header(&b, APPENDER_CHUNK);
	if (spool_put_process(&b, &p) < 0)
		return -ENOSPC;
	if (!fsize_allows(b.len))
		return -EFBIG;
	int rc = pwrite_all(spool_fd, out, b.len, 0);
	return rc < 0 ? rc : (int)b.len;
}

/* Chunk 0, reserved whole, goes to the first stream that needs a chunk:
 * a short run's records fit beside the header. Where the file-size limit
 * leaves no room for it, the spool keeps its header alone, and its
 * footer after it. hdr: the header's and PROCESS record's length. */
static void
start_chunk0(uint32_t hdr)
{
	atomic_store(&used, hdr);
	chunk0_end = hdr;
	chunk0_short = 0;
	int rc = reserve(spool_fd, 0);
	if (rc == 0) {
		atomic_store(&pool[0], hdr);
		return;
	}
	chunk0_short = 1;
	log_msg("%s: cannot extend the spool (%s); samples are dropped and "
		"counted", spool_shown, error_words(-rc));
}

/* Creates the spool on a fresh name; or takes over the empty file profrun
 * created for it, provided it is still a regular file of ours (a symlink
 * planted there is not followed). */
static int
open_spool(const char *path)
{
	const int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(path, flags | O_CREAT | O_EXCL, 0600);
	if (fd >= 0 || errno != EEXIST)
		return fd >= 0 ? fd : -errno;
	fd = open(path, flags);
	if (fd < 0)
		return -errno;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size != 0 ||
	    st.st_uid != geteuid()) {
		close(fd);
		return -EEXIST;
	}
	return fd;
}

/* Opens this image's spool: the one profrun prepared, for the process it
 * started; OUTPUT.PID for any other process, or OUTPUT.PID.N (the first
 * free N) when that exists, e.g. after an exec in the same process. O_EXCL
 * makes sure no two processes ever write the same file. */
static int
open_image_spool(char *path, size_t cap)
{
	const struct prof_config *cfg = &prof_state.cfg;
	int fd = -EEXIST;
	if (cfg->primary) {
		log_snprintf(path, cap, "%s", cfg->spool_path);
		fd = open_spool(path);
	}
	for (int n = 0; fd == -EEXIST && n < 1000; n++) {
		if (n == 0)
			log_snprintf(path, cap, "%s.%d", cfg->output, (int)getpid());
		else
			log_snprintf(path, cap, "%s.%d.%d", cfg->output, (int)getpid(), n);
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

int
appender_open(void)
{
	const struct prof_config *cfg = &prof_state.cfg;
	int rc = open_image_spool(spool_name, sizeof(spool_name));
	if (rc < 0)
		return rc;
	/* Only the spool profrun prepared is renamed; OUTPUT.PID[.N] keep
	 * their names. */
	spool_shown = cfg->primary && strcmp(spool_name, cfg->spool_path) == 0
			      ? cfg->spool_final
			      : spool_name;
	/* Keep the descriptor out of the numbers the target uses (the
	 * caller is the only thread: start-up, or a forked child). */
	spool_fd = prof_fd_raise_start(rc, SPOOL_FD_MIN);
	if (spool_fd < 0) {
		rc = spool_fd;
		spool_fd = -1;
		return rc;
	}
	struct stat st;
	if (fstat(spool_fd, &st) != 0) {
		rc = -errno;
		close(spool_fd);
		spool_fd = -1;
		return rc;
	}
	spool_dev = st.st_dev;
	spool_ino = st.st_ino;
	atomic_store(&lost_since_ns, 0);
	atomic_store(&next_off, APPENDER_CHUNK);
	atomic_store(&retry_after_ns, 0);
	atomic_store(&warned_room, 0);
	atomic_store(&samples, 0);
	atomic_store(&size_limit_ns, 0);
	gate_size(0);
	atomic_store(&finish_state, 0);
	atomic_store(&sealed, 0);
	atomic_store(&lost, 0);
	for (int i = 0; i < POOL_SIZE; i++)
		atomic_store(&pool[i], 0);
	rc = write_process();
	if (rc < 0)
		return rc;
	start_chunk0((uint32_t)rc);
	return 0;
}

const char *
appender_path(void)
{
	return spool_name;
}

/* The value in kB of field name ("VmHWM:") in the text of
 * /proc/self/status, in bytes; 0 when absent. async-signal-safe */
static uint64_t
status_bytes(const char *text, const char *name)
{
	const char *p = strstr(text, name);
	if (!p)
		return 0;
	p += strlen(name);
	while (*p == ' ' || *p == '\t')
		p++;
	uint64_t kb = 0;
	while (*p >= '0' && *p <= '9')
		kb = kb * 10 + (uint64_t)(*p++ - '0');
	return kb * 1024;
}

/* The process's peak resident set and its anonymous and file pages now,
 * for the analyzer to tell memory the program mapped itself, which the
 * space sampler cannot see. async-signal-safe */
static void
read_rss(struct spool_footer *f)
{
	char text[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	f->rss_peak = status_bytes(text, "VmHWM:");
	f->rss_anon = status_bytes(text, "RssAnon:");
	f->rss_file = status_bytes(text, "RssFile:") +
		      status_bytes(text, "RssShmem:");
}

/* async-signal-safe */
static void
write_footer(uint32_t end_reason, uint32_t end_signal)
{
	uint8_t out[SPOOL_REC_HEADER_LEN + 256];
	uint64_t utime, stime;
	prof_cpu_ns(&utime, &stime);
	struct spool_footer f;
	memset(&f, 0, sizeof(f));
	f.end_mono_ns = prof_now_ns();
	f.utime_ns = utime > prof_state.base_utime_ns
			     ? utime - prof_state.base_utime_ns : 0;
	f.stime_ns = stime > prof_state.base_stime_ns
			     ? stime - prof_state.base_stime_ns : 0;
	f.threads = atomic_load(&prof_state.threads_seen);
	for (int i = 1; i < SPOOL_DROP_MAX_; i++)
		f.drops[i] = atomic_load(&prof_state.drops[i]);
	f.samples = atomic_load(&samples);
	f.end_reason = end_reason;
	f.end_signal = end_signal;
	read_rss(&f);
	f.clone_processes = atomic_load(&prof_state.clone_processes);
	f.clone_threads = atomic_load(&prof_state.clone_threads);
	f.size_limit = prof_state.cfg.max_size;
	f.size_limit_ns = atomic_load(&size_limit_ns);
	struct spool_buf b;
	spool_buf_init(&b, out, sizeof(out));
	if (spool_put_footer(&b, &f) < 0)
		return;
	int fd = spool_fd_get(0);
	if (fd < 0 || atomic_load(&lost))
		return;
	/* A chunk after every other: the last footer in the file is the
	 * last one written (an exec that failed writes a second). No chunk
	 * is taken after it: the file is cut at its end. */
	uint64_t off = chunk0_end;
	if (!chunk0_short) {
		atomic_store(&sealed, 1);
		off = atomic_fetch_add(&next_off, APPENDER_CHUNK);
		footer_off = off;
	}
	int rc = -EFBIG;
	if ((chunk0_short && off + b.len > APPENDER_CHUNK) ||
	    !fsize_allows(off + b.len) ||
	    (rc = pwrite_all(fd, out, b.len, off)) < 0) {
		log_msg("%s: cannot write the spool's footer (%s)", spool_shown,
			error_words(-rc));
		return;
	}
	if (chunk0_short)
		chunk0_end = off + b.len;
	else
		(void)!ftruncate(fd, (off_t)(off + b.len));
}

/* async-signal-safe */
int
appender_finish(uint32_t end_reason, uint32_t end_signal)
{
	int expect = 0;
	if (!prof_in_image())
		return -EBADF;
	if (!atomic_compare_exchange_strong(&finish_state, &expect, 1)) {
		/* Another thread is ending the image: let it write the
		 * footer before this one goes on to end the process. */
		for (int i = 0; i < 1000 && atomic_load(&finish_state) == 1; i++) {
			struct timespec ms = { 0, 1000000 };
			nanosleep(&ms, NULL);
		}
		return -EALREADY;
	}
	if (spool_fd < 0) {
		atomic_store(&finish_state, 2);
		return -EBADF;
	}
	void (*hook)(void) = atomic_load(&finish_hook);
	if (hook)
		hook();
	write_footer(end_reason, end_signal);
	/* After an exec that fails the process goes on, and so does its
	 * spool. Otherwise the descriptor is closed, unless its number now
	 * belongs to the program. */
	if (end_reason != SPOOL_END_EXEC && fd_ours(spool_fd)) {
		close(spool_fd);
		spool_fd = -1;
	}
	atomic_store(&finish_state, 2);
	return 0;
}

void
appender_set_finish_hook(void (*hook)(void))
{
	atomic_store(&finish_hook, hook);
}

/* async-signal-safe */
int
appender_put_chunk(const void *recs, size_t len)
{
	uint64_t off;
	if (!prof_in_image())
		return -ESRCH;
	if (len > APPENDER_CHUNK)
		return -EINVAL;
	int fd = spool_fd_get(0);
	if (fd < 0)
		return -EBADF;
	if (chunk0_short || atomic_load(&lost) || atomic_load(&sealed) ||
	    !spool_whole(fd))
		return -ENOSPC;
	int rc = size_take(len);
	if (rc < 0)
		return rc;
	/* Reserved whole first, as any chunk: no hole is left before the
	 * footer's chunk whatever happens to the write. */
	rc = reserve_next(fd, &off);
	if (rc == 0)
		rc = pwrite_all(fd, recs, len, off);
	if (rc != 0)
		size_give(len);
	return rc > 0 ? -ENOSPC : rc;
}

/* async-signal-safe */
int
appender_fault(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	for (int i = 0; i < MAPS_MAX; i++) {
		uintptr_t base = atomic_load_explicit(&maps[i],
						      memory_order_relaxed);
		if (!base || a < base || a - base >= APPENDER_CHUNK)
			continue;
		/* The store is retried into memory that is thrown away. */
		if (mmap((void *)base, APPENDER_CHUNK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
		    MAP_FAILED)
			return 0;
		lose_spool();
		return 1;
	}
	return 0;
}

/* The footer's chunk is given back its blocks, so that chunks taken
 * after it leave no hole (see reserve_next); where it cannot be, no
 * chunk is taken any more. */
void
appender_resume(void)
{
	int fd = spool_fd_get(0);
	if (!chunk0_short && atomic_load(&sealed) && fd >= 0 &&
	    !atomic_load(&lost) && reserve(fd, footer_off) == 0)
		atomic_store(&sealed, 0);
	atomic_store(&finish_state, 0);
}

void
appender_prefork(void)
{
	pthread_mutex_lock(&shared_lock);
}

void
appender_postfork_parent(void)
{
	pthread_mutex_unlock(&shared_lock);
}

void
appender_forget_stream(struct appender_stream *s)
{
	if (s->base)
		unmap_chunk(s->base);
	memset(s, 0, sizeof(*s));
}

void
appender_postfork_child(void)
{
	pthread_mutex_init(&shared_lock, NULL);
	appender_forget_stream(&shared);
	/* The parent's spool and chunks are the parent's. */
	if (fd_ours(spool_fd))
		close(spool_fd);
	spool_fd = -1;
	for (int i = 0; i < POOL_SIZE; i++)
		atomic_store(&pool[i], 0);
	for (int i = 0; i < MAPS_MAX; i++)
		atomic_store(&maps[i], 0);
	atomic_store(&finish_state, 2);
}
