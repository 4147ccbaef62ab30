/*
 * control: uses the public API (profrun.h) to sample only a window of its
 * work, so that a test can check that samples fall inside it and nowhere
 * else. Linked with libprofrun.so, as a user's program would be; run
 * without profrun, every call returns -ENOSYS and the program does the
 * same work.
 *
 * usage: control api | toggle SIGNAL | plain
 *   api     outside_window(), then profrun_start(); inside_window();
 *           nested profrun_stop() twice and profrun_start() once around
 *           paused_inside(); profrun_stop(); outside_window_2()
 *           (run it with profrun --start-paused)
 *   toggle  outside_window(), raise(SIGNAL), inside_window(),
 *           raise(SIGNAL), outside_window_2()
 *           (run it with profrun --start-paused --toggle-signal=SIGNAL)
 *   plain   inside_window() only (for --max-samples, --delay, --duration)
 *   overstart  profrun_start() twice with no pause to end, inside_window(),
 *           then one profrun_stop() before outside_window(): the stop
 *           must still pause
 * Prints "profiled" or "not profiled" (what profrun_flush() returned).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "profrun.h"
#include "work.h"

static WORK_FN void
outside_window(void)
{
	work_spin(20 * WORK_UNIT);
}

static WORK_FN void
inside_window(void)
{
	work_spin(30 * WORK_UNIT);
}

static WORK_FN void
paused_inside(void)
{
	work_spin(20 * WORK_UNIT);
}

static WORK_FN void
outside_window_2(void)
{
	work_spin(20 * WORK_UNIT);
}

static int
api(void)
{
	outside_window();
	int rc = profrun_start();
	inside_window();
	profrun_stop();
	profrun_stop();
	paused_inside();
	profrun_start();
	inside_window();
	profrun_stop();
	outside_window_2();
	return rc;
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int rc;
	if (strcmp(mode, "api") == 0) {
		rc = api();
	} else if (strcmp(mode, "toggle") == 0 && argc > 2) {
		int sig = atoi(argv[2]);
		outside_window();
		raise(sig);
		inside_window();
		raise(sig);
		outside_window_2();
		rc = 0;
	} else if (strcmp(mode, "overstart") == 0) {
		profrun_start();
		rc = profrun_start();
		inside_window();
		profrun_stop();
		outside_window();
	} else if (strcmp(mode, "plain") == 0) {
		inside_window();
		rc = 0;
	} else {
		fprintf(stderr, "usage: control api | toggle SIGNAL | plain | "
			"overstart\n");
		return 2;
	}
	int flushed = profrun_flush();
	printf("%s\n", flushed == 0 ? "profiled" : "not profiled");
	if (flushed != 0 && (flushed != -ENOSYS || rc != -ENOSYS))
		return 1;
	return 0;
}
