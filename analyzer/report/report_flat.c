/*
 * report_flat: the flat profile (see report_flat.h).
 *
 * The columns are Allegro's; seconds get two decimals instead of one
 * because native programs are often profiled for well under a second.
 * The calls and ms/call columns hold the exact counts of functions
 * compiled with -finstrument-functions (callcount.h) and stay blank for
 * the others: a blank says so better than a made-up number.
 * % Cum. is the running sum of % Time in the printed order, computed on
 * the exact values so rounding does not accumulate. The profile it reads
 * has hidden functions collapsed already (see hide.h): a function that
 * absorbed hidden callees shows Allegro's "... " before its name, and
 * hidden code no displayed function called is the row "...".
 */
#include "report_flat.h"

#include <stdlib.h>

#include "callcount.h"
#include "report.h"
#include "space.h"

/* One format for the two header lines and the rows keeps them aligned.
 * The %s after the first column is the error bar's (--error-bars), or
 * empty. */
#define HEAD_FMT "%5s%s %5s %7s %7s %6s %7s %7s  %s\n"
#define ROW_FMT "%5.1f%s %5.1f %7.2f %7.2f %6s %7s %7s  %s%s\n"

/* Space profiles: Kbytes, and the calls of the profiler's malloc-family
 * wrappers, which are counted exactly (shown with --show-all). */
#define SPACE_HEAD_FMT "%5s%s %5s %9s %9s %10s %8s %8s  %s\n"
#define SPACE_ROW_FMT "%5.1f%s %5.1f %9.0f %9.0f %10s %8s %8s  %s%s\n"

/* The error-bar column's two header lines ("±" is one column wide and
 * two bytes long) and its cell: the half-width of the self share's 95 %
 * interval in points. */
#define ERR_HEAD1 "     \u00b1"
#define ERR_HEAD2 "      "

static const char *
err_head(int line)
{
	if (!report_error_bars)
		return "";
	return line == 1 ? ERR_HEAD1 : ERR_HEAD2;
}

static const char *
err_cell(char *buf, size_t len, const struct profile *p,
	 const struct profile_func *f)
{
	buf[0] = '\0';
	if (report_error_bars)
		snprintf(buf, len, " %5.1f",
			 report_pct_err(p, f->self, f->self_var));
	return buf;
}

static void
table_head(FILE *out, const struct profile *p)
{
	if (p->hdr.kind == PROFILE_KIND_SPACE) {
		fprintf(out, SPACE_HEAD_FMT, "%", err_head(1), "%", "self",
			"total", "", "self", "total", "Function");
		fprintf(out, SPACE_HEAD_FMT, "Mem.", err_head(2), "Cum.",
			"Kbyte", "Kbyte", "calls", "by/call", "by/call",
			"  name");
		return;
	}
	fprintf(out, HEAD_FMT, "%", err_head(1), "%", "self", "total", "",
		"self", "total", "Function");
	fprintf(out, HEAD_FMT, "Time", err_head(2), "Cum.", "secs", "secs",
		"calls", "ms/call", "ms/call", "  name");
}

static void
space_row(FILE *out, const struct profile *p, uint32_t id, double cum_pct)
{
	const struct profile_func *f = &p->funcs[id];
	char calls[24] = "", self_per[24] = "", total_per[24] = "", err[16];
	int fn = space_wrapper_fn(p, id);
	uint64_t n = 0;
	if (f->flags & PROFILE_FUNC_COUNTED) /* -finstrument-functions */
		n = f->calls;
	else if (fn >= 0 && p->hdr.space.has_calls)
		n = p->hdr.space.calls[fn];
	if (n)
		snprintf(calls, sizeof(calls), "%llu", (unsigned long long)n);
	if (n && !p->hdr.window) { /* (counts are the whole run's) */
		snprintf(self_per, sizeof(self_per), "%.0f",
			 (double)f->self / (double)n);
		snprintf(total_per, sizeof(total_per), "%.0f",
			 (double)f->total / (double)n);
	}
	fprintf(out, SPACE_ROW_FMT, report_pct(f->self, p->hdr.weight),
		err_cell(err, sizeof(err), p, f), cum_pct, report_value(p, f->self), report_value(p, f->total),
		calls, self_per, total_per, report_elided_mark(f), f->text);
}

static void
time_row(FILE *out, const struct profile *p, uint32_t id, double cum_pct)
{
	const struct profile_func *f = &p->funcs[id];
	char calls[24], self_per[24], total_per[24], err[16];
	callcount_flat_columns(p, id, calls, self_per, total_per,
			       sizeof(calls));
	fprintf(out, ROW_FMT, report_pct(f->self, p->hdr.weight),
		err_cell(err, sizeof(err), p, f), cum_pct,
		report_seconds(f->self), report_seconds(f->total), calls,
		self_per, total_per, report_elided_mark(f), f->text);
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
		if (p->hdr.kind == PROFILE_KIND_SPACE) {
			space_row(out, p, ids[i], report_pct(cum, whole));
			continue;
		}
		time_row(out, p, ids[i], report_pct(cum, whole));
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
	fprintf(out, "%s below %s%% will be suppressed.\n\n",
		p->hdr.kind == PROFILE_KIND_SPACE ? "Mem.s" : "Times",
		report_fmt_pct(pct, sizeof(pct), opts->threshold_pct, 6));
	table_head(out, p);
	table_rows(out, p, opts->threshold_pct);
	report_unnamed_note(out, p);
}
