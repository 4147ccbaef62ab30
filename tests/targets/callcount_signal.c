/*
 * callcount_signal: a program compiled with -finstrument-functions whose
 * instrumented SIGALRM handler (on_alarm, which calls handler_leaf)
 * interrupts a loop of LEAF_CALLS calls of leaf() every 50 us of real
 * time: many signals land while the thread's counter is busy with one of
 * the loop's calls, and the handler's calls are then missed. It prints
 * how many times the handler ran; test_callcount.py checks that every one
 * of its calls was either counted or counted as missed.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#if defined(__clang__)
#define COUNTED_FN __attribute__((noinline))
#else
#define COUNTED_FN __attribute__((noinline, noclone, no_icf))
#endif

#define LEAF_CALLS 20000000L

static volatile unsigned long sink;
static volatile sig_atomic_t hits;

COUNTED_FN static void
leaf(void)
{
	sink++;
}

COUNTED_FN static void
handler_leaf(void)
{
	sink += 2;
}

static void
on_alarm(int sig)
{
	(void)sig;
	handler_leaf();
	hits++;
}

int
main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) != 0)
		return 1;
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	if (setitimer(ITIMER_REAL, &it, NULL) != 0)
		return 1;
	for (long i = 0; i < LEAF_CALLS; i++)
		leaf();
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	/* (A signal pending at the disarm is delivered before this.) */
	printf("handler ran %d times\n", (int)hits);
	return 0;
}
