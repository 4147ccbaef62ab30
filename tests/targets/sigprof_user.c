/*
 * sigprof_user: a program that uses SIGPROF itself, as programs with a
 * profiler of their own do.
 *
 * usage: sigprof_user MODE
 *   handler  installs a SIGPROF handler, runs ITIMER_PROF at 100 Hz over
 *            0.5 s of work in own_timer_work(), and checks that its handler
 *            ran and that sigaction() reads back its own handler; exit 0
 *            when both hold, 1 otherwise
 *   block    installs a counting SIGPROF handler (SIGPROF in its sa_mask),
 *            blocks SIGPROF, raises it, runs blocked_work() and a thread
 *            (thread_work()) started meanwhile, unblocks, runs
 *            unblocked_work() (0.3 s each); checks that the mask, the new
 *            thread's mask, sigpending and sigaction read back what a
 *            program without a profiler sees, and that the raised signal
 *            is handled once, after the unblock and not before; prints
 *            what it saw, exit 0 when all hold, 1 otherwise
 *   workers  starts worker_a() and worker_b() (0.3 s each) in two threads
 *            created with every signal blocked, as liblzma does; exit 0
 *   rawmask  runs rawmask_work() (0.3 s) in a thread that blocks SIGPROF
 *            with the raw system call, then unblocked_work(); exit 0
 *   exec     blocks SIGPROF and executes itself as "inherited", which
 *            exits 0 when SIGPROF is blocked in the mask it started with
 *            (and prints it), 1 otherwise
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "work.h"

static volatile sig_atomic_t ticks;

static void
on_sigprof(int sig)
{
	(void)sig;
	ticks++;
}

static WORK_FN void
own_timer_work(void)
{
	work_spin(50 * WORK_UNIT);
}

static WORK_FN void
blocked_work(void)
{
	work_spin(30 * WORK_UNIT);
}

static WORK_FN void
unblocked_work(void)
{
	work_spin(30 * WORK_UNIT);
}

static WORK_FN void
thread_work(void)
{
	work_spin(30 * WORK_UNIT);
}

static WORK_FN void
worker_a(void)
{
	work_spin(30 * WORK_UNIT);
}

static WORK_FN void
worker_b(void)
{
	work_spin(30 * WORK_UNIT);
}

static WORK_FN void
rawmask_work(void)
{
	work_spin(30 * WORK_UNIT);
}

static int
has_sigprof(int how_query)
{
	sigset_t cur;
	if (how_query)
		pthread_sigmask(SIG_BLOCK, NULL, &cur);
	else
		sigprocmask(SIG_BLOCK, NULL, &cur);
	return sigismember(&cur, SIGPROF) == 1;
}

static void *
masked_thread(void *arg)
{
	*(int *)arg = has_sigprof(1);
	thread_work();
	return NULL;
}

static int
block(void)
{
	struct sigaction sa, back;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigprof;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGPROF);
	if (sigaction(SIGPROF, &sa, NULL) < 0 || sigaction(SIGPROF, NULL, &back) < 0)
		return 1;
	sigset_t set, pending;
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGPROF);
	int early = ticks;
	sigpending(&pending);
	int is_pending = sigismember(&pending, SIGPROF) == 1;
	int masked = has_sigprof(0) && has_sigprof(1);
	int thread_masked = 0;
	pthread_t th;
	if (pthread_create(&th, NULL, masked_thread, &thread_masked) != 0)
		return 1;
	blocked_work();
	pthread_join(th, NULL);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	int late = ticks;
	int unmasked = !has_sigprof(0);
	unblocked_work();
	int sa_mask = sigismember(&back.sa_mask, SIGPROF) == 1;
	printf("masked=%d thread-masked=%d pending=%d before=%d after=%d "
	       "unmasked=%d sa_mask=%d\n", masked, thread_masked, is_pending,
	       early, late, unmasked, sa_mask);
	return masked && thread_masked && is_pending && early == 0 &&
			       late == 1 && unmasked && sa_mask
		       ? 0
		       : 1;
}

static void *
worker(void *arg)
{
	if (arg)
		worker_a();
	else
		worker_b();
	return NULL;
}

static int
workers(void)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	static int first = 1;
	pthread_t a, b;
	int ok = pthread_create(&a, NULL, worker, &first) == 0 &&
		 pthread_create(&b, NULL, worker, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!ok)
		return 1;
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}

static void *
rawmask_thread(void *arg)
{
	(void)arg;
	uint64_t set = 1ull << (SIGPROF - 1);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, sizeof(set));
	rawmask_work();
	return NULL;
}

static int
rawmask(void)
{
	pthread_t th;
	if (pthread_create(&th, NULL, rawmask_thread, NULL) != 0)
		return 1;
	pthread_join(th, NULL);
	unblocked_work();
	return 0;
}

static int
exec_masked(const char *self)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGPROF);
	sigprocmask(SIG_BLOCK, &set, NULL);
	execl(self, self, "inherited", (char *)NULL);
	return 1;
}

static int
handler(void)
{
	struct sigaction sa, back;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigprof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) < 0 || sigaction(SIGPROF, NULL, &back) < 0)
		return 1;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	setitimer(ITIMER_PROF, &it, NULL);
	own_timer_work();
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	printf("ticks=%d own-handler=%d\n", (int)ticks, back.sa_handler == on_sigprof);
	return ticks > 10 && back.sa_handler == on_sigprof ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "handler") == 0)
		return handler();
	if (strcmp(mode, "block") == 0)
		return block();
	if (strcmp(mode, "workers") == 0)
		return workers();
	if (strcmp(mode, "rawmask") == 0)
		return rawmask();
	if (strcmp(mode, "exec") == 0)
		return exec_masked(argv[0]);
	if (strcmp(mode, "inherited") == 0) {
		int masked = has_sigprof(0);
		printf("inherited-masked=%d\n", masked);
		return masked ? 0 : 1;
	}
	fprintf(stderr, "usage: sigprof_user handler | block | workers | "
		"rawmask | exec\n");
	return 2;
}
