/*
 * control: the public API of profrun.h and the toggle signal (see
 * control.h). Layer: life.
 */
#include "control.h"

#include "gate.h"
#include "real.h"

#include "profrun.h"
#include "state.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

/* async-signal-safe */
static void
toggle_handler(int sig)
{
	(void)sig;
	gate_toggle();
}

int
control_init(void)
{
	const struct prof_config *cfg = &prof_state.cfg;
	/* --start-paused waits for the first profrun_start(), or for the
	 * first toggle signal when there is one. */
	gate_init(cfg->start_paused && !cfg->toggle_sig,
		  cfg->start_paused && cfg->toggle_sig);
	if (cfg->toggle_sig) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = toggle_handler;
		sa.sa_flags = SA_RESTART | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		if (real_sigaction()(cfg->toggle_sig, &sa, NULL) < 0)
			return -errno;
	}
	return 0;
}

__attribute__((visibility("default"))) int
profrun_stop(void)
{
	if (!prof_state.initialised)
		return -ENOSYS;
	gate_pause();
	return 0;
}

__attribute__((visibility("default"))) int
profrun_start(void)
{
	if (!prof_state.initialised)
		return -ENOSYS;
	gate_resume();
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
