/*
 * Unit tests of the library's configuration and descriptors
 * (preload/base/state.c), built with log.c and sys.c: prof_config_from_env
 * with no PROF_SPOOL (inert), its defaults, each PROF_* variable's valid
 * values as the fields it sets, each invalid one refused (-EINVAL) with a
 * line on stderr naming the variable, and a child process not followed
 * (inert, its other variables unread); prof_fd_raise moving a descriptor
 * to the lowest free number at or above the one asked for, close-on-exec,
 * closing the old one, or refusing (-EMFILE) above RLIMIT_NOFILE; and
 * prof_fd_raise_start, which lifts the soft limit for the move only;
 * prof_disable, which says why once; and the image's mark, which a
 * forked child does not inherit.
 * Every check runs in a process of its own (the environment, stderr and
 * RLIMIT_NOFILE are changed).
 *
 * The configuration is read into a zeroed struct, as the library reads
 * it into prof_state (static storage): PROF_MAX_SAMPLES, PROF_MAX_SIZE,
 * PROF_DELAY, PROF_DURATION and PROF_SPACE_SEED, when unset, leave the
 * field as it was, so they have no default of their own.
 */
#include "state.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const vars[] = {
	"PROF_SPOOL", "PROF_OUTPUT", "PROF_SPOOL_FINAL", "PROF_PARENT",
	"PROF_FOLLOW", "PROF_HZ", "PROF_MAX_DEPTH", "PROF_SIGNAL",
	"PROF_TIMER", "PROF_CLOCK", "PROF_START_PAUSED",
	"PROF_TOGGLE_SIGNAL", "PROF_MAX_SAMPLES", "PROF_MAX_SIZE",
	"PROF_DELAY", "PROF_DURATION", "PROF_TIME", "PROF_JITTER",
	"PROF_SPACE_INTERVAL", "PROF_SPACE_SEED",
};

static char err_path[64];

/* No PROF_* variable but the spool's; stderr into a file of its own. */
static void
setup(void)
{
	for (size_t i = 0; i < ARRAY_LEN(vars); i++)
		unsetenv(vars[i]);
	setenv("PROF_SPOOL", "/tmp/test-state.spool", 1);
	snprintf(err_path, sizeof(err_path), "/tmp/test-state-%d.err",
		 (int)getpid());
	int fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(dup2(fd, 2), 2);
	close(fd);
}

static void
teardown(void)
{
	unlink(err_path);
}

/* What was written to stderr. */
static const char *
stderr_text(void)
{
	static char buf[4096];
	FILE *f = fopen(err_path, "r");
	ck_assert_ptr_nonnull(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

START_TEST(state_no_spool_inert)
{
	struct prof_config cfg = { 0 };
	unsetenv("PROF_SPOOL");
	setenv("PROF_HZ", "0", 1); /* not read */
	ck_assert_int_eq(prof_config_from_env(&cfg), 0);
	setenv("PROF_SPOOL", "", 1);
	ck_assert_int_eq(prof_config_from_env(&cfg), 0);
	ck_assert_str_eq(stderr_text(), "");
}
END_TEST

START_TEST(state_defaults)
{
	struct prof_config cfg = { 0 };
	ck_assert_int_eq(prof_config_from_env(&cfg), 1);
	ck_assert_str_eq(cfg.spool_path, "/tmp/test-state.spool");
	ck_assert_str_eq(cfg.output, "/tmp/test-state.spool");
	ck_assert_str_eq(cfg.spool_final, "/tmp/test-state.spool");
	ck_assert_int_eq(cfg.primary, 1);
	ck_assert_int_eq(cfg.follow, 1);
	ck_assert_uint_eq(cfg.hz, PROF_DEFAULT_HZ);
	ck_assert_int_eq(cfg.timer_request, SPOOL_TIMER_NONE);
	ck_assert_int_eq(cfg.clock, SPOOL_CLOCK_CPU);
	ck_assert_uint_eq(cfg.max_depth, SPOOL_MAX_DEPTH);
	ck_assert_int_eq(cfg.sig, SIGPROF);
	ck_assert_int_eq(cfg.start_paused, 0);
	ck_assert_int_eq(cfg.toggle_sig, 0);
	ck_assert_uint_eq(cfg.max_samples, 0);
	ck_assert_uint_eq(cfg.max_size, 0);
	ck_assert_uint_eq(cfg.delay_ns, 0);
	ck_assert_uint_eq(cfg.duration_ns, 0);
	ck_assert_int_eq(cfg.time, 1);
	ck_assert_int_eq(cfg.jitter, 1);
	ck_assert_uint_eq(cfg.space_interval, PROF_DEFAULT_SPACE_INTERVAL);
	ck_assert_uint_eq(cfg.space_seed, 0);
	ck_assert_str_eq(stderr_text(), "");
}
END_TEST

#define F(field) offsetof(struct prof_config, field), \
	sizeof(((struct prof_config *)0)->field)

static const struct {
	const char *var, *value;
	size_t off, size;
	uint64_t want;
} valid_cases[] = {
	{ "PROF_HZ", "1", F(hz), 1 },
	{ "PROF_HZ", "100000", F(hz), PROF_MAX_HZ },
	{ "PROF_HZ", "997", F(hz), 997 },
	{ "PROF_MAX_DEPTH", "1", F(max_depth), 1 },
	{ "PROF_MAX_DEPTH", "1024", F(max_depth), SPOOL_DEPTH_LIMIT },
	{ "PROF_SIGNAL", "10", F(sig), 10 },
	{ "PROF_SIGNAL", "1", F(sig), 1 },
	{ "PROF_TIMER", "auto", F(timer_request), SPOOL_TIMER_NONE },
	{ "PROF_TIMER", "perf", F(timer_request), SPOOL_TIMER_PERF },
	{ "PROF_TIMER", "posix", F(timer_request), SPOOL_TIMER_POSIX },
	{ "PROF_TIMER", "itimer", F(timer_request), SPOOL_TIMER_ITIMER },
	{ "PROF_CLOCK", "cpu", F(clock), SPOOL_CLOCK_CPU },
	{ "PROF_CLOCK", "wall", F(clock), SPOOL_CLOCK_WALL },
	{ "PROF_START_PAUSED", "1", F(start_paused), 1 },
	{ "PROF_START_PAUSED", "0", F(start_paused), 0 },
	{ "PROF_TOGGLE_SIGNAL", "12", F(toggle_sig), 12 },
	{ "PROF_TOGGLE_SIGNAL", "0", F(toggle_sig), 0 },
	{ "PROF_MAX_SAMPLES", "5", F(max_samples), 5 },
	{ "PROF_MAX_SAMPLES", "18446744073709551615", F(max_samples),
	  UINT64_MAX },
	{ "PROF_MAX_SIZE", "262144", F(max_size), PROF_MIN_MAX_SIZE },
	{ "PROF_MAX_SIZE", "0", F(max_size), 0 },
	{ "PROF_DELAY", "1.5", F(delay_ns), 1500000000 },
	{ "PROF_DELAY", "0", F(delay_ns), 0 },
	{ "PROF_DURATION", "0.25", F(duration_ns), 250000000 },
	{ "PROF_DURATION", "1000000000", F(duration_ns),
	  1000000000ull * 1000000000ull },
	{ "PROF_TIME", "0", F(time), 0 },
	{ "PROF_JITTER", "0", F(jitter), 0 },
	{ "PROF_SPACE_INTERVAL", "0", F(space_interval), 0 },
	{ "PROF_SPACE_INTERVAL", "1099511627776", F(space_interval),
	  PROF_MAX_SPACE_INTERVAL },
	{ "PROF_SPACE_SEED", "7", F(space_seed), 7 },
	{ "PROF_FOLLOW", "0", F(follow), 0 },
	{ "PROF_HZ", "", F(hz), PROF_DEFAULT_HZ }, /* empty: the default */
};

START_TEST(state_valid_table)
{
	struct prof_config cfg = { 0 };
	uint64_t got = 0;
	setenv(valid_cases[_i].var, valid_cases[_i].value, 1);
	ck_assert_int_eq(prof_config_from_env(&cfg), 1);
	if (valid_cases[_i].size == 8) {
		memcpy(&got, (const char *)&cfg + valid_cases[_i].off, 8);
	} else {
		uint32_t v;
		ck_assert_uint_eq(valid_cases[_i].size, 4);
		memcpy(&v, (const char *)&cfg + valid_cases[_i].off, 4);
		got = v;
	}
	ck_assert_msg(got == valid_cases[_i].want, "%s=%s: %llu, want %llu",
		      valid_cases[_i].var, valid_cases[_i].value,
		      (unsigned long long)got,
		      (unsigned long long)valid_cases[_i].want);
	ck_assert_str_eq(stderr_text(), "");
}
END_TEST

static const struct {
	const char *var, *value;
} invalid_cases[] = {
	{ "PROF_HZ", "0" },         { "PROF_HZ", "100001" },
	{ "PROF_HZ", "abc" },       { "PROF_HZ", "10x" },
	{ "PROF_HZ", "-1" },        { "PROF_HZ", "99999999999999999999" },
	{ "PROF_MAX_DEPTH", "0" },  { "PROF_MAX_DEPTH", "1025" },
	{ "PROF_SIGNAL", "0" },     { "PROF_SIGNAL", "65" },
	{ "PROF_TIMER", "hpet" },   { "PROF_TIMER", "Perf" },
	{ "PROF_CLOCK", "real" },   { "PROF_START_PAUSED", "2" },
	{ "PROF_TOGGLE_SIGNAL", "65" },
	{ "PROF_TOGGLE_SIGNAL", "27" }, /* the sampling signal, SIGPROF */
	{ "PROF_MAX_SAMPLES", "-1" },  { "PROF_MAX_SAMPLES", "12x" },
	{ "PROF_MAX_SAMPLES", "18446744073709551616" },
	{ "PROF_MAX_SIZE", "262143" }, { "PROF_MAX_SIZE", "1" },
	{ "PROF_MAX_SIZE", "1M" },
	{ "PROF_DELAY", "-1" },     { "PROF_DELAY", "abc" },
	{ "PROF_DELAY", "1000000001" }, { "PROF_DELAY", "nan" },
	{ "PROF_DURATION", "inf" }, { "PROF_DURATION", "2s" },
	{ "PROF_TIME", "2" },       { "PROF_JITTER", "yes" },
	{ "PROF_SPACE_INTERVAL", "1099511627777" },
	{ "PROF_SPACE_INTERVAL", "-5" },
	{ "PROF_SPACE_SEED", "x" },  { "PROF_FOLLOW", "2" },
};

START_TEST(state_invalid_table)
{
	struct prof_config cfg = { 0 };
	const char *var = invalid_cases[_i].var;
	setenv(var, invalid_cases[_i].value, 1);
	ck_assert_msg(prof_config_from_env(&cfg) == -EINVAL, "%s=%s accepted",
		      var, invalid_cases[_i].value);
	/* One line, naming the variable. */
	const char *err = stderr_text();
	ck_assert_msg(strstr(err, var) != NULL, "%s: message %s", var, err);
	ck_assert_ptr_nonnull(strstr(err, "profiling disabled"));
	ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
}
END_TEST

/* A path that does not fit is refused; PROF_OUTPUT keeps 32 bytes for
 * the .PID.N its children add (and without it the spool's path is the
 * output's: a spool path that long is refused too). */
START_TEST(state_paths_too_long)
{
	static char path[PATH_MAX + 1];
	struct prof_config cfg = { 0 };
	static const struct {
		const char *var;
		size_t len;
		int rc;
	} cases[] = {
		{ "PROF_SPOOL", PATH_MAX, -EINVAL },
		{ "PROF_SPOOL", PATH_MAX - 1, 1 },
		{ "PROF_OUTPUT", PATH_MAX - 32, -EINVAL },
		{ "PROF_OUTPUT", PATH_MAX - 33, 1 },
		{ "PROF_SPOOL_FINAL", PATH_MAX, -EINVAL },
		{ "PROF_SPOOL_FINAL", PATH_MAX - 1, 1 },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		setup();
		/* PROF_OUTPUT defaults to the spool's path: a short one. */
		setenv("PROF_OUTPUT", "/tmp/o", 1);
		memset(path, 'a', cases[i].len);
		path[0] = '/';
		path[cases[i].len] = '\0';
		setenv(cases[i].var, path, 1);
		ck_assert_msg(prof_config_from_env(&cfg) == cases[i].rc,
			      "%s of %zu bytes", cases[i].var, cases[i].len);
		if (cases[i].rc < 0)
			ck_assert_ptr_nonnull(strstr(stderr_text(),
						     cases[i].var));
	}
	setup();
	memset(path, 'a', PATH_MAX - 32);
	path[PATH_MAX - 32] = '\0';
	setenv("PROF_SPOOL", path, 1);
	ck_assert_int_eq(prof_config_from_env(&cfg), -EINVAL);
	ck_assert_ptr_nonnull(strstr(stderr_text(), "PROF_OUTPUT"));
	setup();
	setenv("PROF_OUTPUT", "/tmp/out", 1);
	setenv("PROF_SPOOL_FINAL", "/tmp/final", 1);
	ck_assert_int_eq(prof_config_from_env(&cfg), 1);
	ck_assert_str_eq(cfg.output, "/tmp/out");
	ck_assert_str_eq(cfg.spool_final, "/tmp/final");
}
END_TEST

/* PROF_PARENT names profrun: its child is the primary process. Any other
 * is a child of the program's, profiled only under PROF_FOLLOW, else
 * inert without reading the rest. */
START_TEST(state_parent_and_follow)
{
	struct prof_config cfg = { 0 };
	char ppid[32];
	snprintf(ppid, sizeof(ppid), "%d", (int)getppid());
	setenv("PROF_PARENT", ppid, 1);
	ck_assert_int_eq(prof_config_from_env(&cfg), 1);
	ck_assert_int_eq(cfg.primary, 1);
	setenv("PROF_PARENT", "999999999", 1);
	ck_assert_int_eq(prof_config_from_env(&cfg), 1);
	ck_assert_int_eq(cfg.primary, 0);
	ck_assert_int_eq(cfg.follow, 1);
	setenv("PROF_FOLLOW", "0", 1);
	setenv("PROF_HZ", "0", 1); /* not read */
	ck_assert_int_eq(prof_config_from_env(&cfg), 0);
	ck_assert_int_eq(cfg.primary, 0);
	ck_assert_str_eq(stderr_text(), "");
	/* The primary reads it. */
	setenv("PROF_PARENT", ppid, 1);
	ck_assert_int_eq(prof_config_from_env(&cfg), -EINVAL);
}
END_TEST

/* Whether fd is open. */
static int
is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

START_TEST(state_fd_raise)
{
	int fd = open("/dev/null", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_lt(fd, 100);
	ck_assert_int_eq(dup2(fd, 100), 100);
	ck_assert_int_eq(dup2(fd, 101), 101);
	int high = prof_fd_raise(fd, 100);
	/* The lowest free number from 100 up; the old one closed. */
	ck_assert_int_eq(high, 102);
	ck_assert(!is_open(fd));
	ck_assert_int_eq(fcntl(high, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(fcntl(100, F_GETFD) & FD_CLOEXEC, 0);
	/* Above the soft limit: refused, and the old one still closed. */
	struct rlimit rl;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(prof_fd_raise(fd, (int)rl.rlim_cur), -EMFILE);
	ck_assert(!is_open(fd));
	rl.rlim_cur = 128;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(prof_fd_raise(fd, 512), -EMFILE);
	ck_assert(!is_open(fd));
}
END_TEST

/* The soft limit lifted for the move only: the number asked for when
 * the hard limit allows it, the soft limit put back after; where the
 * hard limit is the soft one, refused. */
START_TEST(state_fd_raise_start)
{
	struct rlimit rl, after;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_msg(rl.rlim_max > 1024, "hard RLIMIT_NOFILE %llu",
		      (unsigned long long)rl.rlim_max);
	rl.rlim_cur = 128;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	int fd = open("/dev/null", O_RDONLY);
	int high = prof_fd_raise_start(fd, 512);
	ck_assert_int_eq(high, 512);
	ck_assert(!is_open(fd));
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &after), 0);
	ck_assert_uint_eq(after.rlim_cur, 128);
	ck_assert_uint_eq(after.rlim_max, rl.rlim_max);
	/* Beyond the hard limit: the first number the program cannot be
	 * given, the soft limit. */
	fd = open("/dev/null", O_RDONLY);
	high = prof_fd_raise_start(fd, (int)rl.rlim_max + 10);
	ck_assert_int_eq(high, 128);
	/* Soft = hard: nothing to lift. */
	rl.rlim_max = 128;
	ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(prof_fd_raise_start(fd, 512), -EMFILE);
	ck_assert(!is_open(fd));
	/* Room below the limit: the plain move. */
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(prof_fd_raise_start(fd, 100), 100);
}
END_TEST

/* The first failure says why once; every one turns sampling off. */
START_TEST(state_disable_once)
{
	atomic_store(&prof_state.enabled, 1);
	prof_disable("the first reason");
	ck_assert_int_eq(atomic_load(&prof_state.enabled), 0);
	ck_assert_int_eq(atomic_load(&prof_state.disabled), 1);
	atomic_store(&prof_state.enabled, 1);
	prof_disable("the second reason");
	ck_assert_int_eq(atomic_load(&prof_state.enabled), 0);
	ck_assert_str_eq(stderr_text(),
			 "profrun: the first reason; profiling disabled, the "
			 "program continues\n");
}
END_TEST

/* The image's mark: set here, wiped in a forked child (which must never
 * write into the parent's spool), set again by a child that marks
 * itself. */
START_TEST(state_image_mark_fork)
{
	prof_state.pid = getpid();
	prof_image_mark();
	ck_assert_int_eq(prof_in_image(), 1);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int before = prof_in_image();
		prof_image_mark();
		_exit(before == 0 && prof_in_image() == 1 ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(prof_in_image(), 1);
}
END_TEST

static Suite *
state_suite(void)
{
	Suite *s = suite_create("preload:state");
	TCase *tc = tcase_create("state");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, state_no_spool_inert);
	tcase_add_test(tc, state_defaults);
	tcase_add_loop_test(tc, state_valid_table, 0, ARRAY_LEN(valid_cases));
	tcase_add_loop_test(tc, state_invalid_table, 0,
			    ARRAY_LEN(invalid_cases));
	tcase_add_test(tc, state_paths_too_long);
	tcase_add_test(tc, state_parent_and_follow);
	tcase_add_test(tc, state_fd_raise);
	tcase_add_test(tc, state_fd_raise_start);
	tcase_add_test(tc, state_disable_once);
	tcase_add_test(tc, state_image_mark_fork);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(state_suite());
	int failed;

	/* The environment, stderr and the descriptor limit are changed. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
