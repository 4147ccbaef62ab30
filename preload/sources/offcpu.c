/*
 * offcpu: the poller of blocked threads (see offcpu.h).
 *
 * Layer: sources; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "offcpu.h"

#include "gate.h"
#include "log.h"
#include "real.h"
#include "spool.h"
#include "state.h"
#include "threads.h"
#include "unwind.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* An episode's weight goes to the spool at least this often. */
#define OFFCPU_FLUSH_NS 100000000ull
/* The poller's period stretches to this many times its last tick's
 * cost, and at most to this long. */
#define OFFCPU_COST_FACTOR 50
#define OFFCPU_MAX_PERIOD_NS 50000000ull
/* A tick longer than this many periods after the last one (the poller
 * was not scheduled) weighs this many periods only. */
#define OFFCPU_MAX_TICKS 10
/* The most of a blocked thread's stack copied for a walk; deeper frames
 * are read one by one, a few dozen at most. */
#define OFFCPU_SNAP (128 * 1024)
/* How long after losing a descriptor the poller opens it again. */
#define OFFCPU_REOPEN_DELAY_NS 200000000ull
/* Descriptors are kept at or above this number, out of the target's way. */
#define OFFCPU_FD_BASE 600
/* And this many below the descriptor limit are left to the target. */
#define OFFCPU_FD_RESERVE 64

/* Where a blocked thread is: what its syscall file says, and its CPU
 * clock. Two equal keys a tick apart mean it never ran in between. */
struct key {
	char line[160];
	uint64_t cpu_ns;
};

struct watch {
	pid_t tid;      /* whose descriptor fd is; 0: none */
	int fd;         /* /proc/self/task/TID/syscall, or -1 */
	dev_t dev;      /* and what it is, to tell it from a file the */
	ino_t ino;      /* program put at that number after closing ours */
	int refused;    /* no descriptor could be had for tid */
	uint64_t retry_ns; /* no reopening before this (see tick) */
	int valid;      /* key and pcs describe the current episode */
	struct key key;
	uint64_t since_ns, weight;
	uint32_t depth;
	uint16_t flags;
	uint64_t pcs[SPOOL_MAX_DEPTH];
};

static struct watch *watches; /* THREADS_MAX, mmap'd */
static uint8_t *snap;          /* OFFCPU_SNAP bytes, mmap'd */
static pthread_t poller;
static int running;
static _Atomic int stop;
static pthread_mutex_t tick_lock = PTHREAD_MUTEX_INITIALIZER;
static int fds_open, fds_max;

static void
emit(struct watch *w)
{
	uint8_t buf[SPOOL_REC_HEADER_LEN + 64 + SPOOL_MAX_DEPTH * 8];
	struct spool_buf b;
	struct spool_sample s = {
		.time_ns = w->since_ns,
		.tid = (uint32_t)w->tid,
		.kind = SPOOL_SAMPLE_TIME,
		.flags = (uint16_t)(w->flags | SPOOL_SAMPLE_OFF_CPU),
		.weight = w->weight,
		.depth = w->depth,
	};

	if (!w->valid || !w->weight)
		return;
	spool_buf_init(&b, buf, sizeof(buf));
	if (spool_put_sample(&b, &s, w->pcs) == 0) {
		if (threads_emit(buf, b.len) == 0)
			gate_count_sample();
	}
	w->weight = 0;
}

static void
end_episode(struct watch *w)
{
	emit(w);
	w->valid = 0;
}

/* Whether fd is still the file watch_open opened: a program may close
 * every descriptor it does not know of (closefrom) and reuse the number. */
static int
still_ours(const struct watch *w)
{
	struct stat st;
	return fstat(w->fd, &st) == 0 && st.st_dev == w->dev &&
	       st.st_ino == w->ino;
}

static void
forget(struct watch *w)
{
	end_episode(w);
	if (w->fd >= 0) {
		/* A number the program reused is the program's to close. */
		if (still_ours(w))
			close(w->fd);
		fds_open--;
	}
	w->fd = -1;
	w->tid = 0;
	w->refused = 0;
}

/* Opens the syscall file of w->tid on a descriptor out of the target's
 * way. Returns 0 or -1. */
static int
watch_open(struct watch *w)
{
	char path[64];
	pid_t tid = w->tid;
	if (fds_open >= fds_max) {
		w->refused = 1;
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		w->refused = 1;
		return -1;
	}
	int high = prof_fd_raise(fd, OFFCPU_FD_BASE);
	if (high < 0) {
		w->refused = 1;
		return -1;
	}
	struct stat st;
	if (fstat(high, &st) != 0) {
		close(high);
		w->refused = 1;
		return -1;
	}
	w->fd = high;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	fds_open++;
	return 0;
}

/* Reads where thread tid is. Returns 1 when blocked (key filled, *pc and
 * *sp set), 0 when running, -1 when it cannot be told (gone). */
static int
read_key(struct watch *w, struct key *k, uint64_t *pc, uint64_t *sp)
{
	ssize_t n = pread(w->fd, k->line, sizeof(k->line) - 1, 0);
	if (n <= 0)
		return -1;
	k->line[n] = '\0';
	if (strncmp(k->line, "running", 7) == 0)
		return 0;
	/* "NR ARG1..ARG6 SP PC", or "-1 SP PC" when not in a system call. */
	char *last = strrchr(k->line, ' ');
	if (!last)
		return -1;
	char *end;
	*pc = strtoull(last + 1, &end, 16);
	char *prev = last;
	while (prev > k->line && prev[-1] != ' ')
		prev--;
	if (prev == k->line)
		return -1;
	*sp = strtoull(prev, &end, 16);
	if (!*pc || !*sp)
		return -1;
	struct timespec ts;
	if (clock_gettime(prof_thread_clock(w->tid), &ts) != 0)
		return -1;
	k->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return 1;
}

static int
same_key(const struct key *a, const struct key *b)
{
	return a->cpu_ns == b->cpu_ns && strcmp(a->line, b->line) == 0;
}

/* Copies the thread's stack from sp up (to its top when known) into
 * snap, page by page so that the copy ends where the mapping does.
 * Returns the bytes copied. */
static uint64_t
copy_stack(uint64_t sp, uint64_t stack_hi)
{
	struct iovec local, remote[OFFCPU_SNAP / 4096 + 1];
	uint64_t len = OFFCPU_SNAP;
	int n = 0;

	if (stack_hi > sp && stack_hi - sp < len)
		len = stack_hi - sp;
	/* Nothing past the top of the address space: a thread can block
	 * with any value in %rsp, and sp + len must not wrap. */
	if (len > UINT64_MAX - sp)
		len = UINT64_MAX - sp;
	for (uint64_t done = 0; done < len &&
	     n < (int)(sizeof(remote) / sizeof(remote[0]));) {
		uint64_t a = sp + done, part = 4096 - (a & 4095);
		if (part > len - done)
			part = len - done;
		remote[n].iov_base = (void *)a;
		remote[n].iov_len = part;
		n++;
		done += part;
	}
	local.iov_base = snap;
	local.iov_len = len;
	ssize_t got = process_vm_readv(getpid(), &local, 1, remote,
				       (unsigned long)n, 0);
	return got > 0 ? (uint64_t)got : 0;
}

/* A new blocking episode: copies the stack, and if the thread stayed
 * still meanwhile (so the copy is of one moment), walks the copy. */
static void
start_episode(struct watch *w, const struct thread_slot *t,
	      const struct key *k, uint64_t pc, uint64_t sp, uint64_t now,
	      uint64_t elapsed)
{
	struct key again;
	uint64_t pc2, sp2;

	uint64_t len = copy_stack(sp, t->stack_hi);
	if (read_key(w, &again, &pc2, &sp2) != 1 || !same_key(k, &again))
		return; /* it ran: the copy may be of a changing stack */
	atomic_fetch_add_explicit(&threads_walker_seq, 1, memory_order_seq_cst);
	w->depth = unwind_blocked(pc, sp, snap, len, w->pcs,
				  prof_state.cfg.max_depth, &w->flags);
	atomic_fetch_add_explicit(&threads_walker_seq, 1, memory_order_release);
	w->key = *k;
	w->valid = 1;
	w->since_ns = now;
	w->weight = elapsed;
}

static void
tick(uint64_t now, uint64_t elapsed)
{
	int on = atomic_load_explicit(&prof_state.enabled, memory_order_relaxed) &&
		 gate_open();
	uint32_t used = threads_used();

	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = threads_slot(i);
		struct watch *w = &watches[i];
		pid_t tid = t->tid;
		if (atomic_load(&t->state) != THREAD_LIVE || tid <= 0) {
			if (w->tid)
				forget(w);
			continue;
		}
		if (w->tid != tid) {
			forget(w);
			w->tid = tid;
			w->retry_ns = 0;
		}
		if (w->refused || (w->fd < 0 && now < w->retry_ns))
			continue;
		if (w->fd < 0 && watch_open(w) < 0) {
			prof_drop(SPOOL_DROP_NO_RING);
			continue;
		}
		struct key k;
		uint64_t pc = 0, sp = 0;
		int st = read_key(w, &k, &pc, &sp);
		if (st < 0) {
			/* The thread is gone (its slot says so soon), or the
			 * program closed the descriptor: then it is opened again,
			 * but not at once, since a program that has just closed
			 * every descriptor it does not know of may count on
			 * getting the lowest numbers for its next ones. */
			pid_t keep = w->tid;
			forget(w);
			w->tid = keep;
			w->retry_ns = now + OFFCPU_REOPEN_DELAY_NS;
			continue;
		}
		if (st == 0 || !on) {
			end_episode(w);
			continue;
		}
		if (w->valid && same_key(&w->key, &k)) {
			w->weight += elapsed;
			if (now - w->since_ns >= OFFCPU_FLUSH_NS) {
				emit(w);
				w->since_ns = now;
			}
			continue;
		}
		end_episode(w);
		start_episode(w, t, &k, pc, sp, now, elapsed);
	}
}

static void
flush_all(void)
{
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++)
		if (watches[i].tid)
			forget(&watches[i]);
}

static void *
poller_main(void *arg)
{
	(void)arg;
	uint64_t base = prof_state.period_ns, period = base;
	uint64_t last = prof_now_ns();
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&stop)) {
		uint64_t ns = (uint64_t)next.tv_nsec + period;
		next.tv_sec += (time_t)(ns / 1000000000u);
		next.tv_nsec = (long)(ns % 1000000000u);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		if (atomic_load(&stop))
			break;
		uint64_t now = prof_now_ns();
		uint64_t elapsed = now - last;
		if (elapsed > OFFCPU_MAX_TICKS * period)
			elapsed = OFFCPU_MAX_TICKS * period;
		last = now;
		pthread_mutex_lock(&tick_lock);
		tick(now, elapsed);
		pthread_mutex_unlock(&tick_lock);
		uint64_t cost = prof_now_ns() - now;
		period = cost * OFFCPU_COST_FACTOR;
		if (period < base)
			period = base;
		if (period > OFFCPU_MAX_PERIOD_NS)
			period = OFFCPU_MAX_PERIOD_NS;
		/* Behind by more than a period (a slow tick, a suspended
		 * poller): start counting from now. */
		uint64_t due = (uint64_t)next.tv_sec * 1000000000u +
			       (uint64_t)next.tv_nsec;
		if (prof_now_ns() > due + period)
			clock_gettime(CLOCK_MONOTONIC, &next);
	}
	pthread_mutex_lock(&tick_lock);
	flush_all();
	pthread_mutex_unlock(&tick_lock);
	return NULL;
}

/* How many descriptors the poller may keep: those above OFFCPU_FD_BASE
 * within the limit, less a reserve for the program. */
static void
set_fds_max(void)
{
	struct rlimit rl;
	fds_max = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur > OFFCPU_FD_BASE + OFFCPU_FD_RESERVE)
		fds_max = (int)(rl.rlim_cur - OFFCPU_FD_BASE -
				OFFCPU_FD_RESERVE);
	if (fds_max > THREADS_MAX)
		fds_max = THREADS_MAX;
	if (fds_max == 0)
		log_msg("wall clock: the descriptor limit leaves none for the "
			"poller; blocked time is not sampled");
}

static int
launch(void)
{
	atomic_store(&stop, 0);
	sigset_t all, old;
	sigfillset(&all);
	real_mask(SIG_SETMASK, &all, &old);
	int rc = real_pthread_create()(&poller, NULL, poller_main, NULL);
	real_mask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	running = 1;
	return 0;
}

/* Opens the calling thread's syscall file now, in the program's own
 * thread at start-up or in a forked child before fork returns: a program
 * that goes on to close and reopen its standard descriptors at once (a
 * daemon) cannot race with an open of the poller's. */
static void
watch_self(void)
{
	struct thread_slot *t = threads_self();
	if (!t)
		return;
	struct watch *w = &watches[t - threads_slot(0)];
	w->tid = t->tid;
	w->retry_ns = 0;
	if (w->fd < 0 && !w->refused)
		watch_open(w);
}

void
offcpu_thread_started(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&tick_lock);
	watch_self();
	pthread_mutex_unlock(&tick_lock);
}

int
offcpu_start(void)
{
	if (prof_state.cfg.clock != SPOOL_CLOCK_WALL || !prof_state.cfg.time)
		return 0;
	if (!watches) {
		void *m = mmap(NULL, THREADS_MAX * sizeof(*watches),
			       PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -ENOMEM;
		void *b = mmap(NULL, OFFCPU_SNAP, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED) {
			munmap(m, THREADS_MAX * sizeof(*watches));
			return -ENOMEM;
		}
		watches = m;
		snap = b;
		for (uint32_t i = 0; i < THREADS_MAX; i++)
			watches[i].fd = -1;
	}
	if (running)
		return 0;
	set_fds_max();
	watch_self();
	return launch();
}

void
offcpu_stop(void)
{
	if (!running)
		return;
	atomic_store(&stop, 1);
	pthread_join(poller, NULL);
	running = 0;
}

/* Whether prefork took tick_lock: postfork drops it whatever running
 * became meanwhile. (One fork at a time: preload.c's fork_lock.) */
static int locked_for_fork;

void
offcpu_prefork(void)
{
	locked_for_fork = running;
	if (locked_for_fork)
		pthread_mutex_lock(&tick_lock);
}

void
offcpu_postfork_parent(void)
{
	if (locked_for_fork)
		pthread_mutex_unlock(&tick_lock);
	locked_for_fork = 0;
}

void
offcpu_postfork_child(void)
{
	locked_for_fork = 0;
	if (!running)
		return;
	pthread_mutex_init(&tick_lock, NULL);
	running = 0;
	/* The parent's descriptors name the parent's threads. */
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		struct watch *w = &watches[i];
		if (w->fd >= 0 && still_ours(w))
			close(w->fd);
		w->fd = -1;
		w->tid = 0;
		w->valid = 0;
		w->refused = 0;
	}
	fds_open = 0;
}
