/*
 * floor: an LD_PRELOAD library that takes the same signals as profrun's
 * perf timer and does nothing with them. scripts/bench builds it
 *
 *   cc -O2 -shared -fPIC -o libfloor.so scripts/bench.d/floor.c -ldl
 *
 * and runs the targets with LD_PRELOAD=libfloor.so FLOOR_HZ=HZ (default
 * 1000): what the kernel charges for delivering the signals, which no
 * signal-based profiler goes under. Each thread (the main thread, and every
 * thread started with pthread_create) gets a per-thread perf task-clock
 * counter set up as preload/core/timer.c's perf_open does (user mode only,
 * signalling its own thread with SIGPROF through O_ASYNC), and the SIGPROF
 * handler only counts. At exit it writes "floor: N signals" to stderr.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static unsigned long period_ns = 1000000;
static unsigned long signals;

static void
handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	__atomic_fetch_add(&signals, 1, __ATOMIC_RELAXED);
}

/* The calling thread's counter, as preload/core/timer.c's perf_open and
 * timer_thread_start set it up (the first page mapped too); -1 if
 * that failed. */
static int
counter_open(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = period_ns;
	a.disabled = 1;
	a.exclude_hv = 1;
	a.exclude_kernel = 1;
	a.wakeup_events = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		perror("floor: perf_event_open");
		return -1;
	}
	struct f_owner_ex o = { F_OWNER_TID, gettid() };
	if (fcntl(fd, F_SETOWN_EX, &o) < 0 || fcntl(fd, F_SETSIG, SIGPROF) < 0 ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_ASYNC) < 0) {
		perror("floor: fcntl");
		close(fd);
		return -1;
	}
	mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	return fd;
}

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *
trampoline(void *p)
{
	struct start s = *(struct start *)p;
	free(p);
	counter_open();
	return s.fn(s.arg);
}

int
pthread_create(pthread_t *t, const pthread_attr_t *attr,
	       void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *,
			   void *(*)(void *), void *);
	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *,
				void *(*)(void *), void *))
			dlsym(RTLD_NEXT, "pthread_create");
	struct start *s = malloc(sizeof(*s));
	if (!s)
		return real(t, attr, fn, arg);
	s->fn = fn;
	s->arg = arg;
	int rc = real(t, attr, trampoline, s);
	if (rc != 0)
		free(s);
	return rc;
}

__attribute__((constructor)) static void
floor_start(void)
{
	const char *hz = getenv("FLOOR_HZ");
	if (hz && atol(hz) > 0)
		period_ns = 1000000000ul / (unsigned long)atol(hz);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	counter_open();
}

__attribute__((destructor)) static void
floor_stop(void)
{
	dprintf(2, "floor: %lu signals\n",
		__atomic_load_n(&signals, __ATOMIC_RELAXED));
}
