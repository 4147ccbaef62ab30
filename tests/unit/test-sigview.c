/*
 * Unit tests of what the program believes of the sampling signal
 * (preload/core/sigview.c), built with sys.c below it: the belief is set
 * and inherited per thread; a signal is held only while the program
 * believes it blocked, and only the first of several (a blocked signal
 * stays pending once); ending the belief raises the held signal again,
 * to the thread that held it, with the siginfo it came with, and a new
 * thread's start drops what was held without raising it. The signal is
 * caught by a handler of the test's own; every check runs in a process
 * of its own (Check's fork mode), as the handler and the raised signals
 * are process-wide.
 */
#include "sigview.h"

#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define TEST_SIG SIGUSR1

/* What the handler saw: how many signals, and the last one's siginfo
 * and thread. */
static volatile sig_atomic_t caught;
static siginfo_t caught_info;
static volatile pid_t caught_tid;

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	caught_info = *si;
	caught_tid = gettid();
	caught++;
}

static void
setup(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	ck_assert_int_eq(sigaction(TEST_SIG, &sa, NULL), 0);
	caught = 0;
	caught_tid = 0;
}

/* A siginfo as a program's own signal would carry: sent with
 * sigqueue (SI_QUEUE) or by a timer of its own (SI_TIMER). */
static siginfo_t
info_of(int code, int value)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = TEST_SIG;
	si.si_code = code;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = value;
	return si;
}

START_TEST(sigview_belief_set)
{
	ck_assert_int_eq(sigview_believed(), 0);
	sigview_set_believed(1);
	ck_assert_int_eq(sigview_believed(), 1);
	sigview_set_believed(0);
	ck_assert_int_eq(sigview_believed(), 0);
	sigview_inherit(1);
	ck_assert_int_eq(sigview_believed(), 1);
	sigview_inherit(0);
	ck_assert_int_eq(sigview_believed(), 0);
}
END_TEST

/* Not believed blocked: the program's disposition has the signal now,
 * nothing is held. */
START_TEST(sigview_hold_needs_belief)
{
	siginfo_t si = info_of(SI_QUEUE, 1);
	ck_assert_int_eq(sigview_hold(&si), 0);
	ck_assert_int_eq(sigview_held(), 0);
	sigview_release();
	ck_assert_int_eq(caught, 0);
}
END_TEST

/* Two signals while believed blocked: both are held back, one is kept,
 * the first, and it is raised once when the belief ends. */
START_TEST(sigview_hold_keeps_first)
{
	siginfo_t a = info_of(SI_QUEUE, 11), b = info_of(SI_QUEUE, 22);
	sigview_set_believed(1);
	ck_assert_int_eq(sigview_hold(&a), 1);
	ck_assert_int_eq(sigview_held(), 1);
	ck_assert_int_eq(sigview_hold(&b), 1);
	ck_assert_int_eq(sigview_held(), 1);
	/* Still believed: nothing is raised. */
	sigview_set_believed(1);
	ck_assert_int_eq(caught, 0);
	sigview_set_believed(0);
	/* The signal to this thread is delivered before the system call
	 * that raised it returns. */
	ck_assert_int_eq(caught, 1);
	ck_assert_int_eq(sigview_held(), 0);
	ck_assert_int_eq(caught_info.si_signo, TEST_SIG);
	ck_assert_int_eq(caught_info.si_code, SI_QUEUE);
	ck_assert_int_eq(caught_info.si_value.sival_int, 11);
	ck_assert_int_eq(caught_tid, gettid());
	/* Released once: a second release raises nothing. */
	sigview_release();
	ck_assert_int_eq(caught, 1);
}
END_TEST

/* The si_codes a program's own signal comes with: each is raised again
 * as it came, the kernel's SI_TIMER included (a thread may queue any
 * si_code to its own process). */
static const int release_codes[] = { SI_QUEUE, SI_TIMER, SI_MESGQ, SI_USER };

START_TEST(sigview_release_keeps_siginfo)
{
	siginfo_t si = info_of(release_codes[_i], 100 + _i);
	sigview_set_believed(1);
	ck_assert_int_eq(sigview_hold(&si), 1);
	sigview_release();
	ck_assert_int_eq(caught, 1);
	ck_assert_int_eq(caught_info.si_code, release_codes[_i]);
	ck_assert_int_eq(caught_info.si_value.sival_int, 100 + _i);
	ck_assert_int_eq(caught_info.si_pid, getpid());
	/* The belief stays: release is only the raising. */
	ck_assert_int_eq(sigview_believed(), 1);
	ck_assert_int_eq(sigview_held(), 0);
}
END_TEST

/* A new thread's start takes the belief over and holds nothing: what
 * this thread held is dropped without being raised. */
START_TEST(sigview_inherit_drops_held)
{
	siginfo_t si = info_of(SI_QUEUE, 5);
	sigview_set_believed(1);
	ck_assert_int_eq(sigview_hold(&si), 1);
	sigview_inherit(1);
	ck_assert_int_eq(sigview_held(), 0);
	ck_assert_int_eq(sigview_believed(), 1);
	sigview_set_believed(0);
	ck_assert_int_eq(caught, 0);
}
END_TEST

/* The belief and the held signal are the thread's: another thread
 * believes nothing, holds nothing, and its release raises to itself. */
static void *
other_thread(void *arg)
{
	siginfo_t si = info_of(SI_QUEUE, 77);
	int *out = arg;
	out[0] = sigview_believed();
	out[1] = sigview_held();
	sigview_set_believed(1);
	out[2] = sigview_hold(&si);
	sigview_set_believed(0);
	out[3] = gettid();
	return NULL;
}

START_TEST(sigview_per_thread)
{
	siginfo_t si = info_of(SI_QUEUE, 9);
	int out[4] = { -1, -1, -1, -1 };
	pthread_t th;
	sigview_set_believed(1);
	ck_assert_int_eq(sigview_hold(&si), 1);
	ck_assert_int_eq(pthread_create(&th, NULL, other_thread, out), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_int_eq(out[0], 0);
	ck_assert_int_eq(out[1], 0);
	ck_assert_int_eq(out[2], 1);
	/* The other thread's signal went to it, not to this one. */
	ck_assert_int_eq(caught, 1);
	ck_assert_int_eq(caught_tid, out[3]);
	ck_assert_int_ne(caught_tid, gettid());
	ck_assert_int_eq(caught_info.si_value.sival_int, 77);
	/* This thread's is still held, and still believed. */
	ck_assert_int_eq(sigview_believed(), 1);
	ck_assert_int_eq(sigview_held(), 1);
	sigview_set_believed(0);
	ck_assert_int_eq(caught, 2);
	ck_assert_int_eq(caught_tid, gettid());
	ck_assert_int_eq(caught_info.si_value.sival_int, 9);
}
END_TEST

static Suite *
sigview_suite(void)
{
	Suite *s = suite_create("preload:sigview");
	TCase *tc = tcase_create("sigview");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, sigview_belief_set);
	tcase_add_test(tc, sigview_hold_needs_belief);
	tcase_add_test(tc, sigview_hold_keeps_first);
	tcase_add_loop_test(tc, sigview_release_keeps_siginfo, 0,
			    sizeof(release_codes) / sizeof(release_codes[0]));
	tcase_add_test(tc, sigview_inherit_drops_held);
	tcase_add_test(tc, sigview_per_thread);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(sigview_suite());
	int failed;

	/* Signals: a process per check, whatever CK_FORK says. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
