/*
 * report_flat: the flat profile (see report_flat.h).
 *
 * The columns are Allegro's; seconds get two decimals instead of one
 * because native programs are often profiled for well under a second.
 * The calls and ms/call columns stay blank: time profiles have no exact
 * call counts (yet), and a blank says so better than a made-up number.
 * % Cum. is the running sum of % Time in the printed order, computed on
 * the exact values so rounding does not accumulate.
 */
#include "report_flat.h"

#include <stdlib.h>

#include "report.h"

/* One format for the two header lines and the rows keeps them aligned. */
#define HEAD_FMT "%5s %5s %7s %7s %6s %7s %7s  %s\n"
#define ROW_FMT "%5.1f %5.1f %7.2f %7.2f %6s %7s %7s  %s\n"

static void
table_head(FILE *out)
{
	fprintf(out, HEAD_FMT, "%", "%", "self", "total", "", "self", "total",
		"Function");
	fprintf(out, HEAD_FMT, "Time", "Cum.", "secs", "secs", "calls",
		"ms/call", "ms/call", "  name");
}

static void
table_rows(FILE *out, const struct profile *p, double threshold)
{
	size_t n;
	uint32_t *ids = profile_funcs_by_self(p, &n);
	uint64_t whole = p->hdr.weight, cum = 0;

	for (size_t i = 0; i < n; i++) {
		const struct profile_func *f = &p->funcs[ids[i]];
		double self_pct = report_pct(f->self, whole);
		/* Sorted by self: everything after the first one below the
		 * threshold is below it too. */
		if (self_pct + 1e-9 < threshold)
			break;
		cum += f->self;
		fprintf(out, ROW_FMT, self_pct, report_pct(cum, whole),
			report_seconds(f->self), report_seconds(f->total), "",
			"", "", f->label);
	}
	free(ids);
}

void
report_flat_write(FILE *out, const struct profile *p,
		  const struct report_flat_opts *opts)
{
	char pct[32];

	report_header(out, p);
	if (p->hdr.samples == 0)
		return;
	fprintf(out, "Times below %s%% will be suppressed.\n\n",
		report_fmt_pct(pct, sizeof(pct), opts->threshold_pct, 6));
	table_head(out);
	table_rows(out, p, opts->threshold_pct);
	report_unnamed_note(out, p);
}
