/*
 * Unit tests of the sampling sources (preload/core/timer.c) for what they
 * decide without a signal firing, built with the base below it (state,
 * log, sys): which signals are the timer's (timer_signal_is_ours, by
 * si_code, for each source); the weight of a sample for each source
 * (the period, the period times the POSIX overruns, the itimer's CPU
 * time since the last sample); whether the perf source jitters; the
 * probe's refusals and timer_choose without a timer; and the drawn
 * periods, not the timing: the first period of a thread
 * (timer_thread_start) and the handler's re-draws every eighth sample
 * (timer_sample_weight) lie in [P/2, 3P/2), with the mean, variance and
 * spread of a uniform draw over many draws, and each sample weighs the
 * period armed before it.
 *
 * Test double: ioctl. The re-draw arms the thread's perf event with
 * PERF_EVENT_IOC_PERIOD; this file defines ioctl, which the timer.c
 * linked here calls instead of the C library's, and records the periods
 * given to a descriptor that stands for the event (FAKE_FD), so that no
 * event is opened and the draws are seen as the kernel would get them.
 * Other requests go to the system call. timer_thread_start's perf event
 * is asked for a thread that cannot exist (a tid above the kernel's
 * PID_MAX_LIMIT): it fails, after the first period was drawn.
 * Every check runs in a process of its own (prof_state is global).
 */
#include "threads.h"
#include "timer.h"
#include "state.h"

#include <check.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define FAKE_FD (1 << 24)
/* Samples between draws (TIMER_JITTER_EVERY in timer.c). */
#define EVERY 8
/* Above PID_MAX_LIMIT (2^22): no such thread. */
#define NO_TID ((pid_t)(1 << 23))

/* The periods given to FAKE_FD, and what its ioctl returns. */
static uint64_t set_periods;
static uint64_t last_period;
static int period_fails;

int
ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (fd == FAKE_FD && req == PERF_EVENT_IOC_PERIOD) {
		if (period_fails) {
			errno = EINVAL;
			return -1;
		}
		memcpy(&last_period, arg, sizeof(last_period));
		set_periods++;
		return 0;
	}
	return (int)syscall(SYS_ioctl, fd, req, arg);
}

static void
setup(void)
{
	memset(&prof_state.cfg, 0, sizeof(prof_state.cfg));
	prof_state.cfg.hz = 1000;
	prof_state.cfg.sig = SIGPROF;
	prof_state.cfg.time = 1;
	prof_state.cfg.jitter = 1;
	prof_state.timer = SPOOL_TIMER_NONE;
	prof_state.period_ns = 1000000;
	set_periods = 0;
	last_period = 0;
	period_fails = 0;
}

static siginfo_t
info_of(int code)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGPROF;
	si.si_code = code;
	return si;
}

static const struct {
	int timer, code, ours;
} ours_cases[] = {
	{ SPOOL_TIMER_PERF, POLL_IN, 1 },     { SPOOL_TIMER_PERF, POLL_HUP, 1 },
	{ SPOOL_TIMER_PERF, SI_TIMER, 0 },    { SPOOL_TIMER_PERF, SI_USER, 0 },
	{ SPOOL_TIMER_PERF, SI_QUEUE, 0 },    { SPOOL_TIMER_PERF, SI_TKILL, 0 },
	{ SPOOL_TIMER_PERF, SI_KERNEL, 0 },   { SPOOL_TIMER_POSIX, SI_TIMER, 1 },
	{ SPOOL_TIMER_POSIX, SI_USER, 0 },    { SPOOL_TIMER_POSIX, SI_QUEUE, 0 },
	{ SPOOL_TIMER_POSIX, POLL_IN, 0 },    { SPOOL_TIMER_POSIX, SI_KERNEL, 0 },
	{ SPOOL_TIMER_ITIMER, SI_KERNEL, 1 }, { SPOOL_TIMER_ITIMER, SI_USER, 0 },
	{ SPOOL_TIMER_ITIMER, SI_TIMER, 0 },  { SPOOL_TIMER_ITIMER, SI_TKILL, 0 },
	{ SPOOL_TIMER_ITIMER, POLL_IN, 0 },   { SPOOL_TIMER_NONE, SI_KERNEL, 0 },
	{ SPOOL_TIMER_NONE, SI_TIMER, 0 },    { SPOOL_TIMER_NONE, POLL_IN, 0 },
};

START_TEST(timer_signal_is_ours_table)
{
	siginfo_t si = info_of(ours_cases[_i].code);
	prof_state.timer = ours_cases[_i].timer;
	ck_assert_msg(timer_signal_is_ours(&si) == ours_cases[_i].ours,
		      "source %d, si_code %d: want %d", ours_cases[_i].timer,
		      ours_cases[_i].code, ours_cases[_i].ours);
}
END_TEST

static const struct {
	int timer, jitter;
	uint64_t period;
	int jitters;
} jitters_cases[] = {
	{ SPOOL_TIMER_PERF, 1, 1000000, 1 }, { SPOOL_TIMER_PERF, 1, 2, 1 },
	{ SPOOL_TIMER_PERF, 1, 1, 0 },       { SPOOL_TIMER_PERF, 0, 1000000, 0 },
	{ SPOOL_TIMER_POSIX, 1, 1000000, 0 }, { SPOOL_TIMER_ITIMER, 1, 1000000, 0 },
	{ SPOOL_TIMER_NONE, 1, 1000000, 0 },
};

START_TEST(timer_jitters_table)
{
	prof_state.timer = jitters_cases[_i].timer;
	prof_state.cfg.jitter = jitters_cases[_i].jitter;
	prof_state.period_ns = jitters_cases[_i].period;
	ck_assert_int_eq(timer_jitters(), jitters_cases[_i].jitters);
}
END_TEST

/* POSIX: the period for the signal and each overrun (a negative overrun
 * counts none). */
static const struct {
	int overrun;
	uint64_t periods;
} overrun_cases[] = { { 0, 1 }, { 1, 2 }, { 3, 4 }, { 999, 1000 }, { -1, 1 } };

START_TEST(timer_weight_posix_overruns)
{
	siginfo_t si = info_of(SI_TIMER);
	struct thread_slot t;
	memset(&t, 0, sizeof(t));
	prof_state.timer = SPOOL_TIMER_POSIX;
	prof_state.period_ns = 4000000;
	si.si_overrun = overrun_cases[_i].overrun;
	ck_assert_uint_eq(timer_sample_weight(&t, -1, &si),
			  4000000 * overrun_cases[_i].periods);
	ck_assert_uint_eq(timer_sample_weight(NULL, -1, &si),
			  4000000 * overrun_cases[_i].periods);
}
END_TEST

/* Perf without jitter, and no source: the period, whatever the
 * siginfo says; nothing re-armed. */
START_TEST(timer_weight_fixed_period)
{
	siginfo_t si = info_of(POLL_IN);
	struct thread_slot t;
	memset(&t, 0, sizeof(t));
	t.armed_ns = 123;
	si.si_overrun = 5;
	prof_state.period_ns = 2500000;
	prof_state.timer = SPOOL_TIMER_PERF;
	prof_state.cfg.jitter = 0;
	for (int i = 0; i < 3 * EVERY; i++)
		ck_assert_uint_eq(timer_sample_weight(&t, FAKE_FD, &si),
				  2500000);
	prof_state.timer = SPOOL_TIMER_NONE;
	ck_assert_uint_eq(timer_sample_weight(&t, FAKE_FD, &si), 2500000);
	/* With jitter but no slot at hand: the mean period. */
	prof_state.timer = SPOOL_TIMER_PERF;
	prof_state.cfg.jitter = 1;
	ck_assert_uint_eq(timer_sample_weight(NULL, FAKE_FD, &si), 2500000);
	ck_assert_uint_eq(set_periods, 0);
}
END_TEST

static void
burn_cpu_ns(uint64_t ns)
{
	uint64_t start = prof_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	volatile uint64_t x = 0;
	while (prof_clock_ns(CLOCK_PROCESS_CPUTIME_ID) - start < ns)
		x++;
}

/* itimer: a sample weighs the process's CPU time since the last one
 * (the first, all of it so far); time off the CPU weighs nothing. */
START_TEST(timer_weight_itimer_cpu_since)
{
	siginfo_t si = info_of(SI_KERNEL);
	prof_state.timer = SPOOL_TIMER_ITIMER;
	burn_cpu_ns(5000000);
	uint64_t before = prof_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	uint64_t w = timer_sample_weight(NULL, -1, &si);
	uint64_t after = prof_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	ck_assert_uint_ge(w, before);
	ck_assert_uint_le(w, after);
	/* 20 ms of CPU between two samples, then 50 ms asleep. */
	before = prof_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	burn_cpu_ns(20000000);
	after = prof_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	w = timer_sample_weight(NULL, -1, &si);
	ck_assert_uint_ge(w, after - before);
	ck_assert_uint_lt(w, after - before + 10000000);
	struct timespec ts = { 0, 50000000 };
	nanosleep(&ts, NULL);
	ck_assert_uint_lt(timer_sample_weight(NULL, -1, &si), 10000000);
}
END_TEST

/* Moments of n draws of mean P, as fractions of P. */
struct moments {
	double mean, var, lo, hi;
	uint64_t bins[10]; /* over [P/2, 3P/2) */
	uint64_t n, outside;
};

static void
moments_add(struct moments *m, uint64_t p, uint64_t d, double *sum,
	    double *sum2)
{
	double x = (double)d / (double)p;
	if (d < p / 2 || d >= p / 2 + p) {
		m->outside++;
		return;
	}
	*sum += x;
	*sum2 += x * x;
	m->lo = m->n == 0 || x < m->lo ? x : m->lo;
	m->hi = m->n == 0 || x > m->hi ? x : m->hi;
	m->bins[(int)((x - 0.5) * 10)]++;
	m->n++;
}

static void
moments_end(struct moments *m, double sum, double sum2)
{
	m->mean = sum / (double)m->n;
	m->var = sum2 / (double)m->n - m->mean * m->mean;
}

/* Uniform over [P/2, 3P/2) in n draws: mean 1 (standard deviation of
 * the mean 0.289 / sqrt(n)), variance 1/12 (its standard deviation
 * 0.0745 / sqrt(n)), each tenth of the range 1/10 of the draws (standard
 * deviation 0.3 / sqrt(n)). The bounds are 5 standard deviations at n;
 * fewer draws fail the check. Both ends are reached within 20/n of the
 * range (missed with probability e^-20). */
static void
assert_uniform(const struct moments *m, uint64_t n)
{
	double rn = sqrt((double)n);
	ck_assert_uint_eq(m->outside, 0);
	ck_assert_uint_ge(m->n, n);
	ck_assert_msg(fabs(m->mean - 1) < 5 * 0.289 / rn,
		      "mean %.5f P over %llu draws", m->mean,
		      (unsigned long long)m->n);
	ck_assert_msg(fabs(m->var - 1.0 / 12) < 5 * 0.0745 / rn,
		      "variance %.5f P^2, want 1/12", m->var);
	for (int b = 0; b < 10; b++)
		ck_assert_msg(fabs((double)m->bins[b] / (double)m->n - 0.1) <
				      5 * 0.3 / rn,
			      "tenth %d of the range: %.4f of the draws", b,
			      (double)m->bins[b] / (double)m->n);
	ck_assert_msg(m->lo < 0.5 + 20 / (double)n &&
			      m->hi > 1.5 - 20 / (double)n,
		      "draws from %.5f P to %.5f P", m->lo, m->hi);
}

/* The generator's seeds: 0 (a slot never seeded takes a fixed one), and
 * two others. */
static const uint64_t seeds[] = { 0, 1, 0x0123456789abcdefull };

/* The handler's draws: every EVERY-th sample arms the event with a new
 * period, and each sample weighs the period armed before it. */
START_TEST(timer_redraw_periods)
{
	enum { DRAWS = 200000 };
	const uint64_t P = 1000000;
	siginfo_t si = info_of(POLL_IN);
	struct thread_slot t;
	struct moments m = { 0 };
	double sum = 0, sum2 = 0;
	memset(&t, 0, sizeof(t));
	prof_state.timer = SPOOL_TIMER_PERF;
	prof_state.period_ns = P;
	t.rng = seeds[_i];
	t.armed_ns = P;
	t.jitter_left = EVERY;
	int wrong = 0;
	for (uint64_t d = 0; d < DRAWS; d++) {
		uint64_t armed = t.armed_ns;
		for (int k = 0; k < EVERY; k++)
			wrong |= timer_sample_weight(&t, FAKE_FD, &si) != armed;
		/* Armed once per EVERY samples, with what was drawn. */
		wrong |= set_periods != d + 1 || t.armed_ns != last_period;
		moments_add(&m, P, last_period, &sum, &sum2);
	}
	ck_assert_int_eq(wrong, 0);
	moments_end(&m, sum, sum2);
	assert_uniform(&m, DRAWS);
}
END_TEST

/* A period the kernel refused is not the next sample's weight: the
 * event still counts the one armed before. */
START_TEST(timer_redraw_refused)
{
	siginfo_t si = info_of(POLL_IN);
	struct thread_slot t;
	memset(&t, 0, sizeof(t));
	prof_state.timer = SPOOL_TIMER_PERF;
	prof_state.period_ns = 1000000;
	t.armed_ns = 1234567;
	t.jitter_left = EVERY;
	period_fails = 1;
	uint64_t rng = t.rng;
	for (int i = 0; i < 4 * EVERY; i++)
		ck_assert_uint_eq(timer_sample_weight(&t, FAKE_FD, &si),
				  1234567);
	/* No event at hand (fd -1): the same. */
	for (int i = 0; i < 4 * EVERY; i++)
		ck_assert_uint_eq(timer_sample_weight(&t, -1, &si), 1234567);
	/* The draws were made all the same. */
	ck_assert_uint_ne(t.rng, rng);
	ck_assert_uint_eq(set_periods, 0);
}
END_TEST

/* A thread's first period, drawn at its start (seeded from its tid and
 * the clock); without jitter, the mean period. The event itself cannot
 * be opened for a thread that does not exist. */
START_TEST(timer_first_period_drawn)
{
	enum { THREADS = 4000 };
	const uint64_t P = 1000000;
	struct thread_slot t;
	struct moments m = { 0 };
	double sum = 0, sum2 = 0;
	prof_state.timer = SPOOL_TIMER_PERF;
	prof_state.period_ns = P;
	for (int i = 0; i < THREADS; i++) {
		memset(&t, 0, sizeof(t));
		t.tid = NO_TID + i;
		atomic_store(&t.perf_fd, -1);
		ck_assert_int_lt(timer_thread_start(&t), 0);
		ck_assert_int_eq(atomic_load(&t.perf_fd), -1);
		ck_assert_uint_eq(t.jitter_left, EVERY);
		moments_add(&m, P, t.armed_ns, &sum, &sum2);
	}
	moments_end(&m, sum, sum2);
	assert_uniform(&m, THREADS);
	prof_state.cfg.jitter = 0;
	memset(&t, 0, sizeof(t));
	t.tid = NO_TID;
	ck_assert_int_lt(timer_thread_start(&t), 0);
	ck_assert_uint_eq(t.armed_ns, P);
}
END_TEST

START_TEST(timer_probe_refuses)
{
	ck_assert_int_eq(timer_probe(SPOOL_TIMER_NONE, 1000, SIGPROF), -EINVAL);
	ck_assert_int_eq(timer_probe(99, 1000, SIGPROF), -EINVAL);
	/* ITIMER_PROF sends SIGPROF and nothing else. */
	ck_assert_int_eq(timer_probe(SPOOL_TIMER_ITIMER, 1000, SIGUSR1),
			 -EINVAL);
	ck_assert_int_eq(timer_probe(SPOOL_TIMER_ITIMER, 1000, SIGPROF), 0);
	/* Created and deleted, never armed. */
	ck_assert_int_eq(timer_probe(SPOOL_TIMER_POSIX, 1000, SIGPROF), 0);
}
END_TEST

/* --no-time: no source, the period still set from the rate; a source
 * asked for that cannot work is refused and none is set. */
START_TEST(timer_choose_without_source)
{
	prof_state.cfg.time = 0;
	prof_state.cfg.hz = 250;
	prof_state.timer = SPOOL_TIMER_POSIX;
	ck_assert_int_eq(timer_choose(), 0);
	ck_assert_int_eq(prof_state.timer, SPOOL_TIMER_NONE);
	ck_assert_uint_eq(prof_state.period_ns, 4000000);

	prof_state.cfg.time = 1;
	prof_state.cfg.hz = 97;
	prof_state.cfg.timer_request = SPOOL_TIMER_ITIMER;
	prof_state.cfg.sig = SIGUSR1;
	ck_assert_int_eq(timer_choose(), -EINVAL);
	ck_assert_int_eq(prof_state.timer, SPOOL_TIMER_NONE);
	ck_assert_uint_eq(prof_state.period_ns, 1000000000 / 97);

	prof_state.cfg.sig = SIGPROF;
	ck_assert_int_eq(timer_choose(), 0);
	ck_assert_int_eq(prof_state.timer, SPOOL_TIMER_ITIMER);
}
END_TEST

static Suite *
timer_suite(void)
{
	Suite *s = suite_create("preload:timer");
	TCase *tc = tcase_create("timer");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, timer_signal_is_ours_table, 0,
			    ARRAY_LEN(ours_cases));
	tcase_add_loop_test(tc, timer_jitters_table, 0,
			    ARRAY_LEN(jitters_cases));
	tcase_add_loop_test(tc, timer_weight_posix_overruns, 0,
			    ARRAY_LEN(overrun_cases));
	tcase_add_test(tc, timer_weight_fixed_period);
	tcase_add_test(tc, timer_weight_itimer_cpu_since);
	tcase_add_loop_test(tc, timer_redraw_periods, 0, ARRAY_LEN(seeds));
	tcase_add_test(tc, timer_redraw_refused);
	tcase_add_test(tc, timer_first_period_drawn);
	tcase_add_test(tc, timer_probe_refuses);
	tcase_add_test(tc, timer_choose_without_source);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(timer_suite());
	int failed;

	/* prof_state and the itimer's last sample are the process's. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
