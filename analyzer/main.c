/*
 * profanalyze: reads a profrun spool and prints a report.
 *
 * main joins the stages of cli/: the command line (options), then one
 * of the three ways to run: --follow (follow), --diff (diffrun), or the
 * report of the spools (run). Exit status: 0 when a report was written
 * (warnings included), 1 when the input could not be read or the output
 * not written, 2 for usage errors, 3 when --diff's gate failed.
 */
#include <stddef.h>

#include "diffrun.h"
#include "follow.h"
#include "options.h"
#include "run.h"
#include "spools.h"

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
		ret = diffrun_run(&o, o.spools, o.nspools);
	else
		ret = run_report(&o);
	options_free(&o);
	spools_free_owned(owned);
	return ret;
}
