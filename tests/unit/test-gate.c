/*
 * Unit tests of the sampling gate (preload/core/gate.c), built with the
 * base below it (state, log, sys): the start as configured (paused,
 * toggled off); pauses that nest and a start without a pause that is
 * ignored; the toggle, independent of pauses; none of these lost when
 * threads change the gate at once; the sample limit that
 * closes the gate for good; the size limit that closes it until a new
 * spool; and the delay and duration, measured from the image's start
 * (prof_state.start_mono_ns, moved back here instead of waiting).
 */
#include "gate.h"
#include "state.h"

#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define SEC 1000000000ull

static void
setup(void)
{
	memset(&prof_state.cfg, 0, sizeof(prof_state.cfg));
	prof_state.start_mono_ns = prof_now_ns();
	gate_init(0, 0);
}

static const struct {
	int paused, toggled, open;
} init_cases[] = {
	{ 0, 0, 1 },
	{ 1, 0, 0 },
	{ 0, 1, 0 },
	{ 1, 1, 0 },
};

START_TEST(gate_init_table)
{
	gate_init(init_cases[_i].paused, init_cases[_i].toggled);
	ck_assert_int_eq(gate_open(), init_cases[_i].open);
	ck_assert_int_eq(gate_shut_now() == 0, init_cases[_i].open);
	/* One resume ends the start's pause; the toggle stays. */
	gate_resume();
	ck_assert_int_eq(gate_open(), !init_cases[_i].toggled);
}
END_TEST

START_TEST(gate_pause_nests)
{
	gate_pause();
	gate_pause();
	gate_pause();
	ck_assert(!gate_open());
	gate_resume();
	ck_assert(!gate_open());
	gate_resume();
	ck_assert(!gate_open());
	gate_resume();
	ck_assert(gate_open());
}
END_TEST

/* A start without a pause to end is ignored: a stop after it pauses. */
START_TEST(gate_resume_without_pause)
{
	gate_resume();
	gate_resume();
	ck_assert(gate_open());
	ck_assert_uint_eq(gate_shut_now(), 0);
	gate_pause();
	ck_assert(!gate_open());
	gate_resume();
	ck_assert(gate_open());
}
END_TEST

START_TEST(gate_toggle_beside_pause)
{
	gate_toggle();
	ck_assert(!gate_open());
	gate_toggle();
	ck_assert(gate_open());
	/* Toggled off while paused: resuming does not open it, toggling
	 * back does, and the other way round. */
	gate_pause();
	gate_toggle();
	gate_resume();
	ck_assert(!gate_open());
	gate_pause();
	gate_toggle();
	ck_assert(!gate_open());
	gate_resume();
	ck_assert(gate_open());
	/* Toggled many times: the parity counts. */
	for (int i = 0; i < 7; i++)
		gate_toggle();
	ck_assert(!gate_open());
}
END_TEST

/* With a limit of 5, the fifth sample counted closes the gate; nothing
 * reopens it. */
START_TEST(gate_sample_limit)
{
	prof_state.cfg.max_samples = 5;
	for (int i = 0; i < 4; i++) {
		gate_count_sample();
		ck_assert_msg(gate_open(), "closed after %d samples", i + 1);
	}
	gate_count_sample();
	ck_assert(!gate_open());
	gate_toggle();
	gate_toggle();
	gate_resume();
	gate_size(0);
	ck_assert(!gate_open());
}
END_TEST

START_TEST(gate_no_sample_limit)
{
	for (int i = 0; i < 100000; i++)
		gate_count_sample();
	ck_assert(gate_open());
}
END_TEST

/* The size limit closes the gate until a new spool (a forked child's)
 * has none of it; a pause meanwhile is kept. */
START_TEST(gate_size_stop)
{
	gate_size(1);
	ck_assert(!gate_open());
	gate_size(1);
	gate_resume();
	gate_toggle();
	gate_toggle();
	ck_assert(!gate_open());
	gate_pause();
	gate_size(0);
	ck_assert(!gate_open());
	gate_resume();
	ck_assert(gate_open());
}
END_TEST

/* Pauses, toggles and stops from four threads at once: none is lost
 * (read-modify-writes of the one word). Each thread pauses PAUSES
 * times, toggles an even number of times and sets and clears the size
 * stop; then PAUSES * 4 resumes open the gate, one fewer does not. */
enum { PAUSES = 200000, THREADS = 4 };
static pthread_barrier_t start_line;

static void *
hammer(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	for (int i = 0; i < PAUSES; i++) {
		gate_pause();
		gate_toggle();
		gate_size(1);
		gate_toggle();
		gate_size(0);
	}
	return NULL;
}

START_TEST(gate_concurrent_changes)
{
	pthread_t th[THREADS];
	ck_assert_int_eq(pthread_barrier_init(&start_line, NULL, THREADS), 0);
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, hammer, NULL), 0);
	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < PAUSES * THREADS - 1; i++)
		gate_resume();
	ck_assert(!gate_open());
	gate_resume();
	ck_assert_msg(gate_open(), "shut word 0x%x after every resume",
		      gate_shut_now());
}
END_TEST

/* Delay and duration, by the seconds since the start. */
static const struct {
	uint64_t delay, duration, elapsed; /* seconds */
	int open;
} timed_cases[] = {
	{ 0, 0, 0, 1 },   { 0, 0, 25, 1 },  /* neither: always open */
	{ 10, 0, 0, 0 },  { 10, 0, 9, 0 },  /* before the delay */
	{ 10, 0, 11, 1 }, { 10, 0, 25, 1 }, /* after it, no duration */
	{ 0, 5, 0, 1 },   { 0, 5, 4, 1 },   /* within the duration */
	{ 0, 5, 6, 0 },   { 0, 5, 25, 0 },  /* past it */
	{ 10, 5, 9, 0 },  { 10, 5, 11, 1 }, /* the duration starts */
	{ 10, 5, 14, 1 }, { 10, 5, 16, 0 }, /* after the delay */
};

START_TEST(gate_timed_table)
{
	uint64_t now = prof_now_ns();
	uint64_t elapsed = timed_cases[_i].elapsed * SEC;
	/* The monotonic clock counts from boot: a start 25 s back. */
	ck_assert_uint_gt(now, 30 * SEC);
	prof_state.cfg.delay_ns = timed_cases[_i].delay * SEC;
	prof_state.cfg.duration_ns = timed_cases[_i].duration * SEC;
	prof_state.start_mono_ns = now - elapsed;
	ck_assert_msg(gate_open() == timed_cases[_i].open,
		      "delay %llu s, duration %llu s, %llu s in: want %s",
		      (unsigned long long)timed_cases[_i].delay,
		      (unsigned long long)timed_cases[_i].duration,
		      (unsigned long long)timed_cases[_i].elapsed,
		      timed_cases[_i].open ? "open" : "closed");
	/* The shut word is the rest of the gate: timing is not in it. */
	ck_assert_uint_eq(gate_shut_now(), 0);
	/* Paused closes it whatever the time. */
	gate_pause();
	ck_assert(!gate_open());
}
END_TEST

static Suite *
gate_suite(void)
{
	Suite *s = suite_create("preload:gate");
	TCase *tc = tcase_create("gate");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_loop_test(tc, gate_init_table, 0, ARRAY_LEN(init_cases));
	tcase_add_test(tc, gate_pause_nests);
	tcase_add_test(tc, gate_resume_without_pause);
	tcase_add_test(tc, gate_toggle_beside_pause);
	tcase_add_test(tc, gate_sample_limit);
	tcase_add_test(tc, gate_no_sample_limit);
	tcase_add_test(tc, gate_size_stop);
	tcase_add_test(tc, gate_concurrent_changes);
	tcase_add_loop_test(tc, gate_timed_table, 0, ARRAY_LEN(timed_cases));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(gate_suite());
	int failed;

	/* The sample counter is the process's: a process per check. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
