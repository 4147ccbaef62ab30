/*
 * signal-floor: what the kernel charges for one timer sample before any
 * profiler code runs, on this machine. Not built by meson; BENCHMARKS.md
 * says how it is run.
 *
 *   cc -O2 -o signal-floor scripts/bench.d/signal-floor.c
 *   signal-floor MODE PERIOD_NS ITERATIONS
 *
 * MODE 0 runs the loop alone; MODE 1 with a per-thread perf task-clock
 * counter that signals the thread through O_ASYNC (profrun's perf timer)
 * and an empty handler; MODE 2 the same counter delivering SIGTRAP through
 * attr.sigtrap (Linux 5.13). It prints the loop's CPU time and the signals
 * taken; (CPU − CPU of MODE 0) / signals is the cost of one.
 *
 * MODE 3 and 4 are MODE 1 with the handler setting the counter's next
 * period (PERF_EVENT_IOC_PERIOD, drawn between PERIOD_NS/2 and
 * 3*PERIOD_NS/2 as profrun's jitter does) at every eighth signal (3, what
 * profrun does) or at every one (4): (CPU − CPU of MODE 1) / signals is
 * what the random periods add to a sample. MODE 5 times ITERATIONS calls
 * of that ioctl on an enabled counter (its period set to PERIOD_NS, so
 * no signal comes) against as many getppid() calls, the cheapest system
 * call, and prints the microseconds of one of each.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long hits;
static int rearm_fd = -1, rearm_every;
static unsigned long rearm_period, rng = 0x9e3779b97f4a7c15ul;

static void
handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	hits++;
	if (rearm_fd >= 0 && hits % (unsigned long)rearm_every == 0) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		unsigned long long next = rearm_period / 2 + rng % rearm_period;
		ioctl(rearm_fd, PERF_EVENT_IOC_PERIOD, &next);
	}
}

static double
cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A task-clock counter of the calling thread that overflows every
 * period ns of its user-mode CPU time, enabled, with the overflow's
 * delivery as mode asks (0: none). Exits on failure. */
static int
open_counter(long period, int mode)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = (unsigned long)period;
	a.disabled = mode != 0;
	a.exclude_hv = 1;
	a.exclude_kernel = 1;
	if (mode == 2) {
		a.sigtrap = 1;
		a.remove_on_exec = 1;
	} else if (mode) {
		a.wakeup_events = 1;
	}
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0) {
		perror("perf_event_open");
		exit(1);
	}
	return fd;
}

int
main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s MODE PERIOD_NS ITERATIONS\n", argv[0]);
		return 2;
	}
	int mode = atoi(argv[1]);
	long period = atol(argv[2]);
	long iters = atol(argv[3]);
	if (mode >= 1 && mode <= 4) {
		int sigio = mode != 2;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = handler;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigaction(sigio ? SIGPROF : SIGTRAP, &sa, NULL);
		int fd = open_counter(period, mode);
		if (sigio) {
			struct f_owner_ex o = { F_OWNER_TID, gettid() };
			if (fcntl(fd, F_SETOWN_EX, &o) < 0 ||
			    fcntl(fd, F_SETSIG, SIGPROF) < 0 ||
			    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0) {
				perror("fcntl");
				return 1;
			}
		}
		if (mode >= 3) {
			rearm_every = mode == 3 ? 8 : 1;
			rearm_period = (unsigned long)period;
			rearm_fd = fd;
		}
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	}
	if (mode == 5) {
		int fd = open_counter(period, 0);
		double t0 = cpu_seconds();
		for (long i = 0; i < iters; i++)
			getppid();
		double t1 = cpu_seconds();
		for (long i = 0; i < iters; i++) {
			unsigned long long p = (unsigned long long)period;
			ioctl(fd, PERF_EVENT_IOC_PERIOD, &p);
		}
		double t2 = cpu_seconds();
		printf("mode 5: getppid %.3f us, PERF_EVENT_IOC_PERIOD %.3f us\n",
		       1e6 * (t1 - t0) / (double)iters,
		       1e6 * (t2 - t1) / (double)iters);
		return 0;
	}
	double c0 = cpu_seconds();
	volatile unsigned long x = 0;
	for (long i = 0; i < iters; i++)
		x += (unsigned long)i;
	double c1 = cpu_seconds();
	printf("mode %d: %.3f s of CPU, %lu signals\n", mode, c1 - c0, hits);
	return 0;
}
