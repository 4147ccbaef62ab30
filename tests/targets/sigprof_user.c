/*
 * sigprof_user: a program that uses SIGPROF itself, as programs with a
 * profiler of their own do.
 *
 * usage: sigprof_user handler | block
 *   handler  installs a SIGPROF handler, runs ITIMER_PROF at 100 Hz over
 *            0.5 s of work in own_timer_work(), and checks that its handler
 *            ran and that sigaction() reads back its own handler; exit 0
 *            when both hold, 1 otherwise
 *   block    blocks SIGPROF around blocked_work(), then unblocked_work()
 *            (0.3 s each); exit 0
 */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

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
	if (strcmp(mode, "block") == 0) {
		sigset_t set;
		sigemptyset(&set);
		sigaddset(&set, SIGPROF);
		sigprocmask(SIG_BLOCK, &set, NULL);
		blocked_work();
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		unblocked_work();
		return 0;
	}
	fprintf(stderr, "usage: sigprof_user handler | block\n");
	return 2;
}
