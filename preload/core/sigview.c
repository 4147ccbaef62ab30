/*
 * sigview: the program's belief about the sampling signal, per thread
 * (see sigview.h). Layer: core.
 */
#include "sigview.h"

#include "sys.h"

#include <sys/syscall.h>
#include <unistd.h>

/* The program believes it blocked the sampling signal on this thread. */
static __thread int believed;
/* A signal of the program's own held back meanwhile, and its siginfo. */
static __thread int held;
static __thread siginfo_t held_info;

/* async-signal-safe */
int
sigview_hold(const siginfo_t *si)
{
	if (!believed)
		return 0;
	if (!held) {
		held_info = *si;
		held = 1;
	}
	return 1;
}

/* async-signal-safe */
int
sigview_believed(void)
{
	return believed;
}

void
sigview_set_believed(int b)
{
	believed = b;
	if (!believed)
		sigview_release();
}

void
sigview_inherit(int b)
{
	believed = b;
	held = 0;
}

int
sigview_held(void)
{
	return held;
}

void
sigview_release(void)
{
	if (!held)
		return;
	held = 0;
	sys_call(SYS_rt_tgsigqueueinfo, getpid(), gettid(), held_info.si_signo,
		 &held_info);
}
