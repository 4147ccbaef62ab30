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

#include "callcount.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "debugpkg.h"
#include "spool.h"
#include "textesc.h"
#include "xmalloc.h"

double
report_seconds(uint64_t weight)
{
	return (double)weight / 1e9;
}

double
report_value(const struct profile *p, uint64_t weight)
{
	if (p->hdr.kind == PROFILE_KIND_SPACE)
		return (double)weight / 1024.0;
	return report_seconds(weight);
}

int
report_value_decimals(const struct profile *p)
{
	return p->hdr.kind == PROFILE_KIND_SPACE ? 0 : 2;
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
	/* The perf source samples user mode only (profrun(1), NOTES). */
	bool user_only = h->process_flags & SPOOL_PROCESS_USER_ONLY;
	const char *what = h->clock == SPOOL_CLOCK_WALL ? "elapsed real time"
			   : user_only ? "user CPU time"
				       : "user+system CPU time";

	snprintf(sampled, sizeof(sampled), "%.1f", report_seconds(h->weight));
	snprintf(total, sizeof(total), "%.1f", report_seconds(h->cpu_ns));
	if (h->clock == SPOOL_CLOCK_WALL) {
		/* Running (sampled on its CPU time) and blocked (sampled by the
		 * poller) add up to the threads' wall time, less the time they
		 * waited for a CPU. */
		fprintf(out, "Sample represents %s seconds of the threads' "
			"wall-clock time: %.1f running (%s), %.1f blocked.\n\n",
			sampled, report_seconds(h->weight - h->offcpu_weight),
			user_only ? "user mode" : "user+system",
			report_seconds(h->offcpu_weight));
		return;
	}
	fprintf(out, "Sample represents %s seconds of %s", sampled, what);
	/* As in Allegro, the total is left out when it says nothing new. */
	if (h->complete && (strcmp(sampled, total) != 0 || user_only))
		fprintf(out, " (out of a total of %s%s)", total,
			user_only ? " user+system" : "");
	fputs(".\n\n", out);
}

bool
report_delivered_hz(const struct profile_header *h, double *hz)
{
	if (h->clock == SPOOL_CLOCK_WALL || !h->complete || !h->sampled_cpu_ns)
		return false;
	/* All the run's samples: --thread and --from/--to select fewer but
	 * leave the CPU time the run's. */
	*hz = (double)h->run_samples / report_seconds(h->sampled_cpu_ns);
	return true;
}

/* Why the automatic choice passed the perf source over (PROCESS flags). */
static void
perf_refused_note(FILE *out, const struct profile_header *h)
{
	if (!(h->process_flags & SPOOL_PROCESS_PERF_REFUSED))
		return;
	if (h->process_flags & SPOOL_PROCESS_PERF_DENIED)
		fputs(" (perf_event_open was denied: perf_event_paranoid, or "
		      "a seccomp or container policy)", out);
	else if (h->process_flags & SPOOL_PROCESS_PERF_NO_FD)
		fputs(" (perf_event_open had no descriptor out of the "
		      "program's way: RLIMIT_NOFILE too low)", out);
	else
		fputs(" (perf_event_open failed: no perf events in this "
		      "kernel or sandbox)", out);
}

static void
source_line(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	uint64_t threads = report_threads(p);
	double hz;

	if (!h->has_process) {
		fputs("Time source: unknown (the spool has no process record)",
		      out);
	} else if (h->timer == SPOOL_TIMER_NONE && !h->requested_hz) {
		fputs("Time source: none (profrun --no-time)", out);
	} else {
		fprintf(out, "Time source: %s", timer_description(h->timer));
		if (h->requested_hz)
			fprintf(out, ", %u Hz requested", h->requested_hz);
		if (h->process_flags & SPOOL_PROCESS_JITTER)
			fputs(" (random periods, 0.5 to 1.5 times the mean)",
			      out);
		perf_refused_note(out, h);
		if (h->clock == SPOOL_CLOCK_WALL)
			fprintf(out, "; wall clock: %llu sample%s of running "
				"threads, %llu record%s of blocked time",
				(unsigned long long)(h->samples -
						     h->offcpu_samples),
				h->samples - h->offcpu_samples == 1 ? "" : "s",
				(unsigned long long)h->offcpu_samples,
				h->offcpu_samples == 1 ? "" : "s");
		else if (report_delivered_hz(h, &hz))
			fprintf(out, ", %.0f Hz delivered%s", hz,
				h->process_flags & SPOOL_PROCESS_USER_ONLY
					? " in user mode" : "");
		else if (h->period_ns)
			fprintf(out, ", %.0f Hz nominal (1/period)",
				1e9 / (double)h->period_ns);
	}
	fprintf(out, ", %llu thread%s.\n", (unsigned long long)threads,
		threads == 1 ? "" : "s");
	/* How the program image ended, when that is worth saying. */
	if (h->complete && h->end_reason == SPOOL_END_SIGNAL)
		fprintf(out, "The program was killed by signal %u (%s).\n",
			h->end_signal, strsignal((int)h->end_signal));
	else if (h->complete && h->end_reason == SPOOL_END_EXEC &&
		 h->spools <= 1)
		fputs("The program replaced itself with another (exec); its "
		      "spool is FILE.PID or FILE.PID.N.\n", out);
}

/* The drops by cause; a cause whose footer count was corrupt (see
 * profile_header.drops_corrupt) is named as left out. */
static void
drops_line(FILE *out, const struct profile_header *h)
{
	uint64_t total = 0;
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++)
		total = total > UINT64_MAX - h->drops[c] ? UINT64_MAX
							  : total + h->drops[c];
	if (!total && !h->drops_corrupt)
		return;
	fprintf(out, "Dropped samples: %llu", (unsigned long long)total);
	const char *sep = " (";
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++) {
		if (!h->drops[c])
			continue;
		fprintf(out, "%s%s %llu", sep, spool_drop_name(c),
			(unsigned long long)h->drops[c]);
		sep = ", ";
	}
	if (total)
		fputc(')', out);
	sep = ", not counting ";
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++) {
		if (!(h->drops_corrupt & (1u << c)))
			continue;
		fprintf(out, "%s%s", sep, spool_drop_name(c));
		sep = " and ";
	}
	if (h->drops_corrupt & (h->drops_corrupt - 1))
		fputs(", whose counts are corrupt", out);
	else if (h->drops_corrupt)
		fputs(", whose count is corrupt", out);
	fputs(".\n", out);
}

static void
cut_stacks_lines(FILE *out, const struct profile_header *h)
{
	if (h->truncated_stacks) {
		uint64_t all = h->kind == PROFILE_KIND_SPACE
				       ? h->space.alloc_records : h->samples;
		fprintf(out, "Truncated stacks: %llu sample%s",
			(unsigned long long)h->truncated_stacks,
			h->truncated_stacks == 1 ? "" : "s");
		if (all >= h->truncated_stacks)
			fprintf(out, " (%.1f%%)",
				100.0 * (double)h->truncated_stacks / (double)all);
		fputs(" had more frames than recorded", out);
		if (h->max_depth)
			fprintf(out, " (%u)", h->max_depth);
		fputs("; their outermost callers are missing (profrun "
		      "--max-depth keeps up to 1024).\n", out);
	}
	if (h->unwind_errors)
		fprintf(out, "Incomplete stacks: %llu sample%s stopped "
			"unwinding on an error.\n",
			(unsigned long long)h->unwind_errors,
			h->unwind_errors == 1 ? "" : "s");
}

/* ---- space profiles ---- */

/* Allegro's line: the samples' weights add up to an unbiased estimate of
 * the bytes allocated. */
static void
space_represents_line(FILE *out, const struct profile_space *s)
{
	fprintf(out, "Sample represents %.1f Kbytes of space allocated.\n\n",
		s->alloc_bytes / 1024.0);
}

/* The estimate's expected error: the square root of its variance
 * estimate (space.h). */
static void
space_error_line(FILE *out, const struct profile_space *s)
{
	double err = sqrt(s->alloc_var);
	if (!s->alloc_records)
		return;
	fprintf(out, "Expected error of the space allocated: %.1f Kbytes "
		"(%.1f%%).\n", err / 1024.0,
		s->alloc_bytes > 0 ? 100.0 * err / s->alloc_bytes : 0.0);
}

/* What the view shows, for the views that select. */
static void
space_view_line(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	const struct profile_space *s = &h->space;
	double err = sqrt(s->view_var) / 1024.0;

	if (s->view == PROFILE_SPACE_INUSE) {
		fprintf(out, "In use %s: %llu sampled blocks never freed, "
			"%.1f Kbytes (expected error %.1f Kbytes).\n\n",
			h->complete ? "at exit" : "when the spool ends",
			(unsigned long long)h->samples,
			report_value(p, h->weight), err);
	} else if (s->view == PROFILE_SPACE_PEAK) {
		fprintf(out, "Peak of the heap: %llu sampled blocks live",
			(unsigned long long)h->samples);
		if (h->start_mono_ns && s->peak_time_ns >= h->start_mono_ns)
			fprintf(out, " %.2f s after the start", (double)(s->peak_time_ns -
				h->start_mono_ns) / 1e9);
		fprintf(out, ", %.1f Kbytes (expected error %.1f Kbytes).\n\n",
			report_value(p, h->weight), err);
	}
}

static void
space_source_line(FILE *out, const struct profile *p)
{
	const struct profile_space *s = &p->hdr.space;
	uint64_t threads = report_threads(p);

	fputs("Allocation sampling: ", out);
	if (s->interval)
		fprintf(out, "one sample per %.1f Kbytes allocated on average",
			(double)s->interval / 1024.0);
	else if (p->hdr.has_process)
		fputs("off (profrun --no-space)", out);
	else
		fputs("interval unknown", out);
	fprintf(out, ", %llu sampled block%s freed, %llu thread%s.\n",
		(unsigned long long)s->matched_frees,
		s->matched_frees == 1 ? "" : "s",
		(unsigned long long)threads, threads == 1 ? "" : "s");
}

/* A profile of several process images says so; the figures above and
 * below are sums over all of them. */
static void
merged_line(FILE *out, const struct profile *p)
{
	if (p->hdr.spools > 1)
		fprintf(out, "Merged from %u spools (process images); counts "
			"and times are their sums.\n", p->hdr.spools);
}

/* What ran without the profiler because the program started it with
 * clone() itself. */
static void
clone_line(FILE *out, const struct profile_header *h)
{
	if (h->clone_processes)
		fprintf(out, "Not profiled: %llu child process%s started with "
			"clone() (not fork), which the profiler cannot follow.\n",
			(unsigned long long)h->clone_processes,
			h->clone_processes == 1 ? "" : "es");
	if (h->clone_threads)
		fprintf(out, "Not sampled: %llu thread%s started with clone() "
			"(not pthread_create).\n",
			(unsigned long long)h->clone_threads,
			h->clone_threads == 1 ? "" : "s");
}

/* Sampling that the spool's size limit (profrun --max-size) ended. */
static void
size_limit_line(FILE *out, const struct profile_header *h)
{
	if (!h->size_limit_ns)
		return;
	fprintf(out, "Sampling stopped early: the spool reached its size "
		"limit (--max-size=%llu bytes)", (unsigned long long)h->size_limit);
	if (h->start_mono_ns && h->size_limit_ns >= h->start_mono_ns)
		fprintf(out, " %.3f s after the start",
			(double)(h->size_limit_ns - h->start_mono_ns) / 1e9);
	fputs("; later samples were not taken.\n", out);
}

/* Memory the program mapped itself (mmap, as Python's pymalloc arenas
 * and some JITs and allocators do) is not seen by the malloc wrappers.
 * Said when the process's anonymous memory (its peak resident set less
 * the file pages, or its anonymous pages at the end) was much more than
 * the heap's estimated peak: twice, and 32 MiB more. One image only: the
 * figures of merged images do not add up. */
static void
unseen_line(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	if (h->spools > 1 || !h->rss_peak)
		return;
	uint64_t anon = h->rss_peak > h->rss_file ? h->rss_peak - h->rss_file : 0;
	if (h->rss_anon > anon)
		anon = h->rss_anon;
	double heap = h->space.peak_bytes;
	if ((double)anon < 2 * heap + 32.0 * 1048576)
		return;
	fprintf(out, "Not seen: the process's anonymous memory reached about "
		"%.1f Mbytes, %.1f Mbytes above the heap's peak through the "
		"malloc family; memory the program maps itself (mmap) is not in "
		"this profile.\n", (double)anon / 1048576.0,
		((double)anon - heap) / 1048576.0);
}

bool report_error_bars;

/* z of a two-sided 95 % interval of the normal distribution. */
#define Z95 1.959964

double
report_pct_err(const struct profile *p, uint64_t part, double part_var)
{
	const struct profile_header *h = &p->hdr;
	if (!h->weight)
		return 0.0;
	double w = (double)h->weight, s = (double)part / w;
	double rest = h->var > part_var ? h->var - part_var : 0.0;
	double var = ((1 - s) * (1 - s) * part_var + s * s * rest) / (w * w);
	return 100.0 * Z95 * sqrt(var);
}

/* How exact the shares are, in one line: the 95 % half-width of a 50 %
 * share, which is the widest (report_pct_err at s = 1/2). */
static void
resolution_line(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	if (!h->samples || !h->weight)
		return;
	double half = 100.0 * Z95 * 0.5 * sqrt(h->var) / (double)h->weight;
	fprintf(out, "Resolution: at %llu %s a 50%% share is known to "
		"\u00b1%.1f points (95%% interval)%s.\n",
		(unsigned long long)h->samples,
		p->hdr.kind == PROFILE_KIND_SPACE ? "sampled blocks" : "samples",
		half, report_error_bars ? "" : "; --error-bars for each share");
}

/* --from/--to. */
static void
window_line(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	if (!h->window)
		return;
	bool space = h->kind == PROFILE_KIND_SPACE;
	fprintf(out, "Window: %llu of the %llu %s, those taken from %.3f s ",
		(unsigned long long)(space ? h->window_allocs : h->samples),
		(unsigned long long)(space ? h->space.alloc_records
					   : h->run_samples),
		space ? "sampled allocations" : "samples",
		(double)h->window_from_ns / 1e9);
	if (h->window_to_ns == UINT64_MAX)
		fputs("after the program's start to its end", out);
	else
		fprintf(out, "to %.3f s after the program's start",
			(double)h->window_to_ns / 1e9);
	fputs(" (--from, --to).\n", out);
	/* Exact counts have no times: a window cannot select them. */
	if (profile_has_calls(p) ||
	    (h->kind == PROFILE_KIND_SPACE && h->space.has_calls))
		fputs("Call counts are the whole run's, not the window's: the "
		      "per-call columns are left blank.\n", out);
}

static void
space_header(FILE *out, const struct profile *p)
{
	const struct profile_space *s = &p->hdr.space;
	fprintf(out, "Sampling stopped after %llu samples taken for the "
		"space profiler.\n\n", (unsigned long long)s->alloc_records);
	space_represents_line(out, s);
	space_view_line(out, p);
	space_error_line(out, s);
	space_source_line(out, p);
	resolution_line(out, p);
	window_line(out, p);
	merged_line(out, p);
	drops_line(out, &p->hdr);
	clone_line(out, &p->hdr);
	size_limit_line(out, &p->hdr);
	unseen_line(out, p);
	cut_stacks_lines(out, &p->hdr);
	fputc('\n', out);
	callcount_header(out, p);
}

bool
report_thread_unsampled(const struct profile *p, const struct profile_thread *t,
			uint64_t *cpu_ns)
{
	const struct profile_header *h = &p->hdr;
	bool user_only = h->process_flags & SPOOL_PROCESS_USER_ONLY;
	uint64_t cpu = !t->has_cpu ? 0 :
		       user_only && t->user_known ? t->user_ns : t->cpu_ns;
	*cpu_ns = cpu;
	/* A window's samples stand for part of the thread's CPU time, and
	 * which part is not known (the CPU times are the run's). */
	if (p->hdr.kind == PROFILE_KIND_SPACE || !t->has_cpu || t->excluded ||
	    h->window || (h->timer == SPOOL_TIMER_NONE && !h->requested_hz))
		return false;
	uint64_t period = h->period_ns ? h->period_ns : 1000000;
	/* Below 20 periods a thread may miss half its samples by chance. */
	return cpu / 20 >= period && t->weight < cpu / 2;
}

/* The threads that ran much longer than their samples stand for: the
 * sampling signal did not reach them (masked where the library could not
 * see, or its timer could not be armed). */
static void
unsampled_lines(FILE *out, const struct profile *p)
{
	size_t n = 0, shown = 0;
	uint64_t cpu, missing = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct profile_thread *t = &p->threads[i];
		if (!report_thread_unsampled(p, t, &cpu))
			continue;
		n++;
		missing += cpu - t->weight;
		if (++shown > 3)
			continue;
		char *name = textesc_dup(t->name ? t->name : "?");
		fprintf(out, "Unsampled: thread %u (%s) ran %.3f s of CPU time, "
			"its samples stand for %.3f s; the rest is missing "
			"from this profile.\n", t->tid, name, report_seconds(cpu),
			report_seconds(t->weight));
		free(name);
	}
	if (n > 3)
		fprintf(out, "Unsampled: %zu threads in all, %.3f s of CPU time "
			"missing (see --threads).\n", n, report_seconds(missing));
}

void
report_header(FILE *out, const struct profile *p)
{
	if (p->hdr.kind == PROFILE_KIND_SPACE) {
		space_header(out, p);
		return;
	}
	fprintf(out, "Sampling stopped after %llu samples taken for the "
		"time profiler.\n\n", (unsigned long long)p->hdr.run_samples);
	represents_line(out, p);
	source_line(out, p);
	resolution_line(out, p);
	window_line(out, p);
	merged_line(out, p);
	drops_line(out, &p->hdr);
	clone_line(out, &p->hdr);
	size_limit_line(out, &p->hdr);
	unsampled_lines(out, p);
	cut_stacks_lines(out, &p->hdr);
	fputc('\n', out);
	callcount_header(out, p);
}

const char *
report_elided_mark(const struct profile_func *f)
{
	return f->flags & PROFILE_FUNC_ELIDED ? "... " : "";
}

static void
report_nosym_note(FILE *out, const struct profile *p);

void
report_unnamed_note(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	if (!h->unnamed_samples)
		return;
	/* The names are resolve.c's: an unnamed PC in a module is grouped
	 * by the function that holds it (unnamed_start), so the line says
	 * START, not the PC's own offset, lest a reader take a row for one
	 * instruction. */
	fprintf(out, "\n%llu of %llu samples (%.1f%%) have frames in code "
		"without a symbol: named module+0xSTART by the function's "
		"start in the unwind tables (module+0xOFFSET where they have "
		"none), or 0xADDRESS outside any module.\n",
		(unsigned long long)h->unnamed_samples,
		(unsigned long long)h->samples,
		report_pct(h->unnamed_samples, h->samples));
	report_nosym_note(out, p);
}

#define NOSYM_LISTED 4

/* One footer line: the samples self[m] of the modules with some, "ran
 * in" before, their count and after, then the first few by path, each
 * with the package whose debug files would name their functions
 * (debugpkg.h). */
static void
nosym_line(FILE *out, const struct profile *p, const uint64_t *self,
	   const char *before, const char *after)
{
	uint64_t n = 0;
	size_t nmods = 0, listed = 0, more = 0;

	for (size_t m = 0; m < p->nmodules; m++) {
		n += self[m];
		nmods += self[m] != 0;
	}
	if (!n)
		return;
	fprintf(out, "%llu sample%s (%.1f%%) ran in %s%zu binar%s%s:",
		(unsigned long long)n, n == 1 ? "" : "s",
		report_pct(n, p->hdr.samples), before, nmods,
		nmods == 1 ? "y" : "ies", after);
	for (size_t m = 0; m < p->nmodules; m++) {
		if (!self[m])
			continue;
		if (listed == NOSYM_LISTED) {
			more++;
			continue;
		}
		char *pkg = debugpkg_for(p->modules[m].path);
		fprintf(out, "%s ", listed++ ? "," : "");
		textesc_put(out, p->modules[m].path);
		if (pkg)
			fprintf(out, " (%s would name them)", pkg);
		free(pkg);
	}
	if (more)
		fprintf(out, " and %zu more", more);
	fputs(".\n", out);
}

/* The footer lines about missing symbols: the samples that ran in
 * binaries without any (their functions' self samples), then those that
 * ran in the unnamed functions of binaries with dynamic symbols only (a
 * stripped library keeps its exported functions), each with the
 * binaries and the packages whose debug files would name them. */
static void
report_nosym_note(FILE *out, const struct profile *p)
{
	uint64_t *none = xcalloc(p->nmodules + 1, sizeof(*none));
	uint64_t *part = xcalloc(p->nmodules + 1, sizeof(*part));

	for (size_t f = 0; f < p->nfuncs; f++) {
		uint32_t m = p->funcs[f].module;
		if (m == PROFILE_NONE)
			continue;
		if (p->modules[m].no_symbols)
			none[m] += p->funcs[f].self_samples;
		else if (p->modules[m].dynsym_only &&
			 p->funcs[f].flags & PROFILE_FUNC_UNNAMED)
			part[m] += p->funcs[f].self_samples;
	}
	nosym_line(out, p, none, "", " without symbols");
	nosym_line(out, p, part, "unnamed functions of ",
		   " whose symbols leave them out");
	free(none);
	free(part);
}

static int
cmp_thread_weight(const void *a, const void *b)
{
	const struct profile_thread *x = *(const struct profile_thread *const *)a;
	const struct profile_thread *y = *(const struct profile_thread *const *)b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void
report_threads_write(FILE *out, const struct profile *p)
{
	bool space = p->hdr.kind == PROFILE_KIND_SPACE;
	const struct profile_thread **order =
		xcalloc(p->nthreads ? p->nthreads : 1, sizeof(*order));
	for (size_t i = 0; i < p->nthreads; i++)
		order[i] = &p->threads[i];
	qsort(order, p->nthreads, sizeof(*order), cmp_thread_weight);
	fprintf(out, "%10s  %-16s %10s %12s", "thread", "name", "samples",
		space ? "Kbytes" : "seconds");
	fputs(space ? "\n" : " cpu seconds  sampled\n", out);
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct profile_thread *t = order[i];
		/* The program names its threads: escaped, and padded as
		 * escaped. */
		char *name = textesc_dup(t->name ? t->name : "?");
		fprintf(out, "%10u  %-16s %10llu %12.3f", t->tid, name,
			(unsigned long long)t->samples,
			space ? (double)t->weight / 1024.0
			      : report_seconds(t->weight));
		free(name);
		uint64_t cpu;
		bool missing = report_thread_unsampled(p, t, &cpu);
		if (space)
			fputc('\n', out);
		else if (!t->has_cpu || t->excluded)
			fprintf(out, " %11s %8s\n", "-", "-");
		else if (!cpu || p->hdr.window)
			fprintf(out, " %11.3f %8s\n", report_seconds(cpu), "-");
		else
			fprintf(out, " %11.3f %7.0f%%%s\n", report_seconds(cpu),
				100.0 * (double)t->weight / (double)cpu,
				missing ? "  unsampled time" : "");
	}
	free(order);
}
