/*
 * altstack: alternate signal stacks for the library's handlers (see
 * altstack.h). Layer: base.
 */
#include "altstack.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/mman.h>

/* A stack with a guard page below it, so that a handler that overflows
 * it faults rather than writes over whatever is mapped below. Returns
 * the stack's lowest address, or NULL. async-signal-safe */
static void *
map_stack(void)
{
	size_t page = getauxval(AT_PAGESZ);
	if (!page)
		page = 4096;
	char *p = mmap(NULL, page + ALTSTACK_SIZE, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p + page, ALTSTACK_SIZE, PROT_READ | PROT_WRITE) < 0) {
		munmap(p, page + ALTSTACK_SIZE);
		return NULL;
	}
	return p + page;
}

/* async-signal-safe */
int
altstack_give(void **stack)
{
	stack_t cur;
	if (sigaltstack(NULL, &cur) < 0)
		return -errno;
	if (!(cur.ss_flags & SS_DISABLE))
		return -EEXIST;
	if (!*stack)
		*stack = map_stack();
	if (!*stack)
		return -ENOMEM;
	stack_t ss = { .ss_sp = *stack,
		       .ss_flags = 0,
		       .ss_size = ALTSTACK_SIZE };
	if (sigaltstack(&ss, NULL) < 0)
		return -errno;
	return 0;
}

/* async-signal-safe */
void
altstack_take_back(void **stack)
{
	stack_t cur;
	if (!*stack || sigaltstack(NULL, &cur) < 0 ||
	    (cur.ss_flags & SS_DISABLE) || cur.ss_sp != *stack)
		return;
	stack_t off = { .ss_sp = NULL, .ss_flags = SS_DISABLE, .ss_size = 0 };
	if ((cur.ss_flags & SS_ONSTACK) || sigaltstack(&off, NULL) < 0)
		*stack = NULL;
}

/* async-signal-safe */
size_t
altstack_room(const void *stack, uint64_t lo, uint64_t hi, uintptr_t here)
{
	uintptr_t bottom;
	if (stack && here - (uintptr_t)stack < ALTSTACK_SIZE) {
		bottom = (uintptr_t)stack;
	} else if (lo && here >= lo && here < hi) {
		bottom = (uintptr_t)lo;
	} else {
		stack_t cur;
		if (sigaltstack(NULL, &cur) < 0 ||
		    !(cur.ss_flags & SS_ONSTACK) || here < (uintptr_t)cur.ss_sp)
			return SIZE_MAX;
		bottom = (uintptr_t)cur.ss_sp;
	}
	return here >= bottom ? here - bottom : 0;
}
