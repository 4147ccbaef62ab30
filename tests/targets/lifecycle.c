/*
 * lifecycle: a program that ends, forks, execs and spawns in the ways the
 * profiler must survive, each after a known amount of work in a function
 * named for the step, so a test can find each process image's samples in
 * its own spool.
 *
 * usage: lifecycle MODE [ARG]
 *   exit | _exit | abort | segv | term | int   work, then end that way
 *   tree N       work in tree_level_N, fork a child that execs
 *                "lifecycle tree N-1", wait for it; N = 0 works and exits
 *   reexec N     work in tree_level_N, then exec "lifecycle reexec N-1"
 *                in the same process; N = 0 works and exits
 *   spin         prints its pid, then works in before_end until a signal
 *                ends it
 *   spawn        work, posix_spawn "lifecycle exit", wait
 *   vfork        work, vfork and exec "lifecycle exit" in the child, wait
 *   execfail     work, an exec that fails, more work, exit 0
 *   disposition  exit 0 when SIGINT, SIGTERM and SIGSEGV show the default
 *                disposition and signal() returns SIG_DFL, else 1
 *   forkmask     work, then block every signal and fork (as spawners do);
 *                the child unblocks them, works in before_end, exits 0
 */
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

extern char **environ;

static WORK_FN void
before_end(void)
{
	work_spin(20 * WORK_UNIT);
}

static WORK_FN void
tree_level_0(void)
{
	work_spin(15 * WORK_UNIT);
}

static WORK_FN void
tree_level_1(void)
{
	work_spin(15 * WORK_UNIT);
}

static WORK_FN void
tree_level_2(void)
{
	work_spin(15 * WORK_UNIT);
}

static WORK_FN void
tree_level_3(void)
{
	work_spin(15 * WORK_UNIT);
}

static WORK_FN void
after_failed_exec(void)
{
	work_spin(20 * WORK_UNIT);
}

static int *volatile bad_pointer;

static int
wait_child(pid_t pid)
{
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 100;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Works at level (0 to 3) and, above 0, runs "lifecycle MODE level-1":
 * in a forked child for tree, in this process for reexec. */
static int
level_then_next(const char *self, const char *mode, int level, int fork_first)
{
	static void (*const levels[])(void) = {
		tree_level_0, tree_level_1, tree_level_2, tree_level_3,
	};
	if (level < 0 || level > 3)
		return 2;
	levels[level]();
	if (level == 0)
		return 0;
	char next[16];
	snprintf(next, sizeof(next), "%d", level - 1);
	pid_t pid = fork_first ? fork() : 0;
	if (pid == 0) {
		execl(self, self, mode, next, (char *)NULL);
		if (fork_first)
			_exit(127);
		return 127;
	}
	return wait_child(pid);
}

static int
dispositions_are_default(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGSEGV };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) < 0 ||
		    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			return 0;
	}
	/* Setting and reading back through signal() too. */
	if (signal(SIGTERM, SIG_IGN) != SIG_DFL ||
	    signal(SIGTERM, SIG_DFL) != SIG_IGN)
		return 0;
	return 1;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "tree") == 0)
		return level_then_next(argv[0], "tree",
				       argc > 2 ? atoi(argv[2]) : 0, 1);
	if (strcmp(mode, "spin") == 0) {
		printf("%d\n", (int)getpid());
		fflush(stdout);
		for (;;)
			before_end();
	}
	if (strcmp(mode, "reexec") == 0)
		return level_then_next(argv[0], "reexec",
				       argc > 2 ? atoi(argv[2]) : 0, 0);
	if (strcmp(mode, "forkmask") == 0) {
		sigset_t all, old;
		before_end();
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, &old);
		pid_t pid = fork();
		if (pid == 0) {
			sigprocmask(SIG_SETMASK, &old, NULL);
			before_end();
			_exit(0);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
		return wait_child(pid);
	}
	if (strcmp(mode, "disposition") == 0)
		return dispositions_are_default() ? 0 : 1;
	if (strcmp(mode, "spawn") == 0) {
		before_end();
		pid_t pid;
		char *args[] = { argv[0], "exit", NULL };
		if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ) != 0)
			return 100;
		return wait_child(pid);
	}
	if (strcmp(mode, "vfork") == 0) {
		before_end();
		pid_t pid = vfork();
		if (pid == 0) {
			execl(argv[0], argv[0], "exit", (char *)NULL);
			_exit(127);
		}
		return wait_child(pid);
	}
	if (strcmp(mode, "execfail") == 0) {
		before_end();
		execl("/nonexistent/program", "program", (char *)NULL);
		after_failed_exec();
		return 0;
	}
	before_end();
	if (strcmp(mode, "exit") == 0)
		exit(3);
	if (strcmp(mode, "_exit") == 0)
		_exit(4);
	if (strcmp(mode, "abort") == 0)
		abort();
	if (strcmp(mode, "segv") == 0)
		*bad_pointer = 1;
	if (strcmp(mode, "term") == 0)
		raise(SIGTERM);
	if (strcmp(mode, "int") == 0)
		raise(SIGINT);
	fprintf(stderr, "usage: lifecycle exit|_exit|abort|segv|term|int|tree N|reexec N|spin|spawn|vfork|execfail|disposition\n");
	return 2;
}
