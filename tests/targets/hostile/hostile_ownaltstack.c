/* A program that manages its own alternate signal stacks (issue #31,
 * item 3): the profiler gives a thread one only when it has none, and
 * what the program sets or disables later is what the thread has. In
 * the main thread and in a second one, each while it spins (so that the
 * profiler's handlers run meanwhile): set a stack of its own, check with
 * a SIGUSR1 handler installed with SA_ONSTACK that the handler runs on
 * it and that sigaltstack reports it; then disable it and check that the
 * handler runs on the thread's own stack and that sigaltstack says
 * SS_DISABLE.
 *
 * usage: hostile_ownaltstack [STACK_BYTES [term]]
 * Prints one line per check; "wrong" in a line is a failure. With term,
 * the main thread then sets a stack of STACK_BYTES again and raises
 * SIGTERM, of which the program dies (the profiler's handler for it runs
 * on that stack). */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static size_t size = 64 * 1024;
/* Where on_usr1 ran (volatile: set behind the compiler's back). */
static __thread volatile uintptr_t handler_sp;

static void
on_usr1(int sig)
{
	volatile char here = (char)sig;
	handler_sp = (uintptr_t)&here;
}

static unsigned long
spin(unsigned long seed)
{
	for (unsigned long i = 0; i < 20000000; i++)
		seed = seed * 6364136223846793005ul + i;
	return seed;
}

/* Raises SIGUSR1 and says whether its handler ran on [lo, lo + size). */
static int
handled_on(const char *lo)
{
	handler_sp = 0;
	pthread_kill(pthread_self(), SIGUSR1);
	return handler_sp >= (uintptr_t)lo && handler_sp < (uintptr_t)lo + size;
}

static void
check(const char *who)
{
	char *mine = mmap(NULL, size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mine == MAP_FAILED) {
		printf("%s: mmap failed\n", who);
		return;
	}
	stack_t ss = { .ss_sp = mine, .ss_size = size, .ss_flags = 0 }, cur;
	if (sigaltstack(&ss, NULL) != 0)
		printf("%s: sigaltstack failed\n", who);
	unsigned long x = spin((unsigned long)who[0]);
	int on = handled_on(mine);
	sigaltstack(NULL, &cur);
	printf("%s: own stack set: handler %s, sigaltstack %s (%lx)\n", who,
	       on ? "on it" : "wrong",
	       cur.ss_sp == mine ? "reports it" : "wrong", x & 0xff);
	stack_t off = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
	sigaltstack(&off, NULL);
	x = spin(x);
	on = handled_on(mine);
	sigaltstack(NULL, &cur);
	printf("%s: disabled: handler %s, sigaltstack %s (%lx)\n", who,
	       on ? "wrong" : "on the thread's stack",
	       cur.ss_flags & SS_DISABLE ? "says disabled" : "wrong", x & 0xff);
}

static void *
second(void *arg)
{
	check(arg);
	return NULL;
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		size = strtoul(argv[1], NULL, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t t;
	pthread_create(&t, NULL, second, "second thread");
	pthread_join(t, NULL);
	check("main thread");
	if (argc > 2 && strcmp(argv[2], "term") == 0) {
		stack_t ss = { .ss_size = size, .ss_flags = 0 };
		ss.ss_sp = mmap(NULL, size, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		sigaltstack(&ss, NULL);
		printf("main thread: SIGTERM\n");
		fflush(stdout);
		raise(SIGTERM);
	}
	return 0;
}
