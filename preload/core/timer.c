/*
 * timer: perf_event, POSIX CPU-time and itimer sampling sources (timer.h).
 *
 * The perf counter samples user mode only (exclude_kernel): a signal
 * generated while the thread is in the kernel on its way into a sleep
 * would interrupt that sleep, and nanosleep, poll, select and epoll_wait
 * then fail with EINTR, SA_RESTART or not. With user-mode sampling the
 * signal is always generated in user mode and delivered before the next
 * system call. Time in system calls is therefore not sampled (the footer
 * still has the process's system time); it also means the counter works
 * for unprivileged users at perf_event_paranoid 2. The tick-driven sources
 * (posix, itimer) cannot make that distinction.
 * Descriptors are moved above the low numbers a target is likely to
 * dup2() onto or close in a loop, and are never left below them: where
 * RLIMIT_NOFILE leaves no room up there, perf is refused (EMFILE), so that
 * the automatic choice takes posix, which needs no descriptor, for every
 * thread.
 *
 * Layer: core; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "timer.h"

#include "state.h"
#include "threads.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define TIMER_FD_MIN 512

static _Atomic uint64_t itimer_last_cpu_ns;

/* Samples between two draws of the perf period. Setting the period costs
 * a system call that reprograms the event's timer: about 4 us on the
 * virtual machines this was measured on when made outside the handler
 * (scripts/bench.d/signal-floor.c mode 5), and 8.5 to 9.3 us made where
 * it is, in the handler, on the counter that has just fired (BENCHMARKS.md,
 * "Random sampling periods"): at every fourth sample that was 0.21 to
 * 0.23 % of a thread's CPU at 1 kHz, over the 0.2 % budget, so every
 * eighth. In a program whose work repeats every period (or a whole
 * fraction of it, or much faster), a sample's phase still advances by a
 * uniform draw over a whole period (or a multiple of one) at each draw,
 * so each sample's phase is uniform, and no phase is favoured. */
#define TIMER_JITTER_EVERY 8

static uint64_t
period_of(unsigned hz)
{
	return 1000000000u / hz;
}

static int
perf_open(uint64_t period_ns, int sig, pid_t tid)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_TASK_CLOCK;
	attr.sample_period = period_ns;
	attr.disabled = 1;
	attr.exclude_hv = 1;
	attr.exclude_kernel = 1;
	attr.wakeup_events = 1;
	/* Counting thread tid, which need not be the caller (a thread
	 * adopted at start-up). */
	pid_t who = tid == gettid() ? 0 : tid;
	int fd = (int)sys_call(SYS_perf_event_open, &attr, who, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Never below TIMER_FD_MIN, where the program's own numbers are:
	 * a soft RLIMIT_NOFILE at or below it refuses the counter
	 * (-EMFILE), and the automatic choice takes posix. */
	fd = prof_fd_raise(fd, TIMER_FD_MIN);
	if (fd < 0)
		return fd;
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	if (fcntl(fd, F_SETOWN_EX, &owner) < 0 ||
	    fcntl(fd, F_SETSIG, sig) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int
posix_new(int sig, pid_t tid, timer_t *out)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sig;
	sev._sigev_un._tid = tid;
	/* The caller's own clock is CLOCK_THREAD_CPUTIME_ID. */
	clockid_t clock = tid == gettid() ? CLOCK_THREAD_CPUTIME_ID
					  : prof_thread_clock(tid);
	return timer_create(clock, &sev, out) < 0 ? -errno : 0;
}

static int
posix_create(uint64_t period_ns, int sig, pid_t tid, timer_t *out)
{
	int rc = posix_new(sig, tid, out);
	if (rc)
		return rc;
	struct itimerspec its = {
		.it_interval = { (time_t)(period_ns / 1000000000u),
				 (long)(period_ns % 1000000000u) },
	};
	its.it_value = its.it_interval;
	if (timer_settime(*out, 0, &its, NULL) < 0) {
		int err = -errno;
		timer_delete(*out);
		return err;
	}
	return 0;
}

int
timer_probe(int kind, unsigned hz, int sig)
{
	uint64_t period = period_of(hz);
	struct itimerval cur;
	timer_t t;
	int rc;
	switch (kind) {
	case SPOOL_TIMER_PERF:
		rc = perf_open(period, sig, gettid());
		if (rc >= 0)
			close(rc);
		return rc < 0 ? rc : 0;
	case SPOOL_TIMER_POSIX:
		/* Created but never armed: the probe fires nothing. */
		rc = posix_new(sig, gettid(), &t);
		if (rc == 0)
			timer_delete(t);
		return rc;
	case SPOOL_TIMER_ITIMER:
		/* ITIMER_PROF always sends SIGPROF. */
		if (sig != SIGPROF)
			return -EINVAL;
		return sys_call(SYS_getitimer, ITIMER_PROF, &cur) < 0 ? -errno : 0;
	default:
		return -EINVAL;
	}
}

int
timer_choose(void)
{
	const struct prof_config *cfg = &prof_state.cfg;
	static const int order[] = { SPOOL_TIMER_PERF, SPOOL_TIMER_POSIX,
				     SPOOL_TIMER_ITIMER };
	int rc = -ENODEV;
	prof_state.period_ns = period_of(cfg->hz);
	if (!cfg->time) {
		/* --no-time: no timer at all; the allocation wrappers may
		 * still sample space. */
		prof_state.timer = SPOOL_TIMER_NONE;
		return 0;
	}
	if (cfg->timer_request != SPOOL_TIMER_NONE) {
		rc = timer_probe(cfg->timer_request, cfg->hz, cfg->sig);
		if (rc == 0)
			prof_state.timer = cfg->timer_request;
		return rc;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		rc = timer_probe(order[i], cfg->hz, cfg->sig);
		if (rc == 0) {
			prof_state.timer = order[i];
			return 0;
		}
		/* Why perf was passed over goes into the spool's header. */
		if (order[i] == SPOOL_TIMER_PERF)
			prof_state.perf_refused = rc;
	}
	return rc;
}

/* Whether fd is still the perf event whose id is id: a program that
 * closed every descriptor it does not know of (closefrom) may have
 * reused the number, and what it put there is not ours to close.
 * async-signal-safe */
static int
perf_fd_ours(int fd, uint64_t id)
{
	uint64_t now;
	return ioctl(fd, PERF_EVENT_IOC_ID, &now) == 0 && now == id;
}

/* async-signal-safe */
void
timer_close_perf(struct thread_slot *t, int disable)
{
	int fd = atomic_exchange(&t->perf_fd, -1);
	if (fd >= 0 && perf_fd_ours(fd, t->perf_id)) {
		if (disable)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		close(fd);
	}
	void *page = atomic_exchange(&t->perf_page, NULL);
	if (page)
		munmap(page, (size_t)sysconf(_SC_PAGESIZE));
}

/* Maps the event's first page: the mapping holds the event's file, so
 * the event goes on when the program closes the descriptor. Where the
 * locked-memory allowance for perf mappings is used up, the event works
 * as well, only without that insurance. */
static void
keep_alive(struct thread_slot *t, int fd)
{
	void *page = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ,
			  MAP_SHARED, fd, 0);
	atomic_store(&t->perf_page, page == MAP_FAILED ? NULL : page);
}

/* async-signal-safe */
int
timer_jitters(void)
{
	return prof_state.timer == SPOOL_TIMER_PERF && prof_state.cfg.jitter &&
	       prof_state.period_ns >= 2;
}

/* The next period of t's event: uniform over [P/2, 3P/2), of mean P, so
 * that the sample times carry no period a program that repeats its work
 * (a frame loop, a benchmark harness) could lock onto; a fixed period
 * samples such a program at the same phase every time. xorshift64: the
 * draws need no quality beyond having no period of their own near P.
 * async-signal-safe */
static uint64_t
draw_period(struct thread_slot *t)
{
	uint64_t x = t->rng ? t->rng : 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	t->rng = x;
	uint64_t p = prof_state.period_ns;
	return p / 2 + x % p;
}

int
timer_thread_start(struct thread_slot *t)
{
	int rc = 0;
	if (prof_state.timer == SPOOL_TIMER_PERF) {
		uint64_t first = prof_state.period_ns;
		if (timer_jitters()) {
			t->rng = ((uint64_t)t->tid * 0x9e3779b97f4a7c15ull) ^
				 prof_now_ns();
			first = draw_period(t);
		}
		t->armed_ns = first;
		t->jitter_left = TIMER_JITTER_EVERY;
		int fd = perf_open(first, prof_state.cfg.sig, t->tid);
		if (fd < 0)
			return fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &t->perf_id) < 0) {
			rc = -errno;
			close(fd);
			return rc;
		}
		keep_alive(t, fd);
		atomic_store(&t->perf_fd, fd);
		if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0)
			rc = -errno;
	} else if (prof_state.timer == SPOOL_TIMER_POSIX) {
		rc = posix_create(prof_state.period_ns, prof_state.cfg.sig,
				  t->tid, &t->timer);
		if (rc == 0)
			atomic_store(&t->has_timer, 1);
	}
	return rc;
}

void
timer_thread_stop(struct thread_slot *t)
{
	timer_close_perf(t, 1);
	if (atomic_exchange(&t->has_timer, 0))
		timer_delete(t->timer);
}

int
timer_process_start(void)
{
	if (prof_state.timer != SPOOL_TIMER_ITIMER)
		return 0;
	uint64_t p = prof_state.period_ns;
	struct itimerval it = {
		.it_interval = { (time_t)(p / 1000000000u),
				 (suseconds_t)(p % 1000000000u / 1000u) },
	};
	if (it.it_interval.tv_sec == 0 && it.it_interval.tv_usec == 0)
		it.it_interval.tv_usec = 1;
	it.it_value = it.it_interval;
	atomic_store(&itimer_last_cpu_ns, prof_clock_ns(CLOCK_PROCESS_CPUTIME_ID));
	/* The system call: the library wraps setitimer (preload.c). */
	return sys_call(SYS_setitimer, ITIMER_PROF, &it, NULL) < 0 ? -errno : 0;
}

void
timer_process_stop(void)
{
	if (prof_state.timer != SPOOL_TIMER_ITIMER)
		return;
	struct itimerval off;
	memset(&off, 0, sizeof(off));
	sys_call(SYS_setitimer, ITIMER_PROF, &off, NULL);
}

/* async-signal-safe */
int
timer_signal_is_ours(const siginfo_t *si)
{
	switch (prof_state.timer) {
	case SPOOL_TIMER_PERF:
		return si->si_code == POLL_IN || si->si_code == POLL_HUP;
	case SPOOL_TIMER_POSIX:
		return si->si_code == SI_TIMER;
	case SPOOL_TIMER_ITIMER:
		return si->si_code == SI_KERNEL;
	default:
		return 0;
	}
}


/* async-signal-safe */
uint64_t
timer_sample_weight(struct thread_slot *t, int fd, const siginfo_t *si)
{
	uint64_t now, last;
	if (prof_state.timer == SPOOL_TIMER_PERF && t && timer_jitters()) {
		/* The sample stands for the period that just ended; the event
		 * counts the next one from now (Linux 3.7 and later). */
		uint64_t w = t->armed_ns ? t->armed_ns : prof_state.period_ns;
		if (t->jitter_left && --t->jitter_left)
			return w;
		uint64_t next = draw_period(t);
		if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_PERIOD, &next) == 0)
			t->armed_ns = next;
		t->jitter_left = TIMER_JITTER_EVERY;
		return w;
	}
	switch (prof_state.timer) {
	case SPOOL_TIMER_POSIX:
		return prof_state.period_ns * (1 + (uint64_t)(si->si_overrun > 0 ? si->si_overrun : 0));
	case SPOOL_TIMER_ITIMER:
		/* The process-wide timer ticks at most once per kernel tick;
		 * the CPU time since the last sample is what this one covers. */
		now = prof_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		last = atomic_exchange(&itimer_last_cpu_ns, now);
		return now > last ? now - last : 0;
	default:
		return prof_state.period_ns;
	}
}
