/*
 * follow: --follow, the report of a spool that profrun is still
 * writing, again every --interval seconds until the program ends.
 */
#include "follow.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "run.h"
#include "spools.h"
#include "xmalloc.h"

/* Whether the process that writes p's spool is gone: it has a pid, and
 * no process has it now. */
static bool
writer_gone(const struct profile *p)
{
	return p->hdr.has_process && p->hdr.pid &&
	       kill((pid_t)p->hdr.pid, 0) < 0 && errno == ESRCH;
}

static void
sleep_seconds(double secs)
{
	struct timespec ts = { (time_t)secs,
			       (long)((secs - (double)(time_t)secs) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Writes one --follow report of p (which it frees) to standard output,
 * after a line that says when and whether the program still runs, the
 * screen cleared first on a terminal. */
static int
follow_report(struct options *o, struct profile *p, bool running)
{
	char when[32];
	time_t now = time(NULL);
	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	printf("profanalyze --follow: %s at %s: %s, %llu samples\n\n",
	       o->spool, when, running ? "running" : "ended",
	       (unsigned long long)p->hdr.samples);
	if (o->report != REPORT_CALL_COUNTS && o->report != REPORT_THREADS)
		p = hide_apply_take(p, &o->hide);
	int ret = run_write_report(o, p);
	profile_free(p);
	fflush(stdout);
	return ret;
}

/* Reads path as the one spool of o (quietly, when quiet). */
static struct profile *
follow_load(struct options *o, const char *path, bool quiet, int *status)
{
	char *spools[1] = { (char *)path };
	struct options one = *o;
	one.spool = path;
	one.spools = spools;
	one.nspools = 1;
	diag_set_quiet(quiet);
	struct profile *p = spools_load(&one, status);
	diag_set_quiet(false);
	return p;
}

/* The spool to read this round: the temporary one profrun writes, or
 * SPOOL. NULL while there is neither (with a note the first time). */
static char *
follow_path(const struct options *o, bool *waiting)
{
	struct stat st;
	char *path = spools_running(o->spool, NULL);

	if (!path && stat(o->spool, &st) == 0)
		path = xstrdup(o->spool);
	if (!path && !*waiting)
		diag_note("%s: waiting for the spool to appear", o->spool);
	if (!path)
		*waiting = true;
	return path;
}

enum follow_next {
	FOLLOW_SLEEP, /* another round after the interval */
	FOLLOW_NOW,   /* another round at once */
	FOLLOW_DONE,
};

/* One round over path: a report while the program runs, the last one
 * once it has ended. *ret is the exit status when it is FOLLOW_DONE. */
static enum follow_next
follow_round(struct options *o, const char *path, int *ret)
{
	struct stat st;
	int status = EXIT_FAILURE;
	struct profile *p = follow_load(o, path, true, &status);

	if (!p) {
		/* A spool created a moment ago may lack its header; one
		 * renamed into place a moment ago is SPOOL. */
		if (stat(path, &st) < 0 ||
		    (st.st_size < 4096 && status != EXIT_USAGE))
			return FOLLOW_SLEEP;
		*ret = status;
		return FOLLOW_DONE;
	}
	if (!p->hdr.complete && !writer_gone(p)) {
		*ret = follow_report(o, p, true);
		return *ret ? FOLLOW_DONE : FOLLOW_SLEEP;
	}
	/* Ended: read again, aloud. (profrun renames the temporary spool
	 * to SPOOL right after; if that happens first, the next round
	 * reads SPOOL.) */
	profile_free(p);
	p = follow_load(o, path, false, &status);
	if (!p && stat(path, &st) < 0)
		return FOLLOW_NOW;
	*ret = p ? follow_report(o, p, false) : status;
	return FOLLOW_DONE;
}

/* --follow: the report every interval while profrun writes the spool
 * (SPOOL.PID.N.tmp, or SPOOL itself when the library was preloaded
 * without profrun), until its footer appears or its writer is gone
 * without one (killed); then the last report, of SPOOL once profrun has
 * put it in place, with the warnings the earlier ones kept quiet. */
int
follow_run(struct options *o)
{
	double secs = o->interval ? o->interval : 2.0;
	bool waiting = false;
	int ret = 0;

	for (;;) {
		char *path = follow_path(o, &waiting);
		enum follow_next next = path ? follow_round(o, path, &ret) :
					       FOLLOW_SLEEP;
		free(path);
		if (next == FOLLOW_DONE)
			return ret;
		if (next == FOLLOW_SLEEP)
			sleep_seconds(secs);
	}
}
