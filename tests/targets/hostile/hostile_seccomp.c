/* A program that enters seccomp (issue #31, item 6). MODE:
 *
 *   strict          prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT): from then
 *                   on only read, write, _exit and sigreturn are allowed,
 *                   so the program spins, writes its last line with
 *                   syscall(SYS_write) and leaves with syscall(SYS_exit);
 *   filter-prctl    a BPF filter through prctl(PR_SET_SECCOMP,
 *                   SECCOMP_MODE_FILTER) that kills the process on the
 *                   system calls a profiler makes and this program does
 *                   not (pwrite64, fallocate, the timers, getpid...); then
 *                   a thread and the main thread spin and allocate;
 *   filter-syscall  the same filter through syscall(SYS_seccomp) with
 *                   SECCOMP_FILTER_FLAG_TSYNC, while a thread started
 *                   well before it spins and allocates, and LATE threads
 *                   created just before it start (their first code may
 *                   run under the filter); first the probe libseccomp
 *                   makes (a filter without a program: EFAULT);
 *   filter-exec     the filter through prctl, then an exec of this
 *                   program (mode after-exec), which runs under it.
 *
 * Each spins and allocates before too, so that there is something to
 * profile. Bare, each prints its lines and exits with 0. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "hostile_seccomp: the audit architecture of this machine"
#endif

/* CPU work by loop count alone: in strict mode even the CPU-time clock
 * is a system call that kills. */
static unsigned long
spin(unsigned long n)
{
	volatile unsigned long x = 0;
	for (unsigned long i = 0; i < n; i++)
		x += i;
	return x;
}

static unsigned long
churn(int rounds)
{
	unsigned long sum = 0;
	for (int i = 0; i < rounds; i++) {
		char *p = malloc((size_t)(i % 64) * 128 + 1);
		if (!p)
			abort();
		p[0] = (char)i;
		sum += (unsigned char)p[0];
		free(p);
		sum += spin(20000) & 1;
	}
	return sum;
}

static const int denied[] = {
	SYS_pwrite64, SYS_fallocate, SYS_ftruncate, SYS_timer_create,
	SYS_timer_settime, SYS_timer_delete, SYS_setitimer,
	SYS_perf_event_open, SYS_getpid, SYS_rt_sigtimedwait,
};
#define NDENIED (sizeof(denied) / sizeof(denied[0]))

static struct sock_filter filter[4 + 2 * NDENIED + 1];

static struct sock_fprog
make_filter(void)
{
	size_t k = 0;
	filter[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, arch));
	filter[k++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		ARCH, 1, 0);
	filter[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_ALLOW);
	filter[k++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr));
	for (size_t i = 0; i < NDENIED; i++) {
		filter[k++] = (struct sock_filter)BPF_JUMP(
			BPF_JMP | BPF_JEQ | BPF_K, (unsigned)denied[i], 0, 1);
		filter[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_KILL_PROCESS);
	}
	filter[k++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		SECCOMP_RET_ALLOW);
	return (struct sock_fprog){ .len = (unsigned short)k, .filter = filter };
}

static atomic_int stop;

static void *
worker(void *arg)
{
	unsigned long *sum = arg;
	do
		*sum += churn(50);
	while (!atomic_load(&stop));
	return NULL;
}

#define LATE 6

static void *
late(void *arg)
{
	unsigned long *sum = arg;
	*sum = churn(100);
	return NULL;
}

static int
strict(void)
{
	static const char line[] = "strict: done\n";
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) != 0) {
		perror("prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT)");
		return 1;
	}
	spin(100000000);
	syscall(SYS_write, 1, line, sizeof(line) - 1);
	syscall(SYS_exit, 0);
	return 1;
}

static int
filter_exec(const char *self)
{
	struct sock_fprog prog = make_filter();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("prctl");
		return 1;
	}
	execl(self, self, "after-exec", (char *)NULL);
	perror("execl");
	return 1;
}

static int
filtered(int via_syscall)
{
	pthread_t th;
	unsigned long before = 0, after = 0;
	struct sock_fprog prog = make_filter();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		perror("prctl(PR_SET_NO_NEW_PRIVS)");
		return 1;
	}
	if (via_syscall) {
		/* libseccomp's probe: installs nothing. */
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL) != -1 ||
		    errno != EFAULT) {
			fprintf(stderr, "seccomp probe: want EFAULT\n");
			return 1;
		}
		printf("probe: EFAULT\n");
		if (pthread_create(&th, NULL, worker, &before) != 0)
			return 1;
		spin(20000000);
		pthread_t lth[LATE];
		unsigned long lsum[LATE];
		for (int i = 0; i < LATE; i++)
			if (pthread_create(&lth[i], NULL, late, &lsum[i]) != 0)
				return 1;
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
			perror("seccomp(SECCOMP_SET_MODE_FILTER)");
			return 1;
		}
		for (int i = 0; i < LATE; i++) {
			pthread_join(lth[i], NULL);
			after += lsum[i] > 0;
		}
	} else {
		if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
			perror("prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)");
			return 1;
		}
		if (pthread_create(&th, NULL, worker, &after) != 0)
			return 1;
	}
	printf("filter installed\n");
	after += churn(2000);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("%s: done (%d)\n", via_syscall ? "filter-syscall" : "filter-prctl",
	       before + after > 0);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: hostile_seccomp strict|filter-prctl|filter-syscall|filter-exec\n");
		return 2;
	}
	if (strcmp(argv[1], "after-exec") == 0) {
		printf("after exec: %d\n", churn(1000) > 0);
		return 0;
	}
	unsigned long sum = churn(3000);
	printf("before: %d\n", sum > 0);
	fflush(stdout);
	if (strcmp(argv[1], "strict") == 0)
		return strict();
	if (strcmp(argv[1], "filter-prctl") == 0)
		return filtered(0);
	if (strcmp(argv[1], "filter-syscall") == 0)
		return filtered(1);
	if (strcmp(argv[1], "filter-exec") == 0)
		return filter_exec(argv[0]);

	fprintf(stderr, "hostile_seccomp: unknown mode %s\n", argv[1]);
	return 2;
}
