/*
 * state: the preload library's per-process state and configuration, the one
 * place global mutable state lives. Everything else reaches it through
 * prof_state.
 *
 * Layer: base. Functions marked async-signal-safe may run in a handler or
 * inside malloc; prof_config_from_env may not.
 */
#ifndef PROFRUN_STATE_H
#define PROFRUN_STATE_H

#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "spool.h"

#define PROF_DEFAULT_HZ 1000
#define PROF_MAX_HZ 100000
/* Mean bytes between allocation samples, as jemalloc and tcmalloc use. */
#define PROF_DEFAULT_SPACE_INTERVAL (512u * 1024)
#define PROF_MAX_SPACE_INTERVAL (UINT64_C(1) << 40)
/* The smallest spool size limit: the first chunk and two more. */
#define PROF_MIN_MAX_SIZE (256u * 1024)

struct prof_config {
	char spool_path[PATH_MAX]; /* PROF_SPOOL: spool of the first process */
	char output[PATH_MAX];     /* PROF_OUTPUT: others write OUTPUT.PID[.N] */
	char spool_final[PATH_MAX]; /* PROF_SPOOL_FINAL: spool_path's name
				     * once profrun has renamed it */
	int primary;               /* this is the process profrun started */
	int follow;                /* profile children and exec'd images */
	unsigned hz;
	int timer_request; /* enum spool_timer, SPOOL_TIMER_NONE for auto */
	int clock;         /* PROF_CLOCK: enum spool_clock (offcpu.h) */
	unsigned max_depth;
	int sig;
	int start_paused;      /* PROF_START_PAUSED: wait for profrun_start() */
	int toggle_sig;        /* PROF_TOGGLE_SIGNAL: pauses and resumes, or 0 */
	uint64_t max_samples;  /* PROF_MAX_SAMPLES: stop after so many, or 0 */
	uint64_t max_size;     /* PROF_MAX_SIZE: the spool's size limit in
				* bytes (at least PROF_MIN_MAX_SIZE), or 0 */
	uint64_t delay_ns;     /* PROF_DELAY: start sampling this late */
	uint64_t duration_ns;  /* PROF_DURATION: and sample this long, or 0 */
	int time;              /* PROF_TIME: sample CPU time (default 1) */
	int jitter;            /* PROF_JITTER: draw each perf period at
				* random around the mean (default 1) */
	uint64_t space_interval; /* PROF_SPACE_INTERVAL: mean bytes between
				  * allocation samples, 0 for none */
	uint64_t space_seed;   /* PROF_SPACE_SEED: the byte sampling's fixed
				* seed, 0 for a random one */
};

struct prof_state {
	struct prof_config cfg;
	_Atomic int enabled;  /* handlers take samples */
	_Atomic int disabled; /* a failure turned profiling off for good */
	int initialised;
	int timer;            /* enum spool_timer in use */
	int perf_refused;     /* -errno of perf_event_open when the automatic
			       * choice passed perf over, else 0 */
	uint64_t period_ns;
	pid_t pid;
	uint64_t start_mono_ns;
	/* getrusage(RUSAGE_SELF) when this image started: an exec'd image's
	 * process used CPU time before it, which is not this spool's. */
	uint64_t base_utime_ns, base_stime_ns;
	_Atomic uint64_t drops[SPOOL_DROP_MAX_];
	_Atomic uint32_t threads_seen;
	/* Children started by the program's own clone(): unprofiled. */
	_Atomic uint32_t clone_processes, clone_threads;
};

extern struct prof_state prof_state;

/* Fills cfg from the PROF_* environment. Returns 1 when this process is to
 * be profiled, 0 when not (PROF_SPOOL unset, or a child process under
 * PROF_FOLLOW=0: the library then stays inert), -EINVAL after printing one
 * line naming the bad variable. */
int
prof_config_from_env(struct prof_config *cfg);

/* Turns profiling off for good after a failure of the profiler itself and
 * says why in one line on stderr (once per process). The target goes on.
 * async-signal-safe */
void
prof_disable(const char *why);

/* The time of clock in nanoseconds. async-signal-safe */
uint64_t
prof_clock_ns(clockid_t clock);

/* The CPU-time clock of thread tid of this process, as the kernel encodes
 * it (MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), what pthread_getcpuclockid
 * returns), for a thread known by its id only. async-signal-safe */
static inline clockid_t
prof_thread_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6);
}

/* Moves fd to the lowest free number at or above min, close-on-exec,
 * out of the program's way, and closes fd. Returns the new number, or
 * -EMFILE when there is none (RLIMIT_NOFILE at or below min, or every
 * number from min up taken): a descriptor of the library is never left
 * at a number the program would be given next. async-signal-safe */
int
prof_fd_raise(int fd, int min);

/* prof_fd_raise, and where the soft RLIMIT_NOFILE leaves no number at or
 * above min, the lowest free number at or above min or else above the
 * soft limit, which the hard limit allows: the soft limit is raised for
 * the moment of the move and put back, so the program, which can never
 * be given a number at or above its soft limit, loses none of its own.
 * Returns the new number or -EMFILE (the hard limit is the soft one).
 * Only while the library starts or a forked child resumes: another
 * thread of the program would see the raised limit meanwhile. Not
 * async-signal-safe. */
int
prof_fd_raise_start(int fd, int min);

/* The process's user and system CPU time (getrusage(RUSAGE_SELF)) in
 * nanoseconds. async-signal-safe */
void
prof_cpu_ns(uint64_t *utime, uint64_t *stime);

/* CLOCK_MONOTONIC in nanoseconds. async-signal-safe */
uint64_t
prof_now_ns(void);

/* Marks this process as the profiled image, on a page that a child made
 * by fork or by clone() without CLONE_VM gets wiped (MADV_WIPEONFORK):
 * such a child, whose memory is a copy of ours, shares our mappings of
 * the spool and must never write into them. Called at start-up and by a
 * forked child that goes on profiling into a spool of its own. */
void
prof_image_mark(void);

/* Whether the calling process is the profiled image (not a child that
 * copied our memory): one load, or a getpid() where the kernel has no
 * MADV_WIPEONFORK. async-signal-safe */
int
prof_in_image(void);

/* Counts a dropped sample. async-signal-safe */
static inline void
prof_drop(enum spool_drop cause)
{
	atomic_fetch_add_explicit(&prof_state.drops[cause], 1,
				  memory_order_relaxed);
}

#endif
