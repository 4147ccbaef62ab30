/*
 * jit_loop: code generated at run time, named in a perf map as a JIT
 * does. It writes a counting loop's machine code (x86-64) into an
 * anonymous executable page, names it "jit_hot_loop" in
 * /tmp/perf-PID.map, and calls it for about SCALE seconds of CPU time
 * (0.5 by default), so that nearly every sample is in that page. Before
 * the line that names it, the map has one for a range overlapping it,
 * "jit_stale_code", which the later line must override (code freed and
 * generated again at the same place). The map is deleted before exit,
 * as JITs often do, unless "keep" follows the scale; with "kill" it is
 * kept and the process kills itself with SIGTERM instead of exiting.
 *
 * With "fork" after the scale, the process forks first and the child
 * does the same with its own page and map (/tmp/perf-CHILDPID.map),
 * naming its loop "jit_child_loop"; the parent waits for it.
 *
 * usage: jit_loop [SCALE [keep|kill|fork]]; exits 77 where the machine code
 * cannot run (not x86-64).
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "work.h"

#if defined(__x86_64__)

/* uint64_t loop(uint64_t n): counts n down to 0 and returns 0.
 *   mov rax, rdi; 1: sub rax, 1; jnz 1b; ret */
static const uint8_t loop_code[] = {
	0x48, 0x89, 0xf8,       /* mov %rdi,%rax */
	0x48, 0x83, 0xe8, 0x01, /* sub $1,%rax */
	0x75, 0xfa,             /* jnz -6 */
	0xc3,                   /* ret */
};

typedef uint64_t (*loop_fn)(uint64_t);

static double
cpu_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum ending { DELETE, KEEP, KILL };

/* Generates the loop at an offset into a fresh page, names it in the
 * perf map of this process, runs it for secs of CPU time, and deletes
 * the map or not (KILL: then dies of SIGTERM). */
static int
run(const char *name, double secs, enum ending ending)
{
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *mem = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	uint8_t *code = mem + 0x40;
	memset(mem, 0xcc, (size_t)page); /* int3 around it */
	memcpy(code, loop_code, sizeof(loop_code));
	if (mprotect(mem, (size_t)page, PROT_READ | PROT_EXEC) != 0) {
		perror("mprotect");
		return 1;
	}
	char path[64];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "%lx 80 jit_stale_code\n", (unsigned long)(uintptr_t)mem);
	fprintf(f, "%lx %zx %s\n", (unsigned long)(uintptr_t)code,
		sizeof(loop_code), name);
	fclose(f);

	loop_fn fn = (loop_fn)(uintptr_t)code;
	double start = cpu_seconds();
	uint64_t calls = 0;
	do {
		calls += fn(1000000) == 0;
	} while (cpu_seconds() - start < secs);
	if (ending == DELETE)
		unlink(path);
	if (ending == KILL)
		raise(SIGTERM);
	return calls ? 0 : 1;
}

int
main(int argc, char **argv)
{
	double secs = argc > 1 ? work_scale(argc, argv, 1) : 0.5;
	const char *mode = argc > 2 ? argv[2] : "";
	if (strcmp(mode, "fork") == 0) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			exit(run("jit_child_loop", secs, DELETE));
		int rc = run("jit_hot_loop", secs, DELETE), st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			rc = 1;
		return rc;
	}
	return run("jit_hot_loop", secs,
		   strcmp(mode, "keep") == 0 ? KEEP :
		   strcmp(mode, "kill") == 0 ? KILL : DELETE);
}

#else

int
main(void)
{
	fprintf(stderr, "jit_loop: x86-64 machine code only\n");
	return 77;
}

#endif
