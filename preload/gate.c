/*
 * gate: when samples are taken (see gate.h). Layer: core; every function
 * is async-signal-safe.
 */
#include "gate.h"

#include "state.h"

#include <stdatomic.h>
#include <stdint.h>

static _Atomic int pause_depth;   /* profrun_stop() minus profrun_start() */
static _Atomic int toggled_off;   /* by the toggle signal */
static _Atomic int limit_reached; /* max samples taken */
static _Atomic int size_reached;  /* the spool's size limit reached */
static _Atomic uint64_t taken;

/* The pause depth in the low bits, beside one bit each for the toggle
 * and the limit: updated with atomic adds, xors and ors alongside the
 * counters above, so that concurrent changes do not lose one another. */
#define SHUT_TOGGLED (1u << 24)
#define SHUT_LIMIT (1u << 25)
#define SHUT_SIZE (1u << 26)
_Atomic unsigned gate_shut;

/* Whether now lies before the delay or after the duration. */
static int
timed_off(void)
{
	const struct prof_config *cfg = &prof_state.cfg;
	if (!cfg->delay_ns && !cfg->duration_ns)
		return 0;
	uint64_t since = prof_now_ns() - prof_state.start_mono_ns;
	return since < cfg->delay_ns ||
	       (cfg->duration_ns && since >= cfg->delay_ns + cfg->duration_ns);
}

void
gate_init(int paused, int toggled)
{
	atomic_store(&pause_depth, paused);
	atomic_store(&toggled_off, toggled);
	atomic_store(&gate_shut, (paused ? 1u : 0u) |
				 (toggled ? SHUT_TOGGLED : 0u));
}

int
gate_open(void)
{
	return atomic_load_explicit(&pause_depth, memory_order_relaxed) == 0 &&
	       !atomic_load_explicit(&toggled_off, memory_order_relaxed) &&
	       !atomic_load_explicit(&limit_reached, memory_order_relaxed) &&
	       !atomic_load_explicit(&size_reached, memory_order_relaxed) &&
	       !timed_off();
}

void
gate_count_sample(void)
{
	uint64_t max = prof_state.cfg.max_samples;
	if (max && atomic_fetch_add(&taken, 1) + 1 >= max) {
		atomic_store(&limit_reached, 1);
		atomic_fetch_or(&gate_shut, SHUT_LIMIT);
	}
}

void
gate_size(int reached)
{
	if (atomic_exchange(&size_reached, reached) == reached)
		return;
	if (reached)
		atomic_fetch_or(&gate_shut, SHUT_SIZE);
	else
		atomic_fetch_and(&gate_shut, ~SHUT_SIZE);
}

void
gate_pause(void)
{
	atomic_fetch_add(&pause_depth, 1);
	atomic_fetch_add(&gate_shut, 1);
}

void
gate_resume(void)
{
	int depth = atomic_load(&pause_depth);
	while (depth > 0 &&
	       !atomic_compare_exchange_weak(&pause_depth, &depth, depth - 1))
		;
	if (depth > 0)
		atomic_fetch_sub(&gate_shut, 1);
}

void
gate_toggle(void)
{
	atomic_fetch_xor(&toggled_off, 1);
	atomic_fetch_xor(&gate_shut, SHUT_TOGGLED);
}
