/*
 * sampler: the signal handler (see sampler.h). Everything in this file runs
 * inside the handler and is async-signal-safe.
 *
 * A signal that our timer did not send (kill, sigqueue, another timer) is
 * given to whatever disposition the target had before us, so installing the
 * profiler does not change what such a signal does.
 *
 * Layer: sources; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "sampler.h"

#include "altstack.h"
#include "gate.h"
#include "sigview.h"
#include "real.h"
#include "stacks.h"
#include "state.h"
#include "threads.h"
#include "timer.h"
#include "unwind.h"
#include "sys.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <ucontext.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct sigaction previous;

/* Stores the sample as an entry of the thread's SAMPLES record: a
 * reference to its stack when the thread has written that stack before,
 * else the stack itself with a new id. Returns 0, or as
 * appender_append_entry when the sample could not be stored (no chunk,
 * the size limit), -EAGAIN when it must go as a SAMPLE record instead
 * (no table, or an entry larger than buf).
 * async-signal-safe */
static int
store_entry(struct thread_slot *t, const struct spool_sample *s,
	    const uint64_t *pcs, uint8_t *buf, size_t cap)
{
	struct stacks_table *tab = threads_stacks(t);
	if (!tab)
		return -EAGAIN;
	struct stacks_probe p;
	uint64_t prev_time, prev_weight;
	stacks_find(tab, s->flags, pcs, s->depth, &p);
	stacks_last(tab, &prev_time, &prev_weight);
	uint32_t id = p.id ? p.id : stacks_next_id(tab, &p);
	size_t len = spool_encode_entry(buf, cap, prev_time, prev_weight, s,
					id, !p.id, pcs);
	if (!len)
		return -EAGAIN;
	int rc = appender_append_entry(&t->stream, s->tid, prev_time,
				       prev_weight, buf, len);
	if (rc < 0)
		return rc;
	stacks_add(tab, &p);
	stacks_set_last(tab, s->time_ns, s->weight);
	return 0;
}

/* Stores the time sample s with stack pcs (buf: cap bytes of room), and
 * counts it or its drop. async-signal-safe */
static void
store_sample(struct thread_slot *t, const struct spool_sample *s,
	     const uint64_t *pcs, uint8_t *buf, size_t cap)
{
	struct spool_buf b;
	int rc = store_entry(t, s, pcs, buf, cap);
	if (rc == -EAGAIN) {
		spool_buf_init(&b, buf, cap);
		rc = spool_put_sample(&b, s, pcs) < 0 ? -ENOSPC :
			appender_append(&t->stream, buf, b.len);
	}
	if (rc < 0)
		prof_drop(appender_drop_cause(rc));
	else
		gate_count_sample();
}

/* The stack the sampling handler needs below its own frame for a
 * sample: 8.4 KiB at most were measured (altstack.h: 11.9 KiB less the
 * kernel's 3.3 KiB signal frame and the handler's frame), and a fifth
 * more. With
 * less (a thread on an alternate stack of its own, of SIGSTKSZ) the
 * sample is dropped, counted with those the unwinder could not walk. */
#define SAMPLER_ROOM (10 * 1024)

/* Not inlined: its arrays are on the stack only once the handler has
 * found room for them.
 * async-signal-safe */
static __attribute__((noinline)) void
take_sample(struct thread_slot *t, int fd, const siginfo_t *si,
	    const ucontext_t *uc)
{
	uint64_t stack_pcs[SPOOL_MAX_DEPTH];
	uint8_t stack_buf[SPOOL_ENTRY_MAX(SPOOL_MAX_DEPTH)];
	uint64_t *pcs = stack_pcs;
	uint8_t *buf = stack_buf;
	size_t cap = sizeof(stack_buf);
	uint32_t max = prof_state.cfg.max_depth;
	struct spool_sample s;

	if (max > SPOOL_MAX_DEPTH && t->deep) {
		pcs = t->deep->handler_pcs;
		buf = t->deep->handler_rec;
		cap = sizeof(t->deep->handler_rec);
	} else if (max > SPOOL_MAX_DEPTH) {
		max = SPOOL_MAX_DEPTH;
	}
	s.time_ns = prof_now_ns();
	s.tid = (uint32_t)t->tid;
	s.kind = SPOOL_SAMPLE_TIME;
	s.weight = timer_sample_weight(t, fd, si);
	s.depth = unwind_stack(uc, t, pcs, max, &s.flags);
	store_sample(t, &s, pcs, buf, cap);
}

/* async-signal-safe */
void
sampler_store_time(struct thread_slot *t, uint64_t weight,
		   const uint64_t *pcs, uint32_t depth, uint16_t flags,
		   uint8_t *buf, size_t cap)
{
	struct spool_sample s = {
		.time_ns = prof_now_ns(),
		.tid = (uint32_t)t->tid,
		.kind = SPOOL_SAMPLE_TIME,
		.flags = flags,
		.weight = weight,
		.depth = depth,
	};
	store_sample(t, &s, pcs, buf, cap);
}

/* async-signal-safe */
static void
pass_on(int sig, siginfo_t *si, void *uc)
{
	if (previous.sa_flags & SA_SIGINFO) {
		if (previous.sa_sigaction)
			previous.sa_sigaction(sig, si, uc);
		return;
	}
	if (previous.sa_handler == SIG_IGN)
		return;
	if (previous.sa_handler != SIG_DFL) {
		previous.sa_handler(sig);
		return;
	}
	/* The default action: let it happen, as it would have without us. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	real_sigaction()(sig, &dfl, NULL);
	sys_call(SYS_tgkill, getpid(), gettid(), sig);
}

/* async-signal-safe */
static void
handler(int sig, siginfo_t *si, void *ucv)
{
	int saved_errno = errno;
	if (!timer_signal_is_ours(si)) {
		if (!sigview_hold(si))
			pass_on(sig, si, ucv);
		errno = saved_errno;
		return;
	}
	struct thread_slot *t = threads_self();
	if (!t)
		t = threads_adopt_self((uint64_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RSP]);
	if (!t) {
		if (atomic_load_explicit(&prof_state.enabled, memory_order_relaxed))
			prof_drop(SPOOL_DROP_NO_RING);
	} else {
		atomic_fetch_add_explicit(&t->handler_seq, 1, memory_order_seq_cst);
		int enabled = atomic_load_explicit(&prof_state.enabled,
						   memory_order_relaxed);
		/* At rates above 1 kHz the perf counter is paused while the
		 * handler runs, so that a handler slower than the period (a
		 * cold cache, a stack read through the kernel) is not sampled
		 * again on return and cannot starve the thread. At 1 kHz and
		 * below a handler cannot come near the period (the unwinder's
		 * slow reads are bounded), and the two system calls would be a
		 * tenth of the cost of a sample. */
		int pause = prof_state.period_ns < 1000000;
		int fd = pause || timer_jitters()
				 ? atomic_load_explicit(&t->perf_fd, memory_order_relaxed)
				 : -1;
		if (pause && fd >= 0)
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		if (enabled && !gate_open())
			timer_sample_weight(t, fd, si); /* paused: restart the weight's clock */
		else if (enabled && t->busy == THREAD_BUSY_SPACE)
			/* The space sampler is walking this thread's stack
			 * with the per-thread unwinder cache that a walk from
			 * here would use: its time goes with the allocation
			 * (sampler_store_time, from alloc_record). */
			atomic_fetch_add_explicit(&t->deferred_ns,
						  timer_sample_weight(t, fd, si),
						  memory_order_relaxed);
		else if (enabled && t->busy)
			prof_drop(SPOOL_DROP_REENTRANT);
		else if (enabled &&
			 altstack_room(t->altstack, t->stack_lo, t->stack_hi,
				       (uintptr_t)__builtin_frame_address(0)) <
				 SAMPLER_ROOM)
			prof_drop(SPOOL_DROP_UNWIND);
		else if (enabled)
			take_sample(t, fd, si, ucv);
		if (pause && fd >= 0)
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		atomic_fetch_add_explicit(&t->handler_seq, 1, memory_order_release);
	}
	errno = saved_errno;
}

int
sampler_discard_pending(void)
{
	int sig = prof_state.cfg.sig;
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, sig);
	real_mask(SIG_BLOCK, &set, &old);
	struct timespec zero = { 0, 0 };
	siginfo_t si;
	int theirs = 0;
	while (sigtimedwait(&set, &si, &zero) == sig)
		theirs |= !timer_signal_is_ours(&si);
	real_mask(SIG_SETMASK, &old, NULL);
	/* One of the target's own was pending too: it still is. */
	if (theirs)
		raise(sig);
	return theirs;
}

int
sampler_sigaction(const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev = previous;
	if (act)
		previous = *act;
	if (old)
		*old = prev;
	return 0;
}

int
sampler_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (real_sigaction()(prof_state.cfg.sig, &sa, &previous) < 0)
		return -errno;
	return 0;
}
