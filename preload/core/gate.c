/*
 * gate: when samples are taken (see gate.h). Layer: core; every function
 * is async-signal-safe.
 */
#include "gate.h"

#include "state.h"

#include <stdatomic.h>
#include <stdint.h>

/* The whole state in one word, which gate_open() reads at every sample:
 * the pause depth (profrun_stop() minus profrun_start()) in the low
 * bits, beside one bit each for the toggle, the sample limit and the
 * size limit. Changed with atomic read-modify-writes only, so that
 * concurrent changes do not lose one another. */
#define SHUT_DEPTH 0xffffffu
#define SHUT_TOGGLED (1u << 24)
#define SHUT_LIMIT (1u << 25)
#define SHUT_SIZE (1u << 26)
_Atomic unsigned gate_shut;

static _Atomic uint64_t taken; /* samples counted, for the sample limit */

/* Whether now lies before the delay or after the duration. async-signal-safe */
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
	atomic_store(&gate_shut, (paused ? 1u : 0u) |
				 (toggled ? SHUT_TOGGLED : 0u));
}

/* async-signal-safe */
int
gate_open(void)
{
	return gate_shut_now() == 0 && !timed_off();
}

/* async-signal-safe */
void
gate_count_sample(void)
{
	uint64_t max = prof_state.cfg.max_samples;
	if (max && atomic_fetch_add(&taken, 1) + 1 >= max)
		atomic_fetch_or(&gate_shut, SHUT_LIMIT);
}

/* async-signal-safe */
void
gate_size(int reached)
{
	if (reached)
		atomic_fetch_or(&gate_shut, SHUT_SIZE);
	else
		atomic_fetch_and(&gate_shut, ~SHUT_SIZE);
}

void
gate_pause(void)
{
	atomic_fetch_add(&gate_shut, 1);
}

void
gate_resume(void)
{
	unsigned v = atomic_load(&gate_shut);
	while ((v & SHUT_DEPTH) &&
	       !atomic_compare_exchange_weak(&gate_shut, &v, v - 1))
		;
}

/* async-signal-safe */
void
gate_toggle(void)
{
	atomic_fetch_xor(&gate_shut, SHUT_TOGGLED);
}
