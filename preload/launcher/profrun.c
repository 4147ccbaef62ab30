/*
 * profrun: runs a program with libprofrun.so preloaded and exits with the
 * program's status.
 *
 * Everything that can be checked before the program starts is checked here,
 * so that a mistake costs the user a one-line error instead of a run: the
 * options, that the program exists and can take LD_PRELOAD (dynamically
 * linked, not set-id), that the timer asked for works, and that the spool
 * can be created. The spool is written under a fresh temporary name and
 * renamed into place when the program has ended, keeping an older spool as
 * FILE.old, as perf does with perf.data.
 *
 * Not part of the preloaded library: the launcher, an ordinary program.
 *
 * Layer: launcher, apart from the library: it links log, state, sys
 * (base) and timer (core), and none of the library's wrappers.
 */
#include "log.h"
#include "spool.h"
#include "state.h"
#include "timer.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PROFRUN_LIBDIR
#define PROFRUN_LIBDIR "/usr/local/lib"
#endif

struct options {
	const char *output;
	unsigned hz;
	int timer;
	int wall;                /* --clock=wall */
	int quiet;
	int follow;
	int sig;
	int start_paused;
	int toggle_sig;
	const char *max_samples;
	uint64_t max_size;       /* --max-size, or 0 */
	unsigned max_depth;      /* frames per sample */
	const char *delay;
	const char *duration;
	int time;                /* sample CPU time */
	int jitter;              /* random periods (perf source) */
	uint64_t space_interval; /* mean bytes between allocation samples */
	const char *space_seed;  /* --space-seed, NULL: random */
};

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: profrun [OPTIONS] [--] PROGRAM [ARGS...]\n"
		"Run PROGRAM with the profiler preloaded; write its samples to a spool\n"
		"file for profanalyze(1). Exits with PROGRAM's exit status (128+N when\n"
		"it died by signal N). HUP, INT, QUIT, TERM, USR1 and USR2 sent to\n"
		"profrun are passed on to PROGRAM.\n"
		"\n"
		"  -o, --output=FILE      spool file (default prof.spool); an existing\n"
		"                         regular FILE is kept as FILE.old\n"
		"  -F, --frequency=HZ     CPU-time samples per second per thread\n"
		"                         (default 1000, 1 to 100000)\n"
		"      --timer=SOURCE     auto (default), perf, posix or itimer\n"
		"      --clock=CLOCK      cpu (default): CPU time; wall: wall-clock\n"
		"                         time, also while threads are blocked\n"
		"                         (sleeping, waiting for locks or I/O)\n"
		"      --no-follow        profile only PROGRAM's own process, not the\n"
		"                         processes it forks or the programs it runs\n"
		"                         (by default each writes FILE.PID)\n"
		"      --signal=SIG       sampling signal, a number or name (default\n"
		"                         SIGPROF), for programs that use SIGPROF\n"
		"      --start-paused     sample nothing until the program calls\n"
		"                         profrun_start() (see profrun.h), or until\n"
		"                         the toggle signal with --toggle-signal\n"
		"      --toggle-signal=SIG  a signal that pauses and resumes sampling\n"
		"      --max-samples=N    stop sampling after N samples\n"
		"      --max-size=BYTES   stop sampling when the records written to a\n"
		"                         spool reach BYTES\n"
		"                         (at least 256K; K, M and G suffixes)\n"
		"      --no-jitter        perf source: a fixed period between samples\n"
		"                         (by default each is drawn at random\n"
		"                         between 0.5 and 1.5 periods)\n"
		"      --max-depth=N      frames kept per sample, the innermost\n"
		"                         (default 128, up to 1024)\n"
		"      --delay=SECS       start sampling SECS after the program starts\n"
		"      --duration=SECS    sample for SECS, then stop\n"
		"      --no-time          no CPU-time samples\n"
		"      --no-space         no allocation samples (the calls to the\n"
		"                         malloc family are still counted)\n"
		"      --space-interval=BYTES  sample one allocated byte in BYTES\n"
		"                         on average (default 512K; K, M and G\n"
		"                         suffixes are powers of 1024; 0 is\n"
		"                         --no-space)\n"
		"      --space-seed=N     a fixed seed (1 or more) for the byte\n"
		"                         sampling: a deterministic program gets\n"
		"                         the same space profile run after run\n"
		"  -q, --quiet            no summary line at the end\n"
		"  -h, --help             show this help\n"
		"      --version          show the version\n");
}

static void __attribute__((noreturn, format(printf, 1, 2)))
die_usage(const char *fmt, ...)
{
	va_list ap;
	fputs("profrun: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see profrun --help)\n", stderr);
	exit(2);
}

static int
parse_timer_name(const char *s)
{
	static const char *const names[] = { "auto", "perf", "posix", "itimer" };
	for (int i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	die_usage("--timer=%s: expected auto, perf, posix or itimer", s);
}

/* A signal by number or name (PROF, SIGPROF, RTMIN+3, ...) that is free
 * to use for sampling: not one the kernel or the C library reserves. */
static int
parse_signal(const char *opt, const char *s)
{
	const char *name = strncmp(s, "SIG", 3) == 0 ? s + 3 : s;
	char *end;
	long v = strtol(s, &end, 10);
	if (*s && !*end) {
		/* a number */
	} else if (strcmp(name, "PROF") == 0) {
		v = SIGPROF;
	} else if (strcmp(name, "VTALRM") == 0) {
		v = SIGVTALRM;
	} else if (strcmp(name, "USR1") == 0) {
		v = SIGUSR1;
	} else if (strcmp(name, "USR2") == 0) {
		v = SIGUSR2;
	} else if (strncmp(name, "RTMIN+", 6) == 0) {
		v = SIGRTMIN + strtol(name + 6, &end, 10);
		if (*end)
			v = -1;
	} else {
		v = -1;
	}
	if (v == SIGKILL || v == SIGSTOP || v < 1 || v > SIGRTMAX ||
	    (v > 31 && v < SIGRTMIN))
		die_usage("%s=%s: not a signal that can be used here", opt, s);
	return (int)v;
}

/* A byte count: digits, optionally followed by K, M or G (powers of
 * 1024), from min to max; range names them in the error. */
static uint64_t
parse_bytes(const char *opt, const char *s, uint64_t min, uint64_t max,
	    const char *range)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (errno || end == s || *end || *s == '-' || v > (max >> shift) ||
	    ((uint64_t)v << shift) < min)
		die_usage("%s=%s: expected a number of bytes from %s "
			  "(K, M and G suffixes allowed)", opt, s, range);
	return (uint64_t)v << shift;
}

/* --space-seed: a whole number from 1 to 2^64 - 1, passed on as given
 * (the library parses it again). */
static const char *
parse_seed(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v == 0)
		die_usage("--space-seed=%s: expected a whole number from 1 to "
			  "2^64 - 1", s);
	return s;
}

/* The long option without an argument whose val is val, or NULL. */
static const struct option *
no_arg_option(int val, const struct option *longopts)
{
	for (const struct option *l = longopts; l->name; l++)
		if (l->val == val && l->has_arg == no_argument)
			return l;
	return NULL;
}

/* Exits with the error getopt_long reported as c (':' or '?'), naming the
 * option as the user wrote it. arg is argv[optind - 1]: the option itself
 * when it was a long one or the last argument, but not always for a short
 * one (in "-xq" it is the argument before), so a short option is named
 * from optopt. getopt sets optopt to 0 for an unknown long option and to
 * the option's val when one lacks or must not have an argument. */
static void __attribute__((noreturn))
bad_option(int c, const char *arg, const struct option *longopts)
{
	int is_long = strncmp(arg, "--", 2) == 0 && arg[2];
	int len = is_long ? (int)strcspn(arg, "=") : 0;
	char shortname[8];

	if (optopt > 0x20 && optopt < 0x7f)
		snprintf(shortname, sizeof(shortname), "-%c", optopt);
	else
		snprintf(shortname, sizeof(shortname), "-\\x%02x", optopt & 0xff);
	if (c == ':') {
		/* Only the last argument can lack its argument, so arg is it. */
		if (is_long)
			die_usage("%.*s: missing argument", len, arg);
		die_usage("%s: missing argument", shortname);
	}
	const struct option *l = no_arg_option(optopt, longopts);
	if (is_long && l && arg[len] == '=' &&
	    strncmp(l->name, arg + 2, (size_t)len - 2) == 0)
		die_usage("%.*s: takes no argument", len, arg);
	if (optopt)
		die_usage("%s: unknown option", shortname);
	int matches = 0;
	for (l = longopts; l->name; l++)
		matches += strncmp(l->name, arg + 2, (size_t)len - 2) == 0;
	if (matches > 1)
		die_usage("%.*s: ambiguous option (it could be any of %d)",
			  len, arg, matches);
	die_usage("%.*s: unknown option", len, arg);
}

static int
parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_TIMER = 256, OPT_VERSION, OPT_NO_FOLLOW, OPT_SIGNAL,
	       OPT_START_PAUSED, OPT_TOGGLE, OPT_MAX_SAMPLES, OPT_MAX_SIZE, OPT_DELAY,
	       OPT_DURATION, OPT_NO_TIME, OPT_NO_SPACE, OPT_SPACE_INTERVAL,
	       OPT_CLOCK, OPT_MAX_DEPTH, OPT_NO_JITTER, OPT_SPACE_SEED };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "frequency", required_argument, NULL, 'F' },
		{ "timer", required_argument, NULL, OPT_TIMER },
		{ "clock", required_argument, NULL, OPT_CLOCK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
		{ "signal", required_argument, NULL, OPT_SIGNAL },
		{ "start-paused", no_argument, NULL, OPT_START_PAUSED },
		{ "toggle-signal", required_argument, NULL, OPT_TOGGLE },
		{ "max-samples", required_argument, NULL, OPT_MAX_SAMPLES },
		{ "max-size", required_argument, NULL, OPT_MAX_SIZE },
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "no-jitter", no_argument, NULL, OPT_NO_JITTER },
		{ "delay", required_argument, NULL, OPT_DELAY },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "no-time", no_argument, NULL, OPT_NO_TIME },
		{ "no-space", no_argument, NULL, OPT_NO_SPACE },
		{ "space-interval", required_argument, NULL, OPT_SPACE_INTERVAL },
		{ "space-seed", required_argument, NULL, OPT_SPACE_SEED },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	*o = (struct options){ .output = "prof.spool", .hz = PROF_DEFAULT_HZ,
			       .timer = SPOOL_TIMER_NONE, .follow = 1,
			       .max_depth = SPOOL_MAX_DEPTH,
			       .sig = SIGPROF, .time = 1, .jitter = 1,
			       .space_interval = PROF_DEFAULT_SPACE_INTERVAL };
	opterr = 0;
	int c;
	/* "+": options end at PROGRAM; ":": a missing argument is ':',
	 * told apart from an unknown option ('?'). */
	while ((c = getopt_long(argc, argv, "+:o:F:qh", longopts, NULL)) != -1) {
		char *end;
		unsigned long v;
		switch (c) {
		case 'o':
			if (!*optarg)
				die_usage("-o: empty file name");
			o->output = optarg;
			break;
		case 'F':
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || v < 1 || v > PROF_MAX_HZ)
				die_usage("-F %s: expected a frequency from 1 to %d Hz",
					  optarg, PROF_MAX_HZ);
			o->hz = (unsigned)v;
			break;
		case OPT_TIMER:
			o->timer = parse_timer_name(optarg);
			break;
		case OPT_CLOCK:
			if (strcmp(optarg, "cpu") != 0 && strcmp(optarg, "wall") != 0)
				die_usage("--clock=%s: expected cpu or wall", optarg);
			o->wall = optarg[0] == 'w';
			break;
		case 'q':
			o->quiet = 1;
			break;
		case OPT_NO_FOLLOW:
			o->follow = 0;
			break;
		case OPT_SIGNAL:
			o->sig = parse_signal("--signal", optarg);
			break;
		case OPT_START_PAUSED:
			o->start_paused = 1;
			break;
		case OPT_TOGGLE:
			o->toggle_sig = parse_signal("--toggle-signal", optarg);
			break;
		case OPT_MAX_SAMPLES:
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || v == 0 || *optarg == '-')
				die_usage("--max-samples=%s: expected a positive whole number",
					  optarg);
			o->max_samples = optarg;
			break;
		case OPT_MAX_SIZE:
			o->max_size = parse_bytes("--max-size", optarg,
						  PROF_MIN_MAX_SIZE,
						  UINT64_C(1) << 50, "256K to 1P");
			break;
		case OPT_NO_JITTER:
			o->jitter = 0;
			break;
		case OPT_MAX_DEPTH:
			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' || v == 0 ||
			    v > SPOOL_DEPTH_LIMIT)
				die_usage("--max-depth=%s: expected a whole number "
					  "from 1 to %u", optarg, SPOOL_DEPTH_LIMIT);
			o->max_depth = (unsigned)v;
			break;
		case OPT_DELAY:
		case OPT_DURATION: {
			double secs = strtod(optarg, &end);
			if (!*optarg || *end || !(secs >= 0) || secs > 1e9)
				die_usage("--%s=%s: expected seconds",
					  c == OPT_DELAY ? "delay" : "duration", optarg);
			*(c == OPT_DELAY ? &o->delay : &o->duration) = optarg;
			break;
		}
		case OPT_NO_TIME:
			o->time = 0;
			break;
		case OPT_NO_SPACE:
			o->space_interval = 0;
			break;
		case OPT_SPACE_INTERVAL:
			o->space_interval = parse_bytes("--space-interval", optarg, 0,
						       PROF_MAX_SPACE_INTERVAL,
						       "0 to 1T");
			break;
		case OPT_SPACE_SEED:
			o->space_seed = parse_seed(optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_VERSION:
			printf("profrun %s\n", PROFRUN_VERSION);
			exit(0);
		case ':':
		case '?':
			bad_option(c, argv[optind - 1], longopts);
		}
	}
	if (optind >= argc)
		die_usage("no PROGRAM to run");
	if (o->wall && !o->time)
		die_usage("--clock=wall samples time; it cannot go with --no-time");
	if (o->toggle_sig && o->toggle_sig == o->sig)
		die_usage("--toggle-signal: the sampling signal cannot also toggle it");
	return optind;
}

/* Finds PROGRAM as execvp would. Returns 0 with the path in out, or exits
 * 127 (not found) / 126 (not executable) as a shell does. */
static void
resolve_program(const char *prog, char *out, size_t cap)
{
	if (strchr(prog, '/')) {
		snprintf(out, cap, "%s", prog);
	} else {
		const char *path = getenv("PATH");
		if (!path)
			path = "/usr/local/bin:/usr/bin:/bin";
		int found = 0;
		for (const char *p = path; !found;) {
			const char *colon = strchrnul(p, ':');
			int n = (int)(colon - p);
			snprintf(out, cap, "%.*s%s%s", n, p, n ? "/" : "", prog);
			struct stat st;
			if (stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(out, X_OK) == 0)
				found = 1;
			if (!*colon)
				break;
			p = colon + 1;
		}
		if (!found) {
			fprintf(stderr, "profrun: %s: command not found\n", prog);
			exit(127);
		}
	}
	struct stat st;
	if (stat(out, &st) < 0) {
		fprintf(stderr, "profrun: %s: %s\n", prog, strerror(errno));
		exit(errno == ENOENT ? 127 : 126);
	}
	if (!S_ISREG(st.st_mode) || access(out, X_OK) < 0) {
		fprintf(stderr, "profrun: %s: not an executable file\n", prog);
		exit(126);
	}
	if (st.st_mode & (S_ISUID | S_ISGID)) {
		fprintf(stderr,
			"profrun: %s: set-user-ID or set-group-ID program; the dynamic "
			"loader ignores LD_PRELOAD for it, so it cannot be profiled\n",
			prog);
		exit(2);
	}
}

/* An ELF executable without PT_INTERP is statically linked: the dynamic
 * loader never runs, so nothing is preloaded. Scripts are fine (their
 * interpreter is what runs). */
static void
check_dynamic(const char *prog, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof(Elf64_Ehdr))
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	const Elf64_Ehdr *eh = map;
	int is_static = 0;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
	    eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= (uint64_t)st.st_size) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)map + eh->e_phoff);
		is_static = 1;
		for (int i = 0; i < eh->e_phnum; i++)
			if (ph[i].p_type == PT_INTERP)
				is_static = 0;
	}
	munmap(map, (size_t)st.st_size);
	if (is_static) {
		fprintf(stderr,
			"profrun: %s: statically linked; LD_PRELOAD cannot work there, "
			"so it cannot be profiled\n", prog);
		exit(2);
	}
}

static void
find_library(char *out, size_t cap)
{
	char self[PATH_MAX - 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		*slash = '\0';
		snprintf(out, cap, "%s/libprofrun.so", self);
		if (access(out, R_OK) == 0)
			return;
	}
	snprintf(out, cap, "%s/libprofrun.so", PROFRUN_LIBDIR);
	if (access(out, R_OK) != 0) {
		fprintf(stderr, "profrun: libprofrun.so: not found next to profrun "
			"nor in %s\n", PROFRUN_LIBDIR);
		exit(2);
	}
}

/* kernel.perf_event_paranoid, or INT_MIN when it cannot be read. */
static int
perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = INT_MIN;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = INT_MIN;
		fclose(f);
	}
	return v;
}

/* Why perf_event_open failed with err, for the user who forced --timer=perf:
 * the fix differs with the cause. */
static void
explain_perf(int err, char *out, size_t cap)
{
	int paranoid = perf_paranoid();
	struct rlimit rl;
	if ((err == EACCES || err == EPERM) && paranoid > 2)
		snprintf(out, cap, "perf_event_open: %s: kernel.perf_event_paranoid "
			 "is %d, and an unprivileged user needs 2 or less (sysctl "
			 "kernel.perf_event_paranoid=2) or CAP_PERFMON", strerror(err),
			 paranoid);
	else if (err == EACCES || err == EPERM)
		snprintf(out, cap, "perf_event_open: %s although "
			 "kernel.perf_event_paranoid is %d, which allows user-mode "
			 "counting: a security policy (seccomp, container, LSM) "
			 "forbids perf events", strerror(err), paranoid);
	else if (err == ENOSYS || err == ENOENT || err == ENODEV ||
		 err == EOPNOTSUPP)
		snprintf(out, cap, "perf_event_open: %s: this kernel has no "
			 "software perf events", strerror(err));
	else if (err == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0)
		snprintf(out, cap, "perf_event_open: %s: each thread's counter "
			 "takes a descriptor at 512 or above, out of the program's "
			 "way, and RLIMIT_NOFILE (ulimit -n) is %lu; raise it or "
			 "use --timer=posix", strerror(err),
			 (unsigned long)rl.rlim_cur);
	else if (err == EMFILE || err == ENFILE)
		snprintf(out, cap, "perf_event_open: %s: no file descriptor is "
			 "free for the counter", strerror(err));
	else
		snprintf(out, cap, "perf_event_open: %s", strerror(err));
}

/* One line on why the forced source kind cannot be used (timer_probe
 * failed with err), and exit 2. */
static void __attribute__((noreturn))
timer_unavailable(const struct options *o, int err)
{
	char why[512];
	if (o->timer == SPOOL_TIMER_PERF)
		explain_perf(err, why, sizeof(why));
	else if (o->timer == SPOOL_TIMER_ITIMER && o->sig != SIGPROF)
		snprintf(why, sizeof(why), "setitimer(ITIMER_PROF) can only send "
			 "SIGPROF, not signal %d (%s) asked for with --signal",
			 o->sig, sigabbrev_np(o->sig) ? sigabbrev_np(o->sig) : "RT");
	else if (o->timer == SPOOL_TIMER_POSIX && err == EAGAIN)
		snprintf(why, sizeof(why), "timer_create(CLOCK_THREAD_CPUTIME_ID): "
			 "%s: the limit of queued signals (ulimit -i) is reached",
			 strerror(err));
	else if (o->timer == SPOOL_TIMER_POSIX)
		snprintf(why, sizeof(why), "timer_create(CLOCK_THREAD_CPUTIME_ID): "
			 "%s", strerror(err));
	else
		snprintf(why, sizeof(why), "setitimer(ITIMER_PROF): %s",
			 strerror(err));
	fprintf(stderr, "profrun: --timer=%s: not available here: %s\n",
		spool_timer_name((uint32_t)o->timer), why);
	exit(2);
}

static void
check_timer(const struct options *o)
{
	static const int order[] = { SPOOL_TIMER_PERF, SPOOL_TIMER_POSIX,
				     SPOOL_TIMER_ITIMER };
	if (o->timer != SPOOL_TIMER_NONE) {
		int rc = timer_probe(o->timer, o->hz, o->sig);
		if (rc < 0)
			timer_unavailable(o, -rc);
		return;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (timer_probe(order[i], o->hz, o->sig) == 0)
			return;
	fprintf(stderr, "profrun: no CPU timer is available here (perf, posix, itimer)\n");
	exit(2);
}

/* Creates the empty spool under a fresh name beside FILE; the library
 * opens it without following symlinks and fills it. *made: the file as
 * created, to tell later whether anyone wrote to it. */
static void
create_temp(const char *output, char *tmp, size_t cap, struct stat *made)
{
	for (int attempt = 0;; attempt++) {
		snprintf(tmp, cap, "%s.%d.%d.tmp", output, (int)getpid(), attempt);
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      0600);
		if (fd >= 0) {
			if (fstat(fd, made) < 0)
				memset(made, 0, sizeof(*made));
			close(fd);
			return;
		}
		if (errno != EEXIST || attempt == 100) {
			fprintf(stderr, "profrun: %s: cannot create the spool: %s\n",
				output, strerror(errno));
			exit(2);
		}
	}
}

/* The program's environment: profrun's own, with the library's settings
 * put in. profrun's environment stays as it was (a library preloaded into
 * profrun itself sees what it was given). */
#define ENV_SETTINGS_MAX 32

struct env {
	char **v; /* NULL-terminated, with room for ENV_SETTINGS_MAX more */
	size_t n;
	char *own[ENV_SETTINGS_MAX]; /* the settings put in, to free */
	size_t n_own;
};

/* p, or exit 2 when an allocation failed. */
static void *
must(void *p)
{
	if (!p) {
		fprintf(stderr, "profrun: out of memory\n");
		exit(2);
	}
	return p;
}

static void
env_init(struct env *e)
{
	size_t n = 0;
	while (environ[n])
		n++;
	e->v = must(calloc(n + ENV_SETTINGS_MAX + 1, sizeof(*e->v)));
	memcpy(e->v, environ, n * sizeof(*e->v));
	e->n = n;
	e->n_own = 0;
}

static void
env_free(struct env *e)
{
	for (size_t i = 0; i < e->n_own; i++)
		free(e->own[i]);
	free(e->v);
}

static void
setenv_in(struct env *e, const char *key, const char *value)
{
	size_t klen = strlen(key);
	if (e->n_own == ENV_SETTINGS_MAX)
		abort(); /* set_env puts in more than ENV_SETTINGS_MAX */
	char *kv = must(malloc(klen + strlen(value) + 2));
	sprintf(kv, "%s=%s", key, value);
	e->own[e->n_own++] = kv;
	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->v[i], key, klen) == 0 && e->v[i][klen] == '=') {
			e->v[i] = kv;
			return;
		}
	e->v[e->n++] = kv;
}

static void
set_env(struct env *e, const struct options *o, const char *lib,
	const char *tmp)
{
	char buf[PATH_MAX * 2];
	const char *old = getenv("LD_PRELOAD");
	if (old && *old)
		snprintf(buf, sizeof(buf), "%s:%s", lib, old);
	else
		snprintf(buf, sizeof(buf), "%s", lib);
	setenv_in(e, "LD_PRELOAD", buf);
	setenv_in(e, "PROF_SPOOL", tmp);
	setenv_in(e, "PROF_SPOOL_FINAL", o->output);
	setenv_in(e, "PROF_OUTPUT", o->output);
	snprintf(buf, sizeof(buf), "%u", o->hz);
	setenv_in(e, "PROF_HZ", buf);
	static const char *const timer_env[] = { "auto", "perf", "posix", "itimer" };
	setenv_in(e, "PROF_TIMER", timer_env[o->timer]);
	setenv_in(e, "PROF_CLOCK", o->wall ? "wall" : "cpu");
	/* The program is profrun's child (set before it exists, so named by
	 * its parent). */
	snprintf(buf, sizeof(buf), "%d", (int)getpid());
	setenv_in(e, "PROF_PARENT", buf);
	setenv_in(e, "PROF_FOLLOW", o->follow ? "1" : "0");
	snprintf(buf, sizeof(buf), "%d", o->sig);
	setenv_in(e, "PROF_SIGNAL", buf);
	setenv_in(e, "PROF_START_PAUSED", o->start_paused ? "1" : "0");
	snprintf(buf, sizeof(buf), "%d", o->toggle_sig);
	setenv_in(e, "PROF_TOGGLE_SIGNAL", buf);
	setenv_in(e, "PROF_MAX_SAMPLES", o->max_samples ? o->max_samples : "0");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->max_size);
	setenv_in(e, "PROF_MAX_SIZE", buf);
	snprintf(buf, sizeof(buf), "%u", o->max_depth);
	setenv_in(e, "PROF_MAX_DEPTH", buf);
	setenv_in(e, "PROF_DELAY", o->delay ? o->delay : "0");
	setenv_in(e, "PROF_DURATION", o->duration ? o->duration : "0");
	setenv_in(e, "PROF_TIME", o->time ? "1" : "0");
	setenv_in(e, "PROF_JITTER", o->jitter ? "1" : "0");
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->space_interval);
	setenv_in(e, "PROF_SPACE_INTERVAL", buf);
	setenv_in(e, "PROF_SPACE_SEED", o->space_seed ? o->space_seed : "0");
}

/* The signals profrun passes on to the program, as timeout(1) and
 * perf record do: those that ask a program to stop or to act. */
static const int forwarded[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2,
};

static volatile sig_atomic_t program_pid;

/* A signal sent to profrun goes to the program, and profrun lives to
 * finish the spool. One the terminal sent (^C, ^\, a hang-up: si_code
 * SI_KERNEL) went to the whole foreground process group, the program
 * included, and is not sent twice. */
static void
forward(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int saved_errno = errno;
	if (si->si_code != SI_KERNEL && program_pid > 0)
		kill((pid_t)program_pid, sig);
	errno = saved_errno;
}

static void
forwarded_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
}

static int
run(char **argv, const char *path, const struct options *o, const char *lib,
    const char *tmp)
{
	/* Blocked across the spawn, so that none is lost before the handlers
	 * stand; the program starts with the mask profrun was given. The
	 * program is started by posix_spawn (a vfork and exec) rather than
	 * fork: copying profrun's address space only for the child to drop
	 * it at exec cost 1.4 ms of CPU a run here (BENCHMARKS.md,
	 * "The program's shape"). */
	sigset_t set, old;
	forwarded_set(&set);
	sigprocmask(SIG_BLOCK, &set, &old);
	posix_spawnattr_t attr;
	pid_t pid;
	int err = posix_spawnattr_init(&attr);
	if (!err)
		err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	if (!err)
		err = posix_spawnattr_setsigmask(&attr, &old);
	if (err) {
		fprintf(stderr, "profrun: posix_spawnattr: %s\n", strerror(err));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	struct env env;
	env_init(&env);
	set_env(&env, o, lib, tmp);
	err = posix_spawn(&pid, path, NULL, &attr, argv, env.v);
	posix_spawnattr_destroy(&attr);
	env_free(&env);
	if (err == EAGAIN || err == ENOMEM) {
		fprintf(stderr, "profrun: cannot start %s: %s\n", argv[0],
			strerror(err));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return -1;
	}
	if (err) {
		/* The program could not be executed (ENOEXEC: neither ELF nor
		 * "#!"; exec does not hand such a file to the shell): as the
		 * shell and resolve_program, 127 for a program not found, 126
		 * otherwise. */
		fprintf(stderr, "profrun: %s: %s\n", argv[0], strerror(err));
		unlink(tmp);
		exit(err == ENOENT ? 127 : 126);
	}
	program_pid = pid;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++) {
		struct sigaction cur;
		/* One ignored when profrun started (nohup) stays ignored, as
		 * it is for the program. */
		if (sigaction(forwarded[i], NULL, &cur) == 0 &&
		    cur.sa_handler != SIG_IGN)
			sigaction(forwarded[i], &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

struct spool_summary {
	uint64_t samples;
	uint64_t allocs; /* allocation samples */
	int complete;
	struct spool_footer footer;
};

static int
summarise(const char *path, struct spool_summary *s)
{
	memset(s, 0, sizeof(*s));
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -1;
	struct spool_cursor c;
	struct spool_rec rec;
	int rc = spool_cursor_init(&c, map, (size_t)st.st_size);
	while (rc == 0 && spool_next(&c, &rec) == SPOOL_OK) {
		if (rec.type == SPOOL_REC_SAMPLE || rec.type == SPOOL_REC_SAMPLES)
			s->samples += spool_time_samples(&rec);
		else if (rec.type == SPOOL_REC_ALLOC ||
			 rec.type == SPOOL_REC_ALLOCS)
			s->allocs += spool_space_samples(&rec);
		else if (rec.type == SPOOL_REC_FOOTER &&
			 spool_get_footer(&rec, &s->footer) == 0)
			s->complete = 1;
	}
	munmap(map, (size_t)st.st_size);
	return rc;
}

/* Spools of the child processes and exec'd images of this run: OUTPUT.PID
 * and OUTPUT.PID.N written since the run started. */
static int
count_child_spools(const char *output, time_t since)
{
	char pattern[PATH_MAX + 16];
	glob_t g;
	int n = 0;
	snprintf(pattern, sizeof(pattern), "%s.[0-9]*", output);
	if (glob(pattern, GLOB_NOSORT, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *suffix = g.gl_pathv[i] + strlen(output) + 1;
		struct stat st;
		if (strspn(suffix, "0123456789.") == strlen(suffix) &&
		    lstat(g.gl_pathv[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_mtime >= since)
			n++;
	}
	globfree(&g);
	return n;
}

static void
report(const char *output, const struct spool_summary *s, int children)
{
	char more[PATH_MAX + 160] = "", allocs[48] = "";
	if (s->allocs)
		snprintf(allocs, sizeof(allocs), " and %llu allocation sample%s",
			 (unsigned long long)s->allocs, s->allocs == 1 ? "" : "s");
	if (children)
		snprintf(more, sizeof(more), "; %d more spool%s (%s.PID) from child "
			 "processes and exec'd programs (profanalyze --children "
			 "merges them)", children, children == 1 ? "" : "s", output);
	if (!s->complete) {
		fprintf(stderr, "profrun: %s: %llu sample%s%s; the spool has no "
			"footer (the program ended before the profiler could "
			"finish it)%s\n", output, (unsigned long long)s->samples,
			s->samples == 1 ? "" : "s", allocs, more);
		return;
	}
	uint64_t dropped = 0;
	for (int i = 1; i < SPOOL_DROP_MAX_; i++)
		dropped += s->footer.drops[i];
	fprintf(stderr, "profrun: %s: %llu sample%s%s, %u thread%s, %llu dropped%s\n",
		output, (unsigned long long)s->samples, s->samples == 1 ? "" : "s",
		allocs, s->footer.threads, s->footer.threads == 1 ? "" : "s",
		(unsigned long long)dropped, more);
}

/* Whether output may be replaced by a spool: absent, or a regular file
 * (or a link to one, which is replaced, not followed). A directory,
 * device, FIFO or socket is never renamed away: one line says so. */
static int
replaceable(const char *output, const char *shown)
{
	struct stat st;
	if (stat(output, &st) < 0 || S_ISREG(st.st_mode))
		return 1; /* (absent, or a dangling link: replaced) */
	fprintf(stderr, "profrun: %s: %s; the spool must be a regular file "
		"(give -o a file name)\n", shown,
		S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
	return 0;
}

/* Moves the finished spool into place, keeping an older one as FILE.old. */
static int
install_spool(const char *tmp, const char *output, const char *shown)
{
	struct stat st;
	if (!replaceable(output, shown)) {
		fprintf(stderr, "profrun: the spool stays in %s\n", tmp);
		return -1;
	}
	if (lstat(output, &st) == 0) {
		char old[PATH_MAX + 8];
		snprintf(old, sizeof(old), "%s.old", output);
		if (rename(output, old) < 0) {
			fprintf(stderr, "profrun: %s: cannot keep it as %s: %s\n",
				output, old, strerror(errno));
			return -1;
		}
	}
	if (rename(tmp, output) < 0) {
		fprintf(stderr, "profrun: %s: cannot rename %s into place: %s\n",
			output, tmp, strerror(errno));
		return -1;
	}
	return 0;
}

/* Says why the program left no readable spool: the file was written and
 * then cut or replaced while the program ran; the file-size limit left no
 * room for its header; or the library never wrote it. */
static void
say_no_spool(const char *tmp, const char *shown, const struct stat *made)
{
	struct stat st;
	struct rlimit rl;
	if (lstat(tmp, &st) < 0 || st.st_ino != made->st_ino ||
	    st.st_dev != made->st_dev || st.st_size != 0 ||
	    st.st_ctim.tv_sec != made->st_ctim.tv_sec ||
	    st.st_ctim.tv_nsec != made->st_ctim.tv_nsec)
		fprintf(stderr, "profrun: %s: no spool was left: the file was "
			"truncated or replaced while the program ran\n", shown);
	else if (getrlimit(RLIMIT_FSIZE, &rl) == 0 &&
		 rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536)
		fprintf(stderr, "profrun: %s: no spool was written: the file "
			"size limit (ulimit -f, %llu bytes) leaves no room for "
			"it\n", shown, (unsigned long long)rl.rlim_cur);
	else
		fprintf(stderr, "profrun: %s: no spool was written: the "
			"program did not load the profiler (a statically linked "
			"interpreter?) or it stopped with a message above\n",
			shown);
}

/* path made absolute against the current directory: a program that
 * changes directory (make -C, git -C) must still find its spool, and its
 * children put theirs beside it. Exits 2 when it cannot be. */
static const char *
absolute(const char *path, char *buf, size_t cap)
{
	char cwd[PATH_MAX];
	if (path[0] == '/')
		return path;
	if (!getcwd(cwd, sizeof(cwd)) ||
	    snprintf(buf, cap, "%s/%s", cwd, path) >= (int)cap) {
		fprintf(stderr, "profrun: %s: cannot make the path absolute: %s\n",
			path, strerror(errno ? errno : ENAMETOOLONG));
		exit(2);
	}
	return buf;
}

int
main(int argc, char **argv)
{
	struct options o;
	int first = parse_options(argc, argv, &o);
	char path[PATH_MAX], lib[PATH_MAX], tmp[PATH_MAX + 64], out[PATH_MAX];
	/* Messages name the spool as the user wrote it. */
	const char *shown = o.output;
	o.output = absolute(o.output, out, sizeof(out));

	if (!replaceable(o.output, shown))
		return 2;
	resolve_program(argv[first], path, sizeof(path));
	check_dynamic(argv[first], path);
	find_library(lib, sizeof(lib));
	if (o.time)
		check_timer(&o);
	struct stat made;
	create_temp(o.output, tmp, sizeof(tmp), &made);

	time_t started = time(NULL);
	int status = run(argv + first, path, &o, lib, tmp);
	if (status < 0) {
		unlink(tmp);
		return 2;
	}
	struct spool_summary s;
	if (summarise(tmp, &s) < 0) {
		say_no_spool(tmp, shown, &made);
		unlink(tmp);
	} else if (install_spool(tmp, o.output, shown) == 0 && !o.quiet) {
		report(shown, &s, count_child_spools(o.output, started));
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
