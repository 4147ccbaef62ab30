/*
 * control: sampling on and off (see control.h), and the public API of
 * profrun.h.
 */
#include "control.h"

#include "endings.h"

#include "profrun.h"
#include "state.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

static _Atomic int pause_depth;   /* profrun_stop() minus profrun_start() */
static _Atomic int toggled_off;   /* by the toggle signal */
static _Atomic int limit_reached; /* max samples taken */
static _Atomic uint64_t taken;

/* Whether now lies before the delay or after the duration.
 * async-signal-safe */
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

/* async-signal-safe */
int
control_sampling(void)
{
	return atomic_load_explicit(&pause_depth, memory_order_relaxed) == 0 &&
	       !atomic_load_explicit(&toggled_off, memory_order_relaxed) &&
	       !atomic_load_explicit(&limit_reached, memory_order_relaxed) &&
	       !timed_off();
}

/* async-signal-safe */
void
control_count_sample(void)
{
	uint64_t max = prof_state.cfg.max_samples;
	if (max && atomic_fetch_add(&taken, 1) + 1 >= max)
		atomic_store(&limit_reached, 1);
}

/* async-signal-safe */
static void
toggle_handler(int sig)
{
	(void)sig;
	atomic_fetch_xor(&toggled_off, 1);
}

int
control_init(void)
{
	const struct prof_config *cfg = &prof_state.cfg;
	/* --start-paused waits for the first profrun_start(), or for the
	 * first toggle signal when there is one. */
	atomic_store(&pause_depth, cfg->start_paused && !cfg->toggle_sig);
	atomic_store(&toggled_off, cfg->start_paused && cfg->toggle_sig);
	if (cfg->toggle_sig) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = toggle_handler;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (endings_real_sigaction(cfg->toggle_sig, &sa, NULL) < 0)
			return -errno;
	}
	return 0;
}

__attribute__((visibility("default"))) int
profrun_stop(void)
{
	if (!prof_state.initialised)
		return -ENOSYS;
	atomic_fetch_add(&pause_depth, 1);
	return 0;
}

__attribute__((visibility("default"))) int
profrun_start(void)
{
	if (!prof_state.initialised)
		return -ENOSYS;
	/* A start without a pause to end is ignored, so that a later stop
	 * still pauses. */
	int depth = atomic_load(&pause_depth);
	while (depth > 0 &&
	       !atomic_compare_exchange_weak(&pause_depth, &depth, depth - 1))
		;
	return 0;
}

__attribute__((visibility("default"))) int
profrun_flush(void)
{
	if (!prof_state.initialised)
		return -ENOSYS;
	/* Every record is in the file (the page cache) once stored. */
	return 0;
}
