/*
 * state: configuration from the environment and the process-wide flags.
 * profrun validates options before starting the target, so a bad PROF_*
 * value here means the library was preloaded by hand; it says so and stays
 * inert rather than guessing.
 *
 * Layer: base; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "state.h"

#include "log.h"
#include "sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct prof_state prof_state;

static int
parse_uint(const char *name, unsigned lo, unsigned hi, unsigned *out)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		log_msg("%s=%s: expected a number from %u to %u; profiling disabled",
			name, s, lo, hi);
		return -EINVAL;
	}
	*out = (unsigned)v;
	return 0;
}

static int
parse_u64(const char *name, uint64_t *out)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || *s == '-') {
		log_msg("%s=%s: expected a whole number; profiling disabled", name, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* Seconds, possibly fractional, as nanoseconds. */
static int
parse_seconds(const char *name, uint64_t *out_ns)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return 0;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !(v >= 0) || v > 1e9) {
		log_msg("%s=%s: expected seconds; profiling disabled", name, s);
		return -EINVAL;
	}
	*out_ns = (uint64_t)(v * 1e9);
	return 0;
}

static int
parse_timer(int *out)
{
	static const char *const names[] = {
		[SPOOL_TIMER_NONE] = "auto", [SPOOL_TIMER_PERF] = "perf",
		[SPOOL_TIMER_POSIX] = "posix", [SPOOL_TIMER_ITIMER] = "itimer",
	};
	const char *s = getenv("PROF_TIMER");
	*out = SPOOL_TIMER_NONE;
	if (!s || !*s)
		return 0;
	for (int i = 0; i < 4; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	log_msg("PROF_TIMER=%s: expected auto, perf, posix or itimer; profiling disabled",
		s);
	return -EINVAL;
}

static int
parse_clock(int *out)
{
	const char *s = getenv("PROF_CLOCK");
	*out = SPOOL_CLOCK_CPU;
	if (!s || !*s || strcmp(s, "cpu") == 0)
		return 0;
	if (strcmp(s, "wall") == 0) {
		*out = SPOOL_CLOCK_WALL;
		return 0;
	}
	log_msg("PROF_CLOCK=%s: expected cpu or wall; profiling disabled", s);
	return -EINVAL;
}

int
prof_config_from_env(struct prof_config *cfg)
{
	const char *path = getenv("PROF_SPOOL");
	if (!path || !*path)
		return 0;
	if (strlen(path) >= sizeof(cfg->spool_path)) {
		log_msg("PROF_SPOOL: path too long; profiling disabled");
		return -EINVAL;
	}
	strcpy(cfg->spool_path, path);
	const char *output = getenv("PROF_OUTPUT");
	if (!output || !*output)
		output = path;
	if (strlen(output) >= sizeof(cfg->output) - 32) {
		log_msg("PROF_OUTPUT: path too long; profiling disabled");
		return -EINVAL;
	}
	strcpy(cfg->output, output);
	/* profrun gives the program a temporary PROF_SPOOL and renames it
	 * when the program has ended; messages name the file the user will
	 * find. */
	const char *final = getenv("PROF_SPOOL_FINAL");
	if (!final || !*final)
		final = path;
	if (strlen(final) >= sizeof(cfg->spool_final)) {
		log_msg("PROF_SPOOL_FINAL: path too long; profiling disabled");
		return -EINVAL;
	}
	strcpy(cfg->spool_final, final);
	/* PROF_PARENT names profrun: the process it started, its child, is
	 * the primary (as are the images that process execs). Without it (the
	 * library preloaded by hand) the first process to load it is. */
	const char *parent = getenv("PROF_PARENT");
	cfg->primary = !parent || !*parent ||
		       strtol(parent, NULL, 10) == (long)getppid();
	unsigned follow = 1;
	if (parse_uint("PROF_FOLLOW", 0, 1, &follow))
		return -EINVAL;
	cfg->follow = (int)follow;
	if (!cfg->primary && !cfg->follow)
		return 0;
	cfg->hz = PROF_DEFAULT_HZ;
	cfg->max_depth = SPOOL_MAX_DEPTH;
	cfg->sig = SIGPROF;
	unsigned sig = SIGPROF;
	if (parse_uint("PROF_HZ", 1, PROF_MAX_HZ, &cfg->hz) ||
	    parse_uint("PROF_MAX_DEPTH", 1, SPOOL_DEPTH_LIMIT, &cfg->max_depth) ||
	    parse_uint("PROF_SIGNAL", 1, (unsigned)SIGRTMAX, &sig) ||
	    parse_timer(&cfg->timer_request) || parse_clock(&cfg->clock))
		return -EINVAL;
	cfg->sig = (int)sig;
	unsigned paused = 0, toggle = 0;
	if (parse_uint("PROF_START_PAUSED", 0, 1, &paused) ||
	    parse_uint("PROF_TOGGLE_SIGNAL", 0, (unsigned)SIGRTMAX, &toggle) ||
	    parse_u64("PROF_MAX_SAMPLES", &cfg->max_samples) ||
	    parse_u64("PROF_MAX_SIZE", &cfg->max_size) ||
	    parse_seconds("PROF_DELAY", &cfg->delay_ns) ||
	    parse_seconds("PROF_DURATION", &cfg->duration_ns))
		return -EINVAL;
	if (cfg->max_size && cfg->max_size < PROF_MIN_MAX_SIZE) {
		log_msg("PROF_MAX_SIZE is below %u bytes; profiling disabled",
			PROF_MIN_MAX_SIZE);
		return -EINVAL;
	}
	if (toggle && (int)toggle == cfg->sig) {
		log_msg("PROF_TOGGLE_SIGNAL is the sampling signal; profiling disabled");
		return -EINVAL;
	}
	cfg->start_paused = (int)paused;
	cfg->toggle_sig = (int)toggle;
	unsigned time = 1, jitter = 1;
	cfg->space_interval = PROF_DEFAULT_SPACE_INTERVAL;
	if (parse_uint("PROF_TIME", 0, 1, &time) ||
	    parse_uint("PROF_JITTER", 0, 1, &jitter) ||
	    parse_u64("PROF_SPACE_INTERVAL", &cfg->space_interval) ||
	    parse_u64("PROF_SPACE_SEED", &cfg->space_seed))
		return -EINVAL;
	if (cfg->space_interval > PROF_MAX_SPACE_INTERVAL) {
		log_msg("PROF_SPACE_INTERVAL: more than 2^40 bytes; profiling disabled");
		return -EINVAL;
	}
	cfg->time = (int)time;
	cfg->jitter = (int)jitter;
	return 1;
}

/* async-signal-safe */
void
prof_disable(const char *why)
{
	/* disabled first: a fork's postfork, which restores enabled, reads
	 * it after (preload.c, resume_after_fork). */
	int was = atomic_exchange(&prof_state.disabled, 1);
	atomic_store(&prof_state.enabled, 0);
	if (!was)
		log_msg("%s; profiling disabled, the program continues", why);
}

/* async-signal-safe */
uint64_t
prof_clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* async-signal-safe */
int
prof_fd_raise(int fd, int min)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, min);
	close(fd);
	return high < 0 ? -EMFILE : high;
}

/* Numbers above the one asked for that a lifted limit leaves room for:
 * the library's other descriptors may hold the first ones. */
#define FD_LIFT_ROOM 64

int
prof_fd_raise_start(int fd, int min)
{
	int high = fcntl(fd, F_DUPFD_CLOEXEC, min);
	struct rlimit rl, lifted;
	if (high >= 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
	    rl.rlim_cur >= rl.rlim_max) {
		close(fd);
		return high < 0 ? -EMFILE : high;
	}
	/* min when the hard limit allows it, else the first number the
	 * program cannot be given. */
	rlim_t want = (rlim_t)min < rl.rlim_max ? (rlim_t)min : rl.rlim_cur;
	if (want < rl.rlim_cur)
		want = rl.rlim_cur;
	lifted = rl;
	lifted.rlim_cur = rl.rlim_max - want > FD_LIFT_ROOM
				  ? want + FD_LIFT_ROOM
				  : rl.rlim_max;
	if (want <= (rlim_t)INT32_MAX &&
	    setrlimit(RLIMIT_NOFILE, &lifted) == 0) {
		high = fcntl(fd, F_DUPFD_CLOEXEC, (int)want);
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	close(fd);
	return high < 0 ? -EMFILE : high;
}

/* async-signal-safe */
void
prof_cpu_ns(uint64_t *utime, uint64_t *stime)
{
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	getrusage(RUSAGE_SELF, &ru);
	*utime = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
		 (uint64_t)ru.ru_utime.tv_usec * 1000u;
	*stime = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
		 (uint64_t)ru.ru_stime.tv_usec * 1000u;
}

/* async-signal-safe */
uint64_t
prof_now_ns(void)
{
	return prof_clock_ns(CLOCK_MONOTONIC);
}

static volatile uint8_t *prof_image_page;

void
prof_image_mark(void)
{
	if (!prof_image_page) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return;
		if (madvise(p, 4096, MADV_WIPEONFORK) != 0) {
			munmap(p, 4096);
			return;
		}
		prof_image_page = p;
	}
	*prof_image_page = 1;
}

/* async-signal-safe */
int
prof_in_image(void)
{
	if (prof_image_page)
		return *prof_image_page;
	return (pid_t)sys_call(SYS_getpid) == prof_state.pid;
}
