/*
 * stress: programs that do what a profiler finds hardest, one per MODE,
 * for the stress matrix (tests/integration/test_stress.py), which runs each
 * at 10 kHz with a small space interval and compares its output and exit
 * status with a bare run's. Each mode prints what its work computed, a
 * function of the work alone (no address, time or pid), and exits 0 when
 * the work was done as asked, 1 otherwise (with the reason on stdout).
 *
 * usage: stress MODE [COUNT]
 *   longjmp [R]  R rounds (default 1000): longjmp out of a recursion 50 to
 *                249 frames deep, each frame having allocated a block,
 *                and siglongjmp out of a SIGUSR1 handler
 *   deep [D]     a recursion D deep (default 100000) in a thread with a
 *                256 MiB stack, allocating every 1000 frames, working at
 *                the bottom; three times
 *   threads [N]  N short threads (default 10000), 16 alive at a time,
 *                each allocating and working a little
 *   live [N]     N threads (default 200) alive together (a barrier), each
 *                allocating and working
 *   forks [N]    N children by fork (default 1000), 4 at a time, each
 *                allocating, working, and ending by exit or _exit with a
 *                status of its own
 *   spawn [N]    N rounds (default 20) of four children: vfork + exec of
 *                "stress child K", posix_spawn of it, clone without
 *                CLONE_VM (no atfork handler runs) and clone with CLONE_VM
 *                (a thread the C library does not know: no allocation)
 *   child K      spawn's exec'd children: allocate, work, exit K % 5
 *   blocked [N]  blocks every signal first thing, then runs N threads
 *                (default 4) that inherit the mask and one that sets it by
 *                the raw system call; prints the masks and pending sets
 *                they read back (the pending sets at 2,000 points of their
 *                work, united)
 *   ownprof [T]  its own SIGPROF handler and ITIMER_PROF at 1 kHz, with
 *                two threads working until the handler counted T ticks
 *                (default 200); prints what it reads back
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

extern char **environ;

/* Work whose result depends on its arguments alone: n xorshift steps. */
static WORK_FN unsigned long
mix(unsigned long seed, unsigned long n)
{
	unsigned long x = seed * 2654435761UL + 1;

	for (unsigned long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

/* malloc, calloc, realloc and free of sizes picked by k; returns a sum of
 * what was written. */
static WORK_FN unsigned long
alloc_work(unsigned long k)
{
	size_t n = 16 + (k % 97) * 40;
	unsigned char *p = malloc(n);
	unsigned long *q = calloc(8, sizeof(*q));
	unsigned long sum = 0;

	if (!p || !q) {
		printf("out of memory\n");
		exit(1);
	}
	memset(p, (int)(k & 0xff), n);
	p = realloc(p, 2 * n);
	if (!p) {
		printf("out of memory\n");
		exit(1);
	}
	for (size_t i = 0; i < n; i += 7)
		sum += p[i];
	q[k % 8] = sum;
	sum += q[k % 8];
	free(q);
	free(p);
	return sum;
}

static unsigned long
parse_count(int argc, char **argv, unsigned long dflt)
{
	char *end;
	unsigned long v;

	if (argc < 3)
		return dflt;
	v = strtoul(argv[2], &end, 10);
	if (*end || v == 0) {
		fprintf(stderr, "stress: bad count '%s'\n", argv[2]);
		exit(2);
	}
	return v;
}

/* ---- longjmp ---- */

static jmp_buf jump_back;
static sigjmp_buf sig_back;
static void *jump_blocks[256];
static unsigned long jump_value;

static WORK_FN unsigned long
descend(int depth, int bottom)
{
	unsigned char *p = malloc(32 + (size_t)depth);

	if (!p) {
		printf("out of memory\n");
		exit(1);
	}
	memset(p, depth, 32 + (size_t)depth);
	jump_blocks[depth] = p;
	if (depth >= 255)
		return 0;
	if (depth == bottom) {
		jump_value = mix((unsigned long)depth, 50000);
		longjmp(jump_back, 1);
	}
	/* Work after the call: not a tail call. */
	return descend(depth + 1, bottom) + p[depth];
}

static void
on_sigusr1(int sig)
{
	jump_value = mix((unsigned long)sig, 1000);
	siglongjmp(sig_back, 1);
}

/* Nothing of these two functions' own changes between their setjmp and
 * the longjmp back to it. */
static void
jump_round(int bottom)
{
	if (setjmp(jump_back) == 0)
		descend(0, bottom);
}

static int
sigjump_round(void)
{
	if (sigsetjmp(sig_back, 1) == 0) {
		raise(SIGUSR1);
		return 0;
	}
	return 1;
}

static int
mode_longjmp(unsigned long rounds)
{
	unsigned long sum = 0, sigs = 0, freed = 0;
	struct sigaction sa;
	sigset_t cur;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigusr1;
	sigaction(SIGUSR1, &sa, NULL);
	for (unsigned long r = 0; r < rounds; r++) {
		int bottom = 50 + (int)(r % 200);

		jump_round(bottom);
		sum += jump_value;
		for (int d = 0; d <= bottom; d++) {
			unsigned char *p = jump_blocks[d];

			sum += p[d];
			free(p);
			freed++;
		}
		sigs += (unsigned long)sigjump_round();
		sum += jump_value;
	}
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("longjmp rounds=%lu blocks=%lu siglongjmps=%lu sum=%lx "
	       "usr1-blocked=%d\n",
	       rounds, freed, sigs, sum, sigismember(&cur, SIGUSR1));
	return sigs == rounds && !sigismember(&cur, SIGUSR1) ? 0 : 1;
}

/* ---- deep ---- */

static unsigned long deep_bottom;

static WORK_FN unsigned long
deep_call(unsigned long depth)
{
	volatile unsigned long here = depth;
	unsigned long r;

	if (depth % 1000 == 0)
		here += alloc_work(depth);
	if (depth == deep_bottom)
		return mix(depth, 30000000);
	r = deep_call(depth + 1);
	/* A volatile read after the call: no tail call, no loop. */
	return r + here;
}

static void *
deep_thread(void *arg)
{
	unsigned long *sum = arg;

	for (int i = 0; i < 3; i++)
		*sum += deep_call(0);
	return NULL;
}

static int
mode_deep(unsigned long depth)
{
	pthread_attr_t attr;
	pthread_t tid;
	unsigned long sum = 0;
	int err;

	deep_bottom = depth;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256UL << 20);
	err = pthread_create(&tid, &attr, deep_thread, &sum);
	if (err) {
		printf("pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_join(tid, NULL);
	printf("deep depth=%lu sum=%lx\n", depth, sum);
	return 0;
}

/* ---- threads, live ---- */

static pthread_barrier_t live_barrier;

static void *
short_thread(void *arg)
{
	unsigned long k = (unsigned long)arg;

	return (void *)(alloc_work(k) + mix(k, 20000));
}

static int
mode_threads(unsigned long n)
{
	pthread_t tids[16];
	unsigned long sum = 0, done = 0;

	for (unsigned long i = 0; i < n; i += 16) {
		unsigned long batch = n - i < 16 ? n - i : 16;

		for (unsigned long j = 0; j < batch; j++) {
			int err = pthread_create(&tids[j], NULL, short_thread,
						 (void *)(i + j));
			if (err) {
				printf("pthread_create: %s\n", strerror(err));
				return 1;
			}
		}
		for (unsigned long j = 0; j < batch; j++) {
			void *ret;

			pthread_join(tids[j], &ret);
			sum += (unsigned long)ret;
			done++;
		}
	}
	printf("threads=%lu sum=%lx\n", done, sum);
	return 0;
}

static void *
live_thread(void *arg)
{
	unsigned long k = (unsigned long)arg, r;

	pthread_barrier_wait(&live_barrier);
	r = alloc_work(k) + mix(k, 500000);
	pthread_barrier_wait(&live_barrier);
	return (void *)r;
}

static int
mode_live(unsigned long n)
{
	pthread_t *tids = calloc(n, sizeof(*tids));
	pthread_attr_t attr;
	unsigned long sum = 0;

	if (!tids)
		return 1;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256UL << 10);
	pthread_barrier_init(&live_barrier, NULL, (unsigned)n + 1);
	for (unsigned long i = 0; i < n; i++) {
		int err = pthread_create(&tids[i], &attr, live_thread,
					 (void *)i);
		if (err) {
			printf("pthread_create %lu: %s\n", i, strerror(err));
			exit(1);
		}
	}
	pthread_barrier_wait(&live_barrier);
	pthread_barrier_wait(&live_barrier);
	for (unsigned long i = 0; i < n; i++) {
		void *ret;

		pthread_join(tids[i], &ret);
		sum += (unsigned long)ret;
	}
	free(tids);
	printf("live=%lu sum=%lx\n", n, sum);
	return 0;
}

/* ---- forks ---- */

static int
reap(pid_t pid, unsigned long *status_sum)
{
	int st;

	if (waitpid(pid, &st, __WALL) != pid || !WIFEXITED(st)) {
		printf("child did not exit normally (status %#x)\n", st);
		return -1;
	}
	*status_sum += (unsigned long)WEXITSTATUS(st);
	return 0;
}

static int
mode_forks(unsigned long n)
{
	pid_t pids[4];
	unsigned long status_sum = 0;

	fflush(stdout);
	for (unsigned long i = 0; i < n; i += 4) {
		unsigned long batch = n - i < 4 ? n - i : 4;

		for (unsigned long j = 0; j < batch; j++) {
			unsigned long k = i + j;

			pids[j] = fork();
			if (pids[j] < 0) {
				printf("fork: %s\n", strerror(errno));
				return 1;
			}
			if (pids[j] == 0) {
				int code = (int)((alloc_work(k) + mix(k, 20000) +
						  k) % 7);
				if (k % 2)
					_exit(code);
				exit(code);
			}
		}
		for (unsigned long j = 0; j < batch; j++)
			if (reap(pids[j], &status_sum))
				return 1;
	}
	printf("forks=%lu status_sum=%lu\n", n, status_sum);
	return 0;
}

/* ---- spawn, child ---- */

static unsigned long vm_results[64];
static char clone_stack[256 << 10] __attribute__((aligned(64)));

static int
cloned_copy(void *arg)
{
	unsigned long k = (unsigned long)arg;

	return (int)((alloc_work(k) + mix(k, 200000)) % 5);
}

/* Shares the parent's memory and thread pointer: raw work only. */
static int
cloned_vm(void *arg)
{
	unsigned long k = (unsigned long)arg;

	vm_results[k % 64] = mix(k, 2000000);
	return (int)(k % 5);
}

static pid_t
vfork_exec(char **args)
{
	pid_t pid = vfork();

	if (pid == 0) {
		execve("/proc/self/exe", args, environ);
		_exit(127);
	}
	return pid;
}

static int
mode_spawn(const char *self, unsigned long n)
{
	unsigned long status_sum = 0, vm_sum = 0;
	char *top = clone_stack + sizeof(clone_stack);

	fflush(stdout);
	for (unsigned long k = 0; k < n; k++) {
		char num[32];
		char *args[] = { (char *)self, "child", num, NULL };
		pid_t pid;

		snprintf(num, sizeof(num), "%lu", k);
		pid = vfork_exec(args);
		if (pid < 0 || reap(pid, &status_sum))
			return 1;
		if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, args,
				environ) ||
		    reap(pid, &status_sum))
			return 1;
		pid = clone(cloned_copy, top, SIGCHLD, (void *)k);
		if (pid < 0 || reap(pid, &status_sum))
			return 1;
		pid = clone(cloned_vm, top, CLONE_VM | SIGCHLD, (void *)k);
		if (pid < 0 || reap(pid, &status_sum))
			return 1;
		vm_sum += vm_results[k % 64];
	}
	printf("spawn rounds=%lu status_sum=%lu vm_sum=%lx\n", n, status_sum,
	       vm_sum);
	return 0;
}

static int
mode_child(unsigned long k)
{
	return (int)((alloc_work(k) + mix(k, 200000)) % 5);
}

/* ---- blocked ---- */

/* The signals 1..64 of set, as a hex mask. */
static unsigned long long
set_bits(const sigset_t *set)
{
	unsigned long long bits = 0;

	for (int sig = 1; sig <= 64; sig++)
		if (sigismember(set, sig) == 1)
			bits |= 1ULL << (sig - 1);
	return bits;
}

/* How often each thread of mode blocked reads its pending set. */
#define BLOCKED_LOOKS 2000

struct blocked_result {
	int raw;
	unsigned long sum;
	unsigned long long mask, pending;
};

static void *
blocked_thread(void *arg)
{
	struct blocked_result *res = arg;
	sigset_t cur, pend;

	if (res->raw) {
		unsigned long long all = ~0ULL;

		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, 8);
	}
	/* The work in slices, with a look at the pending set after each:
	 * every look is a chance for a profiler's signal to show. */
	res->sum = alloc_work(res->sum);
	res->pending = 0;
	for (int k = 0; k < BLOCKED_LOOKS; k++) {
		res->sum += mix(res->sum, 30000000 / BLOCKED_LOOKS);
		sigpending(&pend);
		res->pending |= set_bits(&pend);
	}
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	res->mask = set_bits(&cur);
	return NULL;
}

static int
mode_blocked(unsigned long n)
{
	struct blocked_result res[17];
	pthread_t tids[17];
	sigset_t all, cur, pend;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, NULL);
	if (n > 16)
		n = 16;
	for (unsigned long i = 0; i <= n; i++) {
		int err;

		res[i].raw = i == n;
		res[i].sum = i;
		err = pthread_create(&tids[i], NULL, blocked_thread, &res[i]);
		if (err) {
			printf("pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	for (unsigned long i = 0; i <= n; i++)
		pthread_join(tids[i], NULL);
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	sigpending(&pend);
	printf("blocked main mask=%llx pending=%llx sum=%lx\n", set_bits(&cur),
	       set_bits(&pend), mix(n, 1000) + alloc_work(n));
	for (unsigned long i = 0; i <= n; i++)
		printf("blocked thread %lu%s mask=%llx pending=%llx sum=%lx\n",
		       i, res[i].raw ? " (raw)" : "", res[i].mask,
		       res[i].pending, res[i].sum);
	return 0;
}

/* ---- ownprof ---- */

static volatile sig_atomic_t own_ticks;
static unsigned long own_target;

static void
on_own_sigprof(int sig)
{
	(void)sig;
	own_ticks++;
}

/* Works until the handler counted own_target ticks, or 20 s of the
 * process's CPU time (the signals do not come: fails). */
static void *
own_worker(void *arg)
{
	struct timespec ts;

	(void)arg;
	while ((unsigned long)own_ticks < own_target) {
		mix(own_ticks, 100000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		if (ts.tv_sec >= 20)
			return (void *)1;
	}
	return NULL;
}

static int
mode_ownprof(unsigned long ticks)
{
	struct itimerval on = { { 0, 1000 }, { 0, 1000 } }, off = { 0 }, back;
	struct sigaction sa, got;
	pthread_t tid;
	void *stuck_a, *stuck_b;
	unsigned long interval;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_own_sigprof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	own_target = ticks;
	if (setitimer(ITIMER_PROF, &on, NULL)) {
		printf("setitimer: %s\n", strerror(errno));
		return 1;
	}
	if (pthread_create(&tid, NULL, own_worker, NULL)) {
		printf("pthread_create failed\n");
		return 1;
	}
	stuck_a = own_worker(NULL);
	pthread_join(tid, &stuck_b);
	getitimer(ITIMER_PROF, &back);
	interval = (unsigned long)back.it_interval.tv_usec;
	setitimer(ITIMER_PROF, &off, NULL);
	getitimer(ITIMER_PROF, &back);
	sigaction(SIGPROF, NULL, &got);
	printf("ownprof ticks>=%lu:%d interval_us=%lu disarmed=%d "
	       "own-handler=%d\n",
	       ticks, !stuck_a && !stuck_b, interval,
	       !back.it_value.tv_sec && !back.it_value.tv_usec,
	       got.sa_handler == on_own_sigprof);
	return stuck_a || stuck_b ? 1 : 0;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "blocked"))
		return mode_blocked(parse_count(argc, argv, 4));
	if (!strcmp(mode, "longjmp"))
		return mode_longjmp(parse_count(argc, argv, 1000));
	if (!strcmp(mode, "deep"))
		return mode_deep(parse_count(argc, argv, 100000));
	if (!strcmp(mode, "threads"))
		return mode_threads(parse_count(argc, argv, 10000));
	if (!strcmp(mode, "live"))
		return mode_live(parse_count(argc, argv, 200));
	if (!strcmp(mode, "forks"))
		return mode_forks(parse_count(argc, argv, 1000));
	if (!strcmp(mode, "spawn"))
		return mode_spawn(argv[0], parse_count(argc, argv, 20));
	if (!strcmp(mode, "child") && argc == 3)
		return mode_child(strtoul(argv[2], NULL, 10));
	if (!strcmp(mode, "ownprof"))
		return mode_ownprof(parse_count(argc, argv, 200));
	fprintf(stderr, "usage: stress longjmp | deep | threads | live | forks "
		"| spawn | blocked | ownprof [COUNT]\n");
	return 2;
}
