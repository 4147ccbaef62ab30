/*
 * profanalyze: reads a profrun spool and prints a report.
 *
 * main joins the stages of cli/: the command line (options), then one
 * of the three ways to run: --follow, --diff, or the report of the
 * spools (run). Exit status: 0 when a report was written (warnings
 * included), 1 when the input could not be read or the output not
 * written, 2 for usage errors, 3 when --diff's gate failed.
 */
#include <stdlib.h>

#include "diff.h"
#include "export.h"
#include "follow.h"
#include "hide.h"
#include "options.h"
#include "outfile.h"
#include "profile.h"
#include "run.h"
#include "spools.h"
#include "xmalloc.h"

/* One run of --diff: a spool (with --children its process tree), hidden
 * functions collapsed. NULL after an error line. */
static struct profile *
load_run(struct options *o, const char *path, int *status)
{
	char *paths[1] = { (char *)path };
	o->spool = path;
	o->spools = paths;
	o->nspools = 1;
	struct profile *p = spools_load(o, status);
	o->spools = NULL;
	return p ? hide_apply_take(p, &o->hide) : NULL;
}

/* --diff: loads both sides run by run, compares, writes. Returns the
 * exit status (diff.h: 3 when the gate fails). */
static int
run_diff(struct options *o, char **news, size_t nnews)
{
	size_t n = o->nbases + nnews;
	struct profile **ps = xcalloc(n, sizeof(*ps));
	const char **names = xcalloc(n, sizeof(*names));
	int status = EXIT_FAILURE;
	size_t got = 0;
	struct diff d;
	struct outfile out;

	o->dopts.threshold_pct = o->threshold_pct;
	if (o->rules && diff_rules_read(&o->dopts, o->rules) < 0)
		goto out_free;
	for (; got < n; got++) {
		names[got] = got < o->nbases ? o->bases[got] :
					       news[got - o->nbases];
		if (!(ps[got] = load_run(o, names[got], &status)))
			goto out_free;
	}
	if (diff_compute(&d, &o->dopts, ps, names, o->nbases, ps + o->nbases,
			 names + o->nbases, nnews) < 0)
		goto out_free;
	if (outfile_open(&out, o->output) == 0) {
		diff_export_write(out.fp, &d);
		status = outfile_commit(&out) < 0 ? EXIT_FAILURE :
						    diff_status(&d);
	}
	diff_free(&d);
out_free:
	for (size_t i = 0; i < got; i++)
		profile_free(ps[i]);
	free(ps);
	free(names);
	diff_opts_free(&o->dopts);
	return status;
}

int
main(int argc, char **argv)
{
	struct options o;
	int ret;

	options_parse(&o, argc, argv);
	if (o.follow) {
		ret = follow_run(&o);
		options_free(&o);
		return ret;
	}
	/* (--follow waits for its SPOOL.PID.N.tmp of its own.) */
	char **owned = spools_unfinished(&o);
	if (o.diff)
		ret = run_diff(&o, o.spools, o.nspools);
	else
		ret = run_report(&o);
	options_free(&o);
	spools_free_owned(owned);
	return ret;
}
