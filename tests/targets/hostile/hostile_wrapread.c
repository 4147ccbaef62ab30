/* A frame whose unwind rules point the unwinder at the top of the
 * address space (issue #31, item 1: node crashed about 1 run in 20,
 * libunwind reading 0xfffffffffffffff8 under V8's Zone::Expand).
 *
 * cfa_zero() is a trampoline in assembly whose hand-written CFI computes
 * the CFA from %rbx, which it sets to 0 before calling work(): to an
 * unwinder, the return address of that frame is at CFA - 8 =
 * 0xfffffffffffffff8 (and its saved %rbx at -16). The program itself
 * never unwinds, so bare it runs fine; a profiler that reads those words
 * without a check that cannot wrap crashes it. work() spends about 0.4 s
 * of CPU time (so that time samples land in it, or in cfa_zero under it)
 * and allocates 16 KiB blocks as it goes (so that allocation samples are
 * unwound through it too, from inside malloc).
 *
 * usage: hostile_wrapread [CPU-SECONDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void cfa_zero(void (*fn)(void *), void *arg)
	__attribute__((visibility("hidden")));

__asm__(
	"	.text\n"
	"	.globl cfa_zero\n"
	"	.hidden cfa_zero\n"
	"	.type cfa_zero, @function\n"
	"cfa_zero:\n"
	"	.cfi_startproc\n"
	"	pushq %rbx\n"
	"	.cfi_def_cfa_offset 16\n"
	"	.cfi_offset %rbx, -16\n"
	"	movq %rdi, %rax\n"
	"	movq %rsi, %rdi\n"
	"	xorl %ebx, %ebx\n"
	/* The lie: CFA = %rbx + 0 = 0 from here to the return of fn. */
	"	.cfi_def_cfa %rbx, 0\n"
	"	call *%rax\n"
	"	.cfi_def_cfa %rsp, 16\n"
	"	popq %rbx\n"
	"	.cfi_def_cfa_offset 8\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size cfa_zero, .-cfa_zero\n");

struct work {
	double seconds;
	unsigned long sum, blocks;
};

static double
cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void
work(void *arg)
{
	struct work *w = arg;
	double end = cpu_now() + w->seconds;
	volatile unsigned long x = 0;

	while (cpu_now() < end) {
		for (unsigned long i = 0; i < 20000; i++)
			x += i;
		char *p = malloc(16384);
		if (!p)
			abort();
		p[0] = (char)x;
		p[16383] = 1;
		w->sum += (unsigned char)p[0] + (unsigned char)p[16383];
		free(p);
		w->blocks++;
	}
}

int
main(int argc, char **argv)
{
	struct work w = { argc > 1 ? atof(argv[1]) : 0.4, 0, 0 };

	cfa_zero(work, &w);
	/* Only that the work was done: the counts depend on the machine. */
	printf("wrapread done: %s\n", w.blocks > 0 && w.sum >= w.blocks ?
					      "ok" : "no work");
	return 0;
}
