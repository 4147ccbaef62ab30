/*
 * rawclone: a child made by clone() without CLONE_VM and without glibc's
 * fork (so no atfork handler runs in it): its memory is a copy of the
 * parent's, mappings included. The child allocates 2000 blocks of 777
 * bytes, a size nothing else uses, and exits; the parent waits for it,
 * then allocates 2000 blocks of 555 bytes. Under --space-interval=1 the
 * parent's spool must hold the 555s and none of the 777s: a child that
 * wrote into the parent's mapped spool would put them there, or corrupt
 * it. Prints "child 0" and "done".
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

static char stack[256 * 1024] __attribute__((aligned(16)));

static WORK_FN void
allocate(size_t size, int n)
{
	for (int i = 0; i < n; i++) {
		void *volatile p = malloc(size);
		free(p);
	}
}

static int
child(void *arg)
{
	(void)arg;
	allocate(777, 2000);
	return 0;
}

int
main(void)
{
	pid_t pid = clone(child, stack + sizeof(stack), SIGCHLD, NULL);
	if (pid < 0)
		return 1;
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return 1;
	printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	allocate(555, 2000);
	work_spin(5 * WORK_UNIT);
	printf("done\n");
	return 0;
}
