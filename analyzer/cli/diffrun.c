/*
 * diffrun: --diff, each run of both sides loaded on its own, compared
 * (profile/diff.c) and written in the form --format chose
 * (export/diff_export.c), with the exit status of the gate.
 */
#include "diffrun.h"

#include <stdlib.h>

#include "diff.h"
#include "export.h"
#include "hide.h"
#include "outfile.h"
#include "profile.h"
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
int
diffrun_run(struct options *o, char **news, size_t nnews)
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
