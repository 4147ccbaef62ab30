/*
 * writer: spool file and writer thread (see writer.h).
 *
 * Every cycle (WRITER_PERIOD_MS) the thread checks for module changes and
 * drains all rings into one buffer, then writes it: a target killed with
 * SIGKILL loses at most the last cycle, and what is on disk always ends on
 * a whole record. Records of different threads are not in time order in
 * the file; each carries its own time.
 */
#include "writer.h"

#include "control.h"
#include "log.h"
#include "modules.h"
#include "ring.h"
#include "state.h"
#include "threads.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WRITER_PERIOD_MS 20
#define WRITER_BUF (1u << 20)
#define CONTROL_RING (256u * 1024)

static int spool_fd = -1;
static char spool_name[PATH_MAX];
/* What spool_fd is: a program that closes every descriptor it does not
 * know of (closefrom) may reuse the number for a file of its own, which
 * must never receive spool records nor be closed by us. */
static dev_t spool_dev;
static ino_t spool_ino;

/* async-signal-safe */
static int
spool_fd_ours(void)
{
	struct stat st;
	return spool_fd >= 0 && fstat(spool_fd, &st) == 0 &&
	       st.st_dev == spool_dev && st.st_ino == spool_ino;
}

/* The program closed the spool's descriptor (as a process about to exec
 * does when it closes every descriptor it does not know of): opens the
 * spool again by its name, provided it is still the same file, and puts
 * it out of the program's way again. Returns 0 or -1.
 * async-signal-safe */
static int
reopen_spool(void)
{
	struct stat st;
	int fd = open(spool_name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_dev != spool_dev ||
	    st.st_ino != spool_ino) {
		close(fd);
		return -1;
	}
	spool_fd = prof_fd_raise(fd, 512);
	return 0;
}

/* Closes the spool, unless its number now belongs to the program.
 * async-signal-safe */
static void
close_spool(void)
{
	if (spool_fd_ours())
		close(spool_fd);
	spool_fd = -1;
}
static uint8_t out[WRITER_BUF];
static size_t out_len;
static uint64_t samples_written;
static uint64_t samples_lost;

static pthread_t thread;
static int thread_running;
static int finished;
static pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;
/* The writer sleeps on this word (a futex) between cycles; a change of
 * it wakes it early: to stop, or to look at the modules now. */
static _Atomic uint32_t wake_word;
static _Atomic int stop;
/* Early looks at the modules (writer_nudge): when the last was asked
 * for, and how soon the next may be. A library being loaded is not
 * listed until its constructors have run, so a look asked for from one
 * of them finds nothing, and the next must come soon after; a PC in no
 * module at all (generated code) asks on every walk, but a look that
 * finds the loader's counters unchanged costs one dl_iterate_phdr
 * callback (modules_poll). */
#define NUDGE_MIN_NS 1000000ull
static _Atomic uint64_t nudged_ns;
static struct ring *control;

static void
count_samples(const uint8_t *p, size_t len, uint64_t *count)
{
	struct spool_cursor c = { .data = p, .size = len, .pos = 0 };
	struct spool_rec rec;
	while (spool_next(&c, &rec) == SPOOL_OK)
		if (rec.type == SPOOL_REC_SAMPLE)
			(*count)++;
}

/* When the writer thread first saw the spool's descriptor closed by the
 * program, or 0. */
static uint64_t spool_lost_ns;

/* A program that has just closed every descriptor it does not know of
 * usually goes on to open or dup its own and may count on getting the
 * lowest free numbers; an open of ours in another thread meanwhile would
 * take one. So the writer thread reopens the spool only this long after
 * it saw it gone; a program's own thread (exit, exec, profrun_flush)
 * reopens it at once, since the program is not opening anything then. */
#define REOPEN_DELAY_NS 200000000ull

/* Whether the spool can be written now: 1 yes, 0 not yet (the writer
 * thread waits before reopening it), -1 never (profiling was turned off).
 * async-signal-safe */
static int
spool_writable(void)
{
	if (spool_fd < 0)
		return -1;
	if (spool_fd_ours()) {
		spool_lost_ns = 0;
		return 1;
	}
	uint64_t now = prof_now_ns();
	if (thread_running && pthread_equal(pthread_self(), thread)) {
		if (!spool_lost_ns)
			spool_lost_ns = now;
		if (now - spool_lost_ns < REOPEN_DELAY_NS)
			return 0;
	}
	if (reopen_spool() == 0) {
		spool_lost_ns = 0;
		return 1;
	}
	prof_disable("the program closed the spool's descriptor and the spool "
		     "cannot be opened again");
	spool_fd = -1;
	return -1;
}

/* Writes p whole; returns the bytes written, fewer after an error (which
 * turns profiling off). */
static size_t
write_all(const uint8_t *p, size_t len)
{
	size_t done = 0;
	while (done < len && spool_fd >= 0) {
		ssize_t n = write(spool_fd, p + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			prof_disable("cannot write the spool file");
			close_spool();
			break;
		}
		done += (size_t)n;
	}
	return done;
}

/* Under drain_lock: writes the buffered records (or keeps them while
 * the spool waits to be reopened and the buffer has room). */
static void
flush(void)
{
	int writable = out_len ? spool_writable() : 1;
	if (writable == 0 && WRITER_BUF - out_len >= 64 * 1024)
		return;
	/* (Full while waiting: the records are lost, never written to a
	 * descriptor that is not the spool's.) */
	size_t done = writable > 0 ? write_all(out, out_len) : 0;
	count_samples(out, done, &samples_written);
	count_samples(out + done, out_len - done, &samples_lost);
	out_len = 0;
}

/* Under drain_lock: moves all of r into the file. */
static void
drain_ring(struct ring *r)
{
	while (ring_used(r)) {
		size_t n = ring_drain(r, out + out_len, WRITER_BUF - out_len);
		out_len += n;
		if (n == 0 || WRITER_BUF - out_len < 64 * 1024)
			flush();
	}
}

/* Under drain_lock: moves every ring into the file. */
static void
drain_all_locked(void)
{
	drain_ring(control);
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = threads_slot(i);
		int st = atomic_load(&t->state);
		if (st != THREAD_LIVE && st != THREAD_EXITED)
			continue;
		drain_ring(t->ring);
		if (st == THREAD_EXITED)
			threads_release(t);
	}
	flush();
}

static void
drain_all(void)
{
	pthread_mutex_lock(&drain_lock);
	drain_all_locked();
	pthread_mutex_unlock(&drain_lock);
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

static int
write_process(void)
{
	static char exe[4096], cmdline[8192];
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
		.flags = prof_state.timer == SPOOL_TIMER_PERF ?
				 SPOOL_PROCESS_USER_ONLY : 0,
		.space_interval = prof_state.cfg.space_interval,
	};
	struct spool_buf b;
	spool_buf_init(&b, out, sizeof(out));
	spool_put_file_header(&b);
	if (spool_put_process(&b, &p) < 0)
		return -ENOSPC;
	return write_all(out, b.len) == b.len ? 0 : -EIO;
}

/* Creates the spool on a fresh name; or takes over the empty file profrun
 * created for it, provided it is still a regular file of ours (a symlink
 * planted there is not followed). */
static int
open_spool(const char *path)
{
	const int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
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
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			  0600);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

int
writer_open(void)
{
	if (!control)
		control = ring_create(CONTROL_RING);
	if (!control)
		return -ENOMEM;
	int rc = open_image_spool(spool_name, sizeof(spool_name));
	if (rc < 0)
		return rc;
	spool_fd = rc;
	/* Keep the descriptor out of the low numbers the target uses. */
	spool_fd = prof_fd_raise(spool_fd, 512);
	struct stat st;
	if (fstat(spool_fd, &st) != 0) {
		rc = -errno;
		close(spool_fd);
		spool_fd = -1;
		return rc;
	}
	spool_dev = st.st_dev;
	spool_ino = st.st_ino;
	finished = 0;
	samples_written = samples_lost = 0;
	return write_process();
}

const char *
writer_path(void)
{
	return spool_name;
}

void
writer_flush(void)
{
	if (spool_fd >= 0)
		drain_all();
}

int
writer_try_flush(void)
{
	if (spool_fd < 0)
		return -EBADF;
	if (pthread_mutex_trylock(&drain_lock) != 0)
		return -EBUSY;
	if (spool_fd >= 0)
		drain_all_locked();
	pthread_mutex_unlock(&drain_lock);
	return 0;
}

void
writer_control(const void *rec, size_t len)
{
	pthread_mutex_lock(&control_lock);
	if (control && ring_push(control, rec, len) < 0)
		log_msg("control record lost: ring full");
	pthread_mutex_unlock(&control_lock);
}

/* async-signal-safe */
static void
wake_writer(void)
{
	atomic_fetch_add(&wake_word, 1);
	syscall(SYS_futex, &wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* async-signal-safe */
void
writer_nudge(void)
{
	uint64_t now = prof_now_ns();
	uint64_t last = atomic_load_explicit(&nudged_ns, memory_order_relaxed);
	if (!thread_running || now - last < NUDGE_MIN_NS ||
	    !atomic_compare_exchange_strong(&nudged_ns, &last, now))
		return;
	wake_writer();
}

static void *
writer_main(void *arg)
{
	uint64_t last_repair = prof_now_ns();
	(void)arg;
	while (!atomic_load(&stop)) {
		uint32_t seen = atomic_load(&wake_word);
		struct timespec period = { 0, WRITER_PERIOD_MS * 1000000L };
		/* stop again, after seen: stop_thread sets it before it
		 * bumps the word, so a bump this wait would miss is seen
		 * here. */
		if (!atomic_load(&stop))
			syscall(SYS_futex, &wake_word, FUTEX_WAIT_PRIVATE, seen,
				&period, NULL, 0);
		if (atomic_load(&stop))
			break;
		uint64_t now = prof_now_ns();
		control_tick(now);
		threads_reap_adopted();
		/* One ioctl per thread: every 100 ms is enough. */
		if (now - last_repair >= 5 * WRITER_PERIOD_MS * 1000000ull) {
			threads_repair_timers(now);
			last_repair = now;
		}
		modules_poll();
		drain_all();
	}
	return NULL;
}

int
writer_start(void)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = threads_real_create(&thread, writer_main);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	thread_running = 1;
	return 0;
}

static void
write_footer(uint32_t end_reason, uint32_t end_signal)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	struct spool_footer f;
	memset(&f, 0, sizeof(f));
	f.end_mono_ns = prof_now_ns();
	f.utime_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
		     (uint64_t)ru.ru_utime.tv_usec * 1000u;
	f.stime_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
		     (uint64_t)ru.ru_stime.tv_usec * 1000u;
	f.threads = atomic_load(&prof_state.threads_seen);
	for (int i = 1; i < SPOOL_DROP_MAX_; i++)
		f.drops[i] = atomic_load(&prof_state.drops[i]);
	f.drops[SPOOL_DROP_WRITE] += samples_lost;
	f.samples = samples_written;
	f.end_reason = end_reason;
	f.end_signal = end_signal;
	struct spool_buf b;
	spool_buf_init(&b, out, sizeof(out));
	spool_put_footer(&b, &f);
	out_len = b.len;
	flush();
}

static void
stop_thread(void)
{
	if (!thread_running)
		return;
	atomic_store(&stop, 1);
	wake_writer();
	pthread_join(thread, NULL);
	thread_running = 0;
	stop = 0;
}

void
writer_finish(uint32_t end_reason, uint32_t end_signal)
{
	if (finished || spool_fd < 0)
		return;
	finished = 1;
	stop_thread();
	modules_poll();
	drain_all();
	pthread_mutex_lock(&drain_lock);
	write_footer(end_reason, end_signal);
	/* After an exec that fails the process goes on, and so does its
	 * spool: a later footer supersedes this one. */
	if (end_reason != SPOOL_END_EXEC)
		close_spool();
	pthread_mutex_unlock(&drain_lock);
}

void
writer_resume(void)
{
	finished = 0;
	writer_start();
}

/* async-signal-safe */
void
writer_finish_from_signal(uint32_t end_reason, uint32_t end_signal)
{
	if (finished || spool_fd < 0)
		return;
	finished = 1;
	/* The writer thread may be mid-drain: give it a moment, then go
	 * ahead anyway (it is about to die with the process). */
	int locked = 0;
	for (int i = 0; i < 100 && !(locked = !pthread_mutex_trylock(&drain_lock)); i++) {
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	drain_ring(control);
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = threads_slot(i);
		int st = atomic_load(&t->state);
		if (st == THREAD_LIVE || st == THREAD_EXITED)
			drain_ring(t->ring);
	}
	flush();
	write_footer(end_reason, end_signal);
	if (locked)
		pthread_mutex_unlock(&drain_lock);
}

void
writer_prefork(void)
{
	pthread_mutex_lock(&control_lock);
	pthread_mutex_lock(&drain_lock);
}

void
writer_postfork_parent(void)
{
	pthread_mutex_unlock(&drain_lock);
	pthread_mutex_unlock(&control_lock);
}

void
writer_postfork_child(void)
{
	pthread_mutex_init(&drain_lock, NULL);
	pthread_mutex_init(&control_lock, NULL);
	/* The parent's spool and writer thread are the parent's. */
	close_spool();
	thread_running = 0;
	stop = 0;
	finished = 1;
	out_len = 0;
	if (control)
		ring_reset(control);
}
