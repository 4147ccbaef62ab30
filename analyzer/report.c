/*
 * report: the shared header of the text reports (see report.h).
 *
 * Allegro's header gives the number of samples, the CPU time they stand
 * for and the process's total CPU time. A run of a native program has
 * more to disclose: the time source and the rate it really delivered,
 * the samples it dropped and the stacks it cut; they get one paragraph,
 * printed only as far as it has something to say.
 */
#include "report.h"

#include <stdbool.h>
#include <string.h>

#include "spool.h"

double
report_seconds(uint64_t weight)
{
	return (double)weight / 1e9;
}

double
report_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

uint64_t
report_threads(const struct profile *p)
{
	uint64_t seen = p->nthreads;
	return p->hdr.footer_threads > seen ? p->hdr.footer_threads : seen;
}

const char *
report_fmt_pct(char *buf, size_t len, double v, int max_decimals)
{
	snprintf(buf, len, "%.*f", max_decimals, v);
	char *dot = strchr(buf, '.');
	if (!dot)
		return buf;
	char *end = buf + strlen(buf);
	while (end > dot + 2 && end[-1] == '0')
		*--end = '\0';
	return buf;
}

static const char *
timer_description(uint32_t timer)
{
	switch (timer) {
	case SPOOL_TIMER_PERF:
		return "perf task-clock";
	case SPOOL_TIMER_POSIX:
		return "POSIX thread CPU-time timer";
	case SPOOL_TIMER_ITIMER:
		return "setitimer ITIMER_PROF";
	default:
		return "unknown timer";
	}
}

static void
represents_line(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	char sampled[32], total[32];
	const char *what = h->clock == SPOOL_CLOCK_WALL
				   ? "elapsed real time"
				   : "user+system CPU time";

	snprintf(sampled, sizeof(sampled), "%.1f", report_seconds(h->weight));
	snprintf(total, sizeof(total), "%.1f", report_seconds(h->cpu_ns));
	fprintf(out, "Sample represents %s seconds of %s", sampled, what);
	/* As in Allegro, the total is left out when it says nothing new. */
	if (h->complete && strcmp(sampled, total) != 0)
		fprintf(out, " (out of a total of %s)", total);
	fputs(".\n\n", out);
}

static void
source_line(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	uint64_t threads = report_threads(p);

	if (!h->has_process) {
		fputs("Time source: unknown (the spool has no process record)",
		      out);
	} else {
		fprintf(out, "Time source: %s", timer_description(h->timer));
		if (h->requested_hz)
			fprintf(out, ", %u Hz requested", h->requested_hz);
		if (h->complete && h->cpu_ns)
			fprintf(out, ", %.0f Hz delivered",
				(double)h->samples / report_seconds(h->cpu_ns));
		else if (h->period_ns)
			fprintf(out, ", %.0f Hz nominal (1/period)",
				1e9 / (double)h->period_ns);
	}
	fprintf(out, ", %llu thread%s.\n", (unsigned long long)threads,
		threads == 1 ? "" : "s");
}

static void
drops_line(FILE *out, const struct profile_header *h)
{
	uint64_t total = 0;
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++)
		total += h->drops[c];
	if (!total)
		return;
	fprintf(out, "Dropped samples: %llu (", (unsigned long long)total);
	bool first = true;
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++) {
		if (!h->drops[c])
			continue;
		fprintf(out, "%s%s %llu", first ? "" : ", ", spool_drop_name(c),
			(unsigned long long)h->drops[c]);
		first = false;
	}
	fputs(").\n", out);
}

static void
cut_stacks_lines(FILE *out, const struct profile_header *h)
{
	if (h->truncated_stacks) {
		fprintf(out, "Truncated stacks: %llu sample%s had more frames "
			"than recorded", (unsigned long long)h->truncated_stacks,
			h->truncated_stacks == 1 ? "" : "s");
		if (h->max_depth)
			fprintf(out, " (%u)", h->max_depth);
		fputs("; their outermost callers are missing.\n", out);
	}
	if (h->unwind_errors)
		fprintf(out, "Incomplete stacks: %llu sample%s stopped "
			"unwinding on an error.\n",
			(unsigned long long)h->unwind_errors,
			h->unwind_errors == 1 ? "" : "s");
}

void
report_header(FILE *out, const struct profile *p)
{
	fprintf(out, "Sampling stopped after %llu samples taken for the "
		"time profiler.\n\n", (unsigned long long)p->hdr.samples);
	represents_line(out, p);
	source_line(out, p);
	drops_line(out, &p->hdr);
	cut_stacks_lines(out, &p->hdr);
	fputc('\n', out);
}

void
report_unnamed_note(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	if (!h->unnamed_samples)
		return;
	fprintf(out, "\n%llu of %llu samples (%.1f%%) have frames without a "
		"function name, shown as module+0xOFFSET or 0xADDRESS.\n",
		(unsigned long long)h->unnamed_samples,
		(unsigned long long)h->samples,
		report_pct(h->unnamed_samples, h->samples));
}
