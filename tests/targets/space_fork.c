/*
 * space_fork: space sampling across fork. The parent keeps PARENT bytes
 * from parent_site to its end; its forked child frees all of them,
 * allocates CHILD bytes from child_site that it keeps, and exits. The
 * parent's spool must show parent_site's bytes in use at exit; the child's
 * spool (OUTPUT.PID) child_site's and nothing of the parent's blocks,
 * whose frees the child does not record (they are not in its spool).
 *
 * Prints parent_site=BYTES child_site=BYTES child=PID. 64 MiB and 32 MiB
 * at scale 1 (argv[1]).
 */
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "work.h"

#define BLOCK (64 * 1024)

static void *volatile sink;

static WORK_FN void **
parent_site(size_t n)
{
	void **v = malloc(n * sizeof(*v));
	if (!v)
		abort();
	for (size_t i = 0; i < n; i++) {
		char *p = malloc(BLOCK);
		if (!p)
			abort();
		p[0] = 1;
		v[i] = p;
	}
	return v;
}

static WORK_FN void
child_site(size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *p = malloc(BLOCK);
		if (!p)
			abort();
		p[0] = 1;
		sink = p;
	}
}

int
main(int argc, char **argv)
{
	double scale = work_scale(argc, argv, 1);
	size_t np = (size_t)(scale * 1024), nc = (size_t)(scale * 512);
	void **v = parent_site(np);

	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (size_t i = 0; i < np; i++)
			free(v[i]);
		child_site(nc);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("parent_site=%llu child_site=%llu child=%d\n",
	       (unsigned long long)np * BLOCK, (unsigned long long)nc * BLOCK,
	       (int)pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
