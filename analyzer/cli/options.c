/*
 * options: the command line of profanalyze, into struct options.
 *
 * Every option is one row of the table below (as in pprof's
 * internal/driver/commands.go): its name and argument, the function that
 * takes it, the forms of output it changes and the usage error where it
 * changes nothing, and its entry in --help. getopt_long's array, --help
 * and the checks that refuse an option the chosen report would silently
 * ignore are all made from the table, so that adding an option is adding
 * its row (and a take_ function when its argument is of a new kind).
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "annotate.h"
#include "debuginfo.h"
#include "diag.h"
#include "report.h"
#include "report_outline.h"
#include "srcline.h"
#include "xmalloc.h"

#ifndef PROFRUN_VERSION
#define PROFRUN_VERSION "unknown"
#endif

#define DEBUG_ROOT "/usr/lib/debug"

/* Each option's id: its bit in struct options' given (-o and -O, one
 * option, share one). */
enum option_id {
	OPT_FLAT, OPT_GRAPH, OPT_OUTLINE, OPT_JSON, OPT_CALL_COUNTS,
	OPT_THREADS, OPT_FORMAT, OPT_ADDRESSES, OPT_DISASSEMBLE, OPT_INTEL,
	OPT_LIST, OPT_PROCESSES, OPT_CHILDREN, OPT_THREAD, OPT_FROM, OPT_TO,
	OPT_FOLLOW, OPT_INTERVAL,
	OPT_DIFF, OPT_BASE, OPT_NORMALIZE, OPT_METRIC, OPT_FAIL_ABOVE,
	OPT_FAIL_ABOVE_ABS, OPT_FAIL_RULES,
	OPT_TIME, OPT_SPACE, OPT_ALLOC, OPT_INUSE, OPT_PEAK,
	OPT_THRESHOLD, OPT_FRACTIONAL, OPT_ORDER, OPT_STYLE, OPT_HIDE_SELF,
	OPT_HIDE_SUBS, OPT_NODE_COUNT, OPT_ROOT, OPT_MAX_INDENT,
	OPT_MAX_DEPTH, OPT_HIDE, OPT_HIDE_MODULE, OPT_SHOW_ALL,
	OPT_NO_DEMANGLE, OPT_LINES, OPT_INLINE, OPT_NO_INLINE,
	OPT_ERROR_BARS, OPT_DEBUG_DIR, OPT_DEBUGINFOD, OPT_OUTPUT, OPT_HELP,
	OPT_VERSION,
	OPT_COUNT
};
_Static_assert(OPT_COUNT <= 64, "struct options' given has 64 bits");

#define BIT(id) ((uint64_t)1 << (id))
#define VIEWS (BIT(OPT_ALLOC) | BIT(OPT_INUSE) | BIT(OPT_PEAK))

/* The forms of output, one of which a command line without --diff asks
 * for (form_of()): what an option applies to. */
#define FOR_FLAT (1u << 0)
#define FOR_GRAPH (1u << 1)  /* --graph, allegro style */
#define FOR_RACKET (1u << 2) /* --graph --style=racket */
#define FOR_OUTLINE (1u << 3)
#define FOR_JSON (1u << 4)
#define FOR_CALLS (1u << 5) /* --call-counts */
#define FOR_THREADS (1u << 6)
#define FOR_PROCESSES (1u << 7)
#define FOR_DISASSEMBLE (1u << 8) /* --disassemble, with --list or not */
#define FOR_LIST (1u << 9)        /* --list alone */
#define FOR_DOT (1u << 10)        /* --format=dot */
#define FOR_HTML (1u << 11)
#define FOR_CALLGRIND (1u << 12)
#define FOR_MLMON_COUNT (1u << 13)
#define FOR_EXPORT (1u << 14) /* the other --formats */
#define FOR_DIFF (1u << 15)   /* (never a form: of --diff's options) */
#define FOR_ALL ((1u << 15) - 1)
#define FOR_ANNOTATE (FOR_DISASSEMBLE | FOR_LIST)
#define FOR_TEXT (FOR_FLAT | FOR_GRAPH | FOR_RACKET | FOR_OUTLINE | \
		  FOR_THREADS | FOR_CALLS)

struct option_row;
typedef void take_fn(struct options *o, const struct option_row *r,
		     const char *arg);

struct option_row {
	const char *name;  /* --NAME; NULL: -SHORT only */
	char short_name;   /* -SHORT, or 0 */
	enum option_id id;
	/* Its argument as --help writes it after the name ("=N", " PCT");
	 * NULL: it takes none. */
	const char *arg;
	take_fn *take;     /* NULL: an entry of --help that is no option */
	/* What take uses: the report it chooses, the field it sets. */
	enum report_kind report;
	size_t field;
	/* The forms it changes (0: every one) and the usage error in the
	 * others; when given without one of needs, that error too. */
	unsigned applies;
	uint64_t needs;
	const char *refusal;
	/* Forms that refuse it with an error of their own. */
	unsigned refused_in;
	const char *refused_why;
	bool not_diff;     /* --diff, its own report, refuses it */
	/* --help: a heading before the entry; the entry's left column when
	 * not --NAME ARG; its text, lines split at \n (NULL: no entry); a
	 * comma-separated list that continues its first line. */
	const char *section;
	const char *usage;
	const char *help;
	const char *(*help_list)(void);
};

static take_fn take_report, take_flag, take_string, take_pct, take_count,
	take_max_depth, take_style, take_order, take_hide, take_show_all,
	take_thread, take_window, take_kind, take_view, take_annotate,
	take_interval, take_lines, take_inline, take_debuginfod,
	take_error_bars, take_base, take_normalize, take_metric,
	take_amount, take_help, take_version;

#define FIELD(f) offsetof(struct options, f)

/* The usage errors that several rows share. */
#define NO_TIMES "--from and --to do not apply to the exact call counts " \
	"(--call-counts, --format=mlmon-count), which have no times"
#define DIFF_ONLY "--base, --normalize, --metric and --fail-* apply to " \
	"--diff only"
#define GRAPH_ONLY "--order and --style apply to --graph only"
#define RACKET_ONLY "--hide-self and --hide-subs apply to --graph " \
	"--style=racket and --format=dot only"
#define OUTLINE_ONLY "--root, --max-indent and --max-depth apply to " \
	"--outline only"
#define OWN_REPORT "--disassemble and --list are reports of their own: " \
	"they do not go with another report"
#define FOLLOW_TEXT "--follow prints the text reports to standard output " \
	"(--flat, --graph, --outline, --threads, --call-counts), not " \
	"--json, --format, --processes or -o"

/* In the order of --help. */
static const struct option_row rows[] = {
	{ .name = "flat", .id = OPT_FLAT, .take = take_report,
	  .report = REPORT_FLAT,
	  .section = "Reports (the last one given wins):",
	  .help = "flat profile: functions by self time (default)" },
	{ .name = "graph", .id = OPT_GRAPH, .take = take_report,
	  .report = REPORT_GRAPH,
	  .help = "call graph: each function with its parents and children" },
	{ .name = "outline", .id = OPT_OUTLINE, .take = take_report,
	  .report = REPORT_OUTLINE,
	  .help = "outline: the calling-context tree" },
	{ .name = "json", .id = OPT_JSON, .take = take_report,
	  .report = REPORT_JSON,
	  .help = "the profile as JSON, every function" },
	{ .name = "call-counts", .id = OPT_CALL_COUNTS, .take = take_report,
	  .report = REPORT_CALL_COUNTS,
	  .help = "exact counts of the calls to the malloc family" },
	{ .name = "threads", .id = OPT_THREADS, .take = take_report,
	  .report = REPORT_THREADS,
	  .help = "each thread: id, name, samples, seconds or bytes" },
	{ .name = "format", .arg = "=FORMAT", .id = OPT_FORMAT,
	  .take = take_report, .report = REPORT_EXPORT,
	  .help = "export in another tool's format:\n(see profanalyze(1))",
	  .help_list = export_names },
	{ .name = "addresses", .id = OPT_ADDRESSES, .take = take_flag,
	  .field = FIELD(addresses), .applies = FOR_CALLGRIND,
	  .refusal = "--addresses applies to --format=callgrind only",
	  .help = "--format=callgrind: each cost at its instruction too" },
	{ .name = "disassemble", .arg = "=FUNCTION", .id = OPT_DISASSEMBLE,
	  .take = take_annotate, .applies = FOR_ANNOTATE,
	  .refusal = OWN_REPORT,
	  .help = "the annotated disassembly of FUNCTION (a name,\n"
		  "MODULE:NAME or an outline line number; repeatable):\n"
		  "each instruction with its hits, grouped by source line" },
	{ .name = "intel", .id = OPT_INTEL, .take = take_flag,
	  .field = FIELD(intel), .applies = FOR_DISASSEMBLE,
	  .refusal = "--intel applies to --disassemble only",
	  .help = "--disassemble in Intel syntax (default: AT&T)" },
	{ .name = "list", .arg = "=FUNCTION", .id = OPT_LIST,
	  .take = take_annotate, .applies = FOR_ANNOTATE,
	  .refusal = OWN_REPORT,
	  .help = "FUNCTION's source lines with self and total hits\n"
		  "(repeatable; needs debug information)" },
	{ .name = "processes", .id = OPT_PROCESSES, .take = take_report,
	  .report = REPORT_PROCESSES,
	  .help = "the process tree under each SPOOL: pid, parent,\n"
		  "samples, CPU seconds, ending, spool, command line" },
	{ .name = "children", .id = OPT_CHILDREN, .take = take_flag,
	  .field = FIELD(children),
	  .help = "merge the spools of the whole process tree under\n"
		  "SPOOL (its forked and exec'd descendants' SPOOL.PID)" },
	{ .name = "thread", .arg = "=ID|NAME", .id = OPT_THREAD,
	  .take = take_thread,
	  .help = "only the samples of this thread (a name may be a\n"
		  "glob; repeatable) in every report" },
	{ .name = "from", .arg = "=SECS", .id = OPT_FROM, .take = take_window,
	  .applies = FOR_ALL & ~(FOR_CALLS | FOR_MLMON_COUNT),
	  .refusal = NO_TIMES, .usage = "    --from=SECS, --to=SECS",
	  .help = "only the samples taken in this window of the run\n"
		  "(seconds after the program's start) in every report\n"
		  "and export" },
	{ .name = "to", .arg = "=SECS", .id = OPT_TO, .take = take_window,
	  .applies = FOR_ALL & ~(FOR_CALLS | FOR_MLMON_COUNT),
	  .refusal = NO_TIMES },
	{ .name = "follow", .id = OPT_FOLLOW, .take = take_flag,
	  .field = FIELD(follow), .applies = FOR_TEXT,
	  .refusal = FOLLOW_TEXT,
	  .help = "while profrun is still writing SPOOL, print the\n"
		  "report again every --interval seconds (default 2),\n"
		  "until the program ends (text reports only)" },
	{ .name = "interval", .arg = "=SECS", .id = OPT_INTERVAL,
	  .take = take_interval, .needs = BIT(OPT_FOLLOW),
	  .refusal = "--interval applies to --follow only" },

	{ .name = "diff", .id = OPT_DIFF, .take = take_flag,
	  .field = FIELD(diff),
	  .section = "Comparing two versions (see DIFF in profanalyze(1)):",
	  .usage = "    --diff BASE NEW",
	  .help = "compare NEW with BASE, function by function: base\n"
		  "and new self and total, the change and whether it is\n"
		  "significant (Welch t, 5% family-wise)" },
	{ .name = "base", .arg = "=SPOOL", .id = OPT_BASE, .take = take_base,
	  .applies = FOR_DIFF, .refusal = DIFF_ONLY,
	  .help = "a run of the base side (repeatable); the operands\n"
		  "are then the new side's runs" },
	{ .name = "normalize", .arg = "=none|total|FUNCTION",
	  .id = OPT_NORMALIZE, .take = take_normalize, .applies = FOR_DIFF,
	  .refusal = DIFF_ONLY,
	  .help = "compare seconds (bytes), shares of the run, or\n"
		  "shares of FUNCTION's total (default none)" },
	{ .name = "metric", .arg = "=total|self", .id = OPT_METRIC,
	  .take = take_metric, .applies = FOR_DIFF, .refusal = DIFF_ONLY,
	  .help = "what is gated and sorted (default total)" },
	{ .name = "fail-above", .arg = "=PCT", .id = OPT_FAIL_ABOVE,
	  .take = take_amount, .field = FIELD(dopts.fail_pct),
	  .applies = FOR_DIFF, .refusal = DIFF_ONLY,
	  .help = "exit 3 when a function's metric grew significantly\n"
		  "by more than PCT percent" },
	{ .name = "fail-above-abs", .arg = "=N", .id = OPT_FAIL_ABOVE_ABS,
	  .take = take_amount, .field = FIELD(dopts.fail_abs),
	  .applies = FOR_DIFF, .refusal = DIFF_ONLY,
	  .help = "... by more than N seconds (bytes); with both, by more\n"
		  "than both" },
	{ .name = "fail-rules", .arg = "=FILE", .id = OPT_FAIL_RULES,
	  .take = take_string, .field = FIELD(rules), .applies = FOR_DIFF,
	  .refusal = DIFF_ONLY,
	  .help = "per-function limits: lines of PATTERN PCT [ABS]" },
	{ .usage = "    --format=FORMAT",
	  .help = "with --diff: text (default), json, markdown, junit,\n"
		  "bmf (Bencher), gab (github-action-benchmark),\n"
		  "folded (differential flame graph), dot,\n"
		  "html (a page with the differential flame graph)" },

	{ .name = "time", .id = OPT_TIME, .take = take_kind,
	  .section = "Profiles (time, unless the spool has allocation "
		     "samples only):",
	  .help = "CPU time (Allegro's time profiler)" },
	{ .name = "space", .id = OPT_SPACE, .take = take_kind,
	  .help = "space allocated, in bytes, in one of three views:" },
	{ .name = "alloc", .id = OPT_ALLOC, .take = take_view,
	  .help = "all bytes allocated (the default view)" },
	{ .name = "inuse", .id = OPT_INUSE, .take = take_view,
	  .help = "bytes never freed: the leaks at exit" },
	{ .name = "peak", .id = OPT_PEAK, .take = take_view,
	  .help = "bytes live when the heap was largest" },

	{ .name = "threshold", .arg = " PCT", .id = OPT_THRESHOLD,
	  .take = take_pct, .field = FIELD(threshold_pct),
	  .applies = FOR_FLAT | FOR_GRAPH | FOR_OUTLINE | FOR_HTML,
	  .refusal = "--threshold applies to --flat, --graph, --outline and "
		     "--format=html only (the other outputs list every "
		     "function)",
	  /* (--show-all, which sets every threshold, is not this mistake:
	   * it is no --threshold.) */
	  .refused_in = FOR_RACKET,
	  .refused_why = "--threshold does not apply to --graph "
			 "--style=racket, whose thresholds are --hide-self "
			 "and --hide-subs",
	  .section = "Options:",
	  .help = "leave out functions (flat: by self time, graph: by\n"
		  "total time) and outline paths below PCT percent\n"
		  "of the samples (default 1.0; --flat, --graph and\n"
		  "--outline only, not --style=racket)" },
	{ .name = "fractional-threshold", .arg = " PCT", .id = OPT_FRACTIONAL,
	  .take = take_pct, .field = FIELD(fractional_pct),
	  .applies = FOR_GRAPH, .not_diff = true,
	  .refusal = "--fractional-threshold applies to --graph (allegro "
		     "style) only",
	  .help = "graph: leave out parents and children below PCT\n"
		  "percent of the function's time (default 2.0)" },
	{ .name = "order", .arg = "=ORDER", .id = OPT_ORDER,
	  .take = take_order, .applies = FOR_GRAPH | FOR_RACKET,
	  .not_diff = true, .refusal = GRAPH_ONLY,
	  .help = "graph entries: topological (default), self, total" },
	{ .name = "style", .arg = "=STYLE", .id = OPT_STYLE,
	  .take = take_style, .applies = FOR_GRAPH | FOR_RACKET,
	  .not_diff = true, .refusal = GRAPH_ONLY,
	  .help = "graph layout: allegro (default) or racket" },
	{ .name = "hide-self", .arg = " PCT", .id = OPT_HIDE_SELF,
	  .take = take_pct, .field = FIELD(hide_self_pct),
	  .applies = FOR_RACKET | FOR_DOT, .not_diff = true,
	  .refusal = RACKET_ONLY,
	  .help = "racket style: leave out functions below PCT percent\n"
		  "self time (default 1.0) ... (also --format=dot)" },
	{ .name = "hide-subs", .arg = " PCT", .id = OPT_HIDE_SUBS,
	  .take = take_pct, .field = FIELD(hide_subs_pct),
	  .applies = FOR_RACKET | FOR_DOT, .not_diff = true,
	  .refusal = RACKET_ONLY,
	  .help = "... whose caller and callee lines are all below PCT\n"
		  "percent (default 2.0)" },
	{ .name = "node-count", .arg = "=N", .id = OPT_NODE_COUNT,
	  .take = take_count, .field = FIELD(node_count),
	  .applies = FOR_DOT,
	  .refusal = "--node-count applies to --format=dot only",
	  .help = "--format=dot: at most N functions, the heaviest\n"
		  "(default 80; 0: all)" },
	{ .name = "root", .arg = "=N", .id = OPT_ROOT, .take = take_count,
	  .field = FIELD(root), .applies = FOR_OUTLINE, .not_diff = true,
	  .refusal = OUTLINE_ONLY,
	  .help = "outline: only the subtree of line N" },
	{ .name = "max-indent", .arg = "=N", .id = OPT_MAX_INDENT,
	  .take = take_count, .field = FIELD(max_indent),
	  .applies = FOR_OUTLINE, .not_diff = true, .refusal = OUTLINE_ONLY,
	  .help = "outline: indent by at most N columns" },
	{ .name = "max-depth", .arg = "=N", .id = OPT_MAX_DEPTH,
	  .take = take_max_depth, .applies = FOR_OUTLINE, .not_diff = true,
	  .refusal = OUTLINE_ONLY,
	  .help = "outline: at most N levels, the deeper ones cut\n"
		  "(default 256; 0: no limit)" },
	{ .name = "hide", .arg = "=PATTERN", .id = OPT_HIDE,
	  .take = take_hide,
	  .help = "hide functions whose name matches the glob PATTERN;\n"
		  "their time goes to their caller, shown as '... name'" },
	{ .name = "hide-module", .arg = "=PATTERN", .id = OPT_HIDE_MODULE,
	  .take = take_hide,
	  .help = "hide the functions of modules whose file name\n"
		  "(or path, when PATTERN has a '/') matches PATTERN\n"
		  "(libprofrun.so* and __restore_rt are hidden unless\n"
		  "--show-all is given, and in space profiles C++'s\n"
		  "operator new and delete too)" },
	{ .name = "show-all", .id = OPT_SHOW_ALL, .take = take_show_all,
	  .help = "no hiding and no thresholds (options after it can\n"
		  "set them again)" },
	{ .name = "no-demangle", .id = OPT_NO_DEMANGLE, .take = take_flag,
	  .field = FIELD(load.resolve.no_demangle),
	  .help = "show C++ names as the symbol table has them" },
	{ .name = "lines", .id = OPT_LINES, .take = take_lines,
	  .applies = FOR_ALL & ~FOR_ANNOTATE,
	  .refusal = "--lines does not apply to --disassemble and --list, "
		     "which show source lines of their own",
	  .help = "split functions by source line (file.c:LINE)" },
	{ .name = "inline", .id = OPT_INLINE, .take = take_inline,
	  .applies = FOR_ALL & ~FOR_ANNOTATE,
	  .refusal = "--inline does not apply to --disassemble and --list, "
		     "which show inlined calls of their own",
	  .help = "show code the compiler inlined as frames of its own,\n"
		  "marked [inlined] (default, in modules with DWARF)" },
	{ .name = "no-inline", .id = OPT_NO_INLINE, .take = take_inline,
	  .help = "charge inlined code to the function that holds it" },
	{ .name = "error-bars", .id = OPT_ERROR_BARS,
	  .take = take_error_bars,
	  .help = "add each share's 95% interval: a column after the\n"
		  "flat report's % Time and the graph's % self and\n"
		  "% total, \u00b1POINTS after each outline share" },
	{ .name = "debug-dir", .arg = " DIR", .id = OPT_DEBUG_DIR,
	  .take = take_string, .field = FIELD(load.resolve.debug_root),
	  .help = "look for separate debug files under DIR\n"
		  "(default " DEBUG_ROOT ")" },
	{ .name = "debuginfod", .id = OPT_DEBUGINFOD, .take = take_debuginfod,
	  .help = "ask the debuginfod servers of DEBUGINFOD_URLS for\n"
		  "debug files not found locally (off: no network)" },
	{ .name = "output", .short_name = 'o', .arg = " FILE",
	  .id = OPT_OUTPUT, .take = take_string, .field = FIELD(output),
	  .usage = "-o, -O, --output FILE",
	  .help = "write the report to FILE instead of standard output\n"
		  "(FILE is replaced only once it is complete)" },
	{ .short_name = 'O', .arg = " FILE", .id = OPT_OUTPUT,
	  .take = take_string, .field = FIELD(output) },
	{ .name = "help", .short_name = 'h', .id = OPT_HELP,
	  .take = take_help, .usage = "-h, --help",
	  .help = "show this help and exit" },
	{ .name = "version", .id = OPT_VERSION, .take = take_version,
	  .help = "show the version and exit" },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* getopt_long's val of a long option: its row's index past the chars
 * of the short ones. */
#define LONG_VAL 0x100

static const char usage_head[] =
	"Usage: profanalyze [OPTION]... SPOOL...\n"
	"  or:  profanalyze --diff [OPTION]... BASE NEW\n"
	"  or:  profanalyze --diff [OPTION]... --base=SPOOL... NEW...\n"
	"Print a report of the profile that profrun wrote to SPOOL (several "
	"SPOOLs:\n"
	"of all of them, merged). A SPOOL that is not there is read from "
	"SPOOL.PID.N.tmp,\n"
	"the name it had while profrun ran, when profrun was killed before "
	"renaming it.\n";

static const char usage_tail[] =
	"\n"
	"Exit status: 0 on success (also with warnings), 1 when SPOOL cannot "
	"be read\n"
	"or the report cannot be written, 2 for a usage error, 3 when --diff's "
	"gate\n"
	"failed.\n";

/* Where the text of an option's entry starts, and the widest line the
 * list of formats may make (80 columns, less the last one, which some
 * terminals wrap on). */
#define HELP_INDENT "                         "
#define HELP_WIDTH 79

/* Writes the comma-separated list after the col columns of a line of
 * --help already written, breaking after a comma onto lines indented as
 * the option texts are so that none passes HELP_WIDTH. */
static void
put_help_list(FILE *out, size_t col, const char *list)
{
	while (*list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) + 1 : strlen(list);
		if (col + 1 + len > HELP_WIDTH) {
			fputs("\n" HELP_INDENT, out);
			col = strlen(HELP_INDENT);
		} else {
			putc(' ', out);
			col++;
		}
		fwrite(list, 1, len, out);
		col += len;
		list += len;
		list += strspn(list, " ");
	}
	putc('\n', out);
}

/* One entry of --help: the option in the left column, its text from
 * HELP_INDENT on (on the next line when the option reaches it). */
static void
put_help_entry(FILE *out, const struct option_row *r)
{
	int col = r->usage ? fprintf(out, "  %s", r->usage) :
			     fprintf(out, "      --%s%s", r->name,
				     r->arg ? r->arg : "");
	if (col < (int)strlen(HELP_INDENT))
		fprintf(out, "%*s", (int)strlen(HELP_INDENT) - col, "");
	else
		fputs("\n" HELP_INDENT, out);
	const char *line = r->help;
	size_t len = strcspn(line, "\n");
	fwrite(line, 1, len, out);
	if (r->help_list)
		put_help_list(out, strlen(HELP_INDENT) + len, r->help_list());
	else
		putc('\n', out);
	for (line += len; *line; line += len) {
		line++;
		len = strcspn(line, "\n");
		fprintf(out, HELP_INDENT "%.*s\n", (int)len, line);
	}
}

static void
print_usage(FILE *out)
{
	fputs(usage_head, out);
	for (size_t i = 0; i < NROWS; i++) {
		if (rows[i].section)
			fprintf(out, "\n%s\n", rows[i].section);
		if (rows[i].help)
			put_help_entry(out, &rows[i]);
	}
	fputs(usage_tail, out);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	diag_error("%s (see %s --help)", msg, DIAG_PROGRAM);
	free(msg);
	exit(EXIT_USAGE);
}

/* The field of o that row r sets. */
static void *
field_of(struct options *o, const struct option_row *r)
{
	return (char *)o + r->field;
}

static void
take_report(struct options *o, const struct option_row *r, const char *arg)
{
	o->report = r->report;
	if (r->id == OPT_FORMAT)
		o->format_arg = arg; /* (parsed once --diff is known) */
}

static void
take_flag(struct options *o, const struct option_row *r, const char *arg)
{
	*(bool *)field_of(o, r) = true;
}

static void
take_string(struct options *o, const struct option_row *r, const char *arg)
{
	*(const char **)field_of(o, r) = arg;
}

static void
take_pct(struct options *o, const struct option_row *r, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > 100)
		usage_error("--%s: '%s' is not a percentage from 0 to 100",
			    r->name, arg);
	*(double *)field_of(o, r) = v;
}

static size_t
parse_count(const struct option_row *r, const char *arg)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v >= SIZE_MAX)
		usage_error("--%s: '%s' is not a whole number", r->name, arg);
	return (size_t)v;
}

static void
take_count(struct options *o, const struct option_row *r, const char *arg)
{
	*(size_t *)field_of(o, r) = parse_count(r, arg);
}

static void
take_max_depth(struct options *o, const struct option_row *r,
	       const char *arg)
{
	o->max_depth = parse_count(r, arg);
	if (o->max_depth == 0)
		o->max_depth = REPORT_OUTLINE_ALL;
}

static void
take_style(struct options *o, const struct option_row *r, const char *arg)
{
	if (strcmp(arg, "racket") != 0 && strcmp(arg, "allegro") != 0)
		usage_error("--style: '%s' is not allegro or racket", arg);
	o->racket = arg[0] == 'r';
}

static void
take_order(struct options *o, const struct option_row *r, const char *arg)
{
	if (funcorder_parse(arg, &o->order) < 0)
		usage_error("--order: '%s' is not topological, self or total",
			    arg);
}

static void
take_hide(struct options *o, const struct option_row *r, const char *arg)
{
	if (r->id == OPT_HIDE)
		hide_rules_add_func(&o->hide, arg);
	else
		hide_rules_add_module(&o->hide, arg);
}

/* --show-all: Allegro's show-all, every display control off. */
static void
take_show_all(struct options *o, const struct option_row *r,
	      const char *arg)
{
	o->threshold_pct = 0;
	o->fractional_pct = 0;
	o->hide_self_pct = 0;
	o->hide_subs_pct = 0;
	hide_rules_clear(&o->hide);
}

static void
take_thread(struct options *o, const struct option_row *r, const char *arg)
{
	size_t max = sizeof(o->threads) / sizeof(o->threads[0]);
	if (o->load.nthreads == max)
		usage_error("--thread: at most %zu of them", max);
	o->threads[o->load.nthreads++] = arg;
	o->load.threads = o->threads;
}

/* --from, --to: seconds, as nanoseconds. */
static void
take_window(struct options *o, const struct option_row *r, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > 1e9)
		usage_error("--%s: '%s' is not a number of seconds", r->name,
			    arg);
	uint64_t ns = (uint64_t)(v * 1e9 + 0.5);
	o->load.window = true;
	if (r->id == OPT_FROM) {
		o->load.from_ns = ns;
	} else {
		o->load.to_ns = ns;
		o->has_to = true;
	}
}

static void
take_kind(struct options *o, const struct option_row *r, const char *arg)
{
	o->load.kind = r->id == OPT_TIME ? LOADER_KIND_TIME :
					   LOADER_KIND_SPACE;
}

static void
take_view(struct options *o, const struct option_row *r, const char *arg)
{
	o->load.space_view = r->id == OPT_ALLOC ? PROFILE_SPACE_ALLOC :
			     r->id == OPT_INUSE ? PROFILE_SPACE_INUSE :
						  PROFILE_SPACE_PEAK;
}

/* --disassemble=F, --list=F: a report of their own, of one or more
 * functions. */
static void
take_annotate(struct options *o, const struct option_row *r,
	      const char *arg)
{
	bool disasm = r->id == OPT_DISASSEMBLE;
	const char **list = disasm ? o->disassemble : o->list;
	size_t *n = disasm ? &o->ndisassemble : &o->nlist;
	/* An empty name (--list= with the name forgotten, or a shell
	 * variable that was not set) would be looked for in the profile and
	 * reported as matching no function, after reading the spools. */
	if (!*arg)
		usage_error("--%s needs a FUNCTION: a name, MODULE:NAME or an "
			    "outline line number", r->name);
	if (*n == sizeof(o->list) / sizeof(o->list[0]))
		usage_error("--%s: at most %zu of them", r->name,
			    sizeof(o->list) / sizeof(o->list[0]));
	if (!annotate_available())
		usage_error("--disassemble and --list need Capstone, which "
			    "this build of profanalyze lacks");
	list[(*n)++] = arg;
	o->report = REPORT_ANNOTATE;
}

static void
take_interval(struct options *o, const struct option_row *r,
	      const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0.1 ||
	    v > 3600)
		usage_error("--interval=%s: expected seconds from 0.1 to 3600",
			    arg);
	o->interval = v;
}

static void
take_lines(struct options *o, const struct option_row *r, const char *arg)
{
	if (!srcline_available())
		usage_error("--lines needs libdw, which this build of "
			    "profanalyze lacks");
	o->load.resolve.lines = true;
}

/* --inline, --no-inline: the last one wins, and only a last --inline is
 * one that --disassemble and --list refuse. */
static void
take_inline(struct options *o, const struct option_row *r, const char *arg)
{
	if (r->id == OPT_NO_INLINE) {
		o->load.resolve.no_inline = true;
		o->given &= ~BIT(OPT_INLINE);
		return;
	}
	if (!srcline_available())
		usage_error("--inline needs libdw, which this build of "
			    "profanalyze lacks");
	o->load.resolve.no_inline = false;
}

static void
take_debuginfod(struct options *o, const struct option_row *r,
		const char *arg)
{
	if (!debuginfo_uses_libdw())
		usage_error("--debuginfod needs libdw, which this build of "
			    "profanalyze lacks");
	o->debuginfod = true;
}

static void
take_error_bars(struct options *o, const struct option_row *r,
		const char *arg)
{
	report_error_bars = true;
}

static void
take_base(struct options *o, const struct option_row *r, const char *arg)
{
	xgrow(&o->bases, &o->bases_cap, o->nbases + 1, sizeof(*o->bases));
	o->bases[o->nbases++] = arg;
}

static void
take_normalize(struct options *o, const struct option_row *r,
	       const char *arg)
{
	diff_parse_normalize(&o->dopts, arg);
}

static void
take_metric(struct options *o, const struct option_row *r, const char *arg)
{
	if (strcmp(arg, "self") && strcmp(arg, "total"))
		usage_error("--metric: '%s' is not self or total", arg);
	o->dopts.metric = arg[0] == 's' ? DIFF_METRIC_SELF : DIFF_METRIC_TOTAL;
}

/* A limit of --fail-above(-abs): a percentage, seconds or bytes, not
 * negative. */
static void
take_amount(struct options *o, const struct option_row *r, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0)
		usage_error("--%s: '%s' is not a non-negative number", r->name,
			    arg);
	*(double *)field_of(o, r) = v;
}

static void
take_help(struct options *o, const struct option_row *r, const char *arg)
{
	print_usage(stdout);
	exit(EXIT_SUCCESS);
}

static void
take_version(struct options *o, const struct option_row *r,
	     const char *arg)
{
	printf("profanalyze (profrun) %s\n", PROFRUN_VERSION);
	exit(EXIT_SUCCESS);
}

/* The form of output o asks for, without --diff: one FOR_* bit. */
static unsigned
form_of(const struct options *o)
{
	switch (o->report) {
	case REPORT_FLAT:
		return FOR_FLAT;
	case REPORT_JSON:
		return FOR_JSON;
	case REPORT_GRAPH:
		return o->racket ? FOR_RACKET : FOR_GRAPH;
	case REPORT_OUTLINE:
		return FOR_OUTLINE;
	case REPORT_CALL_COUNTS:
		return FOR_CALLS;
	case REPORT_THREADS:
		return FOR_THREADS;
	case REPORT_PROCESSES:
		return FOR_PROCESSES;
	case REPORT_ANNOTATE:
		return o->ndisassemble ? FOR_DISASSEMBLE : FOR_LIST;
	case REPORT_EXPORT:
		break;
	}
	return o->format == EXPORT_DOT ? FOR_DOT :
	       o->format == EXPORT_HTML ? FOR_HTML :
	       o->format == EXPORT_CALLGRIND ? FOR_CALLGRIND :
	       o->format == EXPORT_MLMON_COUNT ? FOR_MLMON_COUNT :
						 FOR_EXPORT;
}

/* An option that the chosen report would silently ignore is an error:
 * the user expects it to change something. Each given option is checked
 * against its row, in the table's order. */
static void
check_forms(const struct options *o)
{
	unsigned form = form_of(o);

	for (size_t i = 0; i < NROWS; i++) {
		const struct option_row *r = &rows[i];
		if (!r->take || !(o->given & BIT(r->id)))
			continue;
		if (r->refused_in & form)
			usage_error("%s", r->refused_why);
		if ((r->applies && !(r->applies & form)) ||
		    (r->needs && !(o->given & r->needs)))
			usage_error("%s", r->refusal);
	}
}

/* "--a, --b and --c": the rows that --diff refuses. Returns a new
 * string. */
static char *
not_diff_names(void)
{
	size_t total = 0, n = 0;
	char *s = xstrdup(""), *next;

	for (size_t i = 0; i < NROWS; i++)
		total += rows[i].not_diff;
	for (size_t i = 0; i < NROWS; i++) {
		if (!rows[i].not_diff)
			continue;
		n++;
		next = xasprintf("%s%s--%s", s,
				 n == 1 ? "" : n == total ? " and " : ", ",
				 rows[i].name);
		free(s);
		s = next;
	}
	return s;
}

/* --diff: its own report, which the report and layout options (the rows
 * not_diff) do not shape. */
static void
check_diff(const struct options *o)
{
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].not_diff && (o->given & BIT(rows[i].id)))
			usage_error("--diff writes its own report: %s do not "
				    "apply", not_diff_names());
	if (o->report != REPORT_FLAT && o->report != REPORT_EXPORT &&
	    o->report != REPORT_JSON)
		usage_error("--diff writes its own report (choose its form "
			    "with --format)");
}

static void
check_applies(const struct options *o)
{
	if (o->load.window && o->has_to && o->load.to_ns <= o->load.from_ns)
		usage_error("--to must be after --from");
	if (o->diff) {
		check_diff(o);
	} else {
		check_forms(o);
		if (o->follow && o->output)
			usage_error("%s", FOLLOW_TEXT);
	}
	if ((o->given & VIEWS) && o->load.kind == LOADER_KIND_TIME)
		usage_error("--alloc, --inuse and --peak are views of the space "
			    "profile, not of --time");
}

/* The spools --diff compares: BASE NEW, or --base=SPOOL... and NEW...
 * as operands. */
static void
diff_operands(struct options *o, int argc, char **argv)
{
	if (o->format_arg &&
	    diff_parse_format(o->format_arg, &o->dopts.format) < 0)
		usage_error("--format: '%s' is none of text, json, markdown, "
			    "junit, bmf, gab, folded, dot, html (with --diff)",
			    o->format_arg);
	if (o->report == REPORT_JSON)
		o->dopts.format = DIFF_FORMAT_JSON;
	if (o->nbases == 0) {
		if (argc - optind != 2)
			usage_error("--diff: give BASE NEW (two spools), or "
				    "--base=SPOOL for each base run and the "
				    "new runs as operands");
		xgrow(&o->bases, &o->bases_cap, 1, sizeof(*o->bases));
		o->bases[o->nbases++] = argv[optind++];
	}
	if (optind == argc)
		usage_error("--diff: missing NEW spool operand");
}

static void
set_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->report = REPORT_FLAT;
	o->threshold_pct = 1.0;
	o->fractional_pct = 2.0;
	o->hide_self_pct = 1.0;
	o->hide_subs_pct = 2.0;
	o->order = FUNCORDER_TOPOLOGICAL;
	o->root = REPORT_OUTLINE_ALL;
	o->max_indent = REPORT_OUTLINE_ALL;
	o->max_depth = REPORT_OUTLINE_MAX_DEPTH;
	o->node_count = 80;
	o->load.resolve.debug_root = DEBUG_ROOT;
	o->load.to_ns = UINT64_MAX; /* --from alone: to the end */
	o->load.progress = isatty(STDERR_FILENO);
	hide_rules_defaults(&o->hide);
	o->dopts.fail_pct = NAN;
	o->dopts.fail_abs = NAN;
}

/* getopt_long's view of the table: the long options, each with its
 * row's index (+ LONG_VAL) as val, and the short ones. */
static void
getopt_tables(struct option *longs, char *shorts)
{
	size_t n = 0;

	*shorts++ = ':'; /* (a missing argument is ':', not '?') */
	for (size_t i = 0; i < NROWS; i++) {
		const struct option_row *r = &rows[i];
		if (r->take && r->name)
			longs[n++] = (struct option){
				r->name, r->arg ? required_argument : no_argument,
				NULL, (int)(LONG_VAL + i) };
		if (r->take && r->short_name) {
			*shorts++ = r->short_name;
			if (r->arg)
				*shorts++ = ':';
		}
	}
	longs[n] = (struct option){ NULL, 0, NULL, 0 };
	*shorts = '\0';
}

/* The row of what getopt_long returned; a usage error for an option it
 * does not know or whose argument is missing. */
static const struct option_row *
row_of(int c, char **argv)
{
	if (c >= LONG_VAL && c < LONG_VAL + (int)NROWS)
		return &rows[c - LONG_VAL];
	for (size_t i = 0; c != '?' && c != ':' && i < NROWS; i++)
		if (rows[i].take && rows[i].short_name == c)
			return &rows[i];
	if (c == ':')
		usage_error("option '%s' needs an argument", argv[optind - 1]);
	/* (getopt_long's optopt is the val of a long option given an
	 * argument it does not take.) */
	if (optopt >= LONG_VAL && optopt < LONG_VAL + (int)NROWS)
		usage_error("option '--%s' takes no argument",
			    rows[optopt - LONG_VAL].name);
	if (optopt)
		usage_error("unknown option '-%c'", optopt);
	usage_error("unknown option '%s'", argv[optind - 1]);
}

/* What the options given settle once all are read, and the operands. */
static void
finish(struct options *o, int argc, char **argv)
{
	if (!o->diff && o->format_arg &&
	    export_parse(o->format_arg, &o->format) < 0)
		usage_error("--format: '%s' is none of %s", o->format_arg,
			    export_names());
	check_applies(o);
	/* libdw asks the servers in DEBUGINFOD_URLS for every debug file it
	 * does not find, which Debian sets for login shells: a report (or
	 * a CI job) would wait on the network without having asked. */
	if (!o->debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	/* Their functions are the symbols' (annotate.c reads the spools
	 * again, one frame per PC). */
	if (o->report == REPORT_ANNOTATE) {
		o->shown_inline = !o->load.resolve.no_inline;
		o->load.resolve.no_inline = true;
	}
	if (o->diff)
		diff_operands(o, argc, argv);
	/* A view asks for the space profile. */
	if (o->given & VIEWS)
		o->load.kind = LOADER_KIND_SPACE;
	if (optind == argc)
		usage_error("missing SPOOL operand");
	o->spool = argv[optind];
	o->spools = argv + optind;
	o->nspools = (size_t)(argc - optind);
	if (o->diff && (o->follow || o->report == REPORT_ANNOTATE))
		usage_error("--diff does not go with --follow, --disassemble "
			    "or --list");
	if (o->follow && (o->nspools != 1 || o->children))
		usage_error("--follow follows one SPOOL, without --children");
}

void
options_parse(struct options *o, int argc, char **argv)
{
	struct option longs[NROWS + 1];
	char shorts[2 * NROWS + 2];
	int c;

	set_defaults(o);
	getopt_tables(longs, shorts);
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct option_row *r = row_of(c, argv);
		o->given |= BIT(r->id);
		r->take(o, r, optarg);
	}
	finish(o, argc, argv);
}

void
options_free(struct options *o)
{
	hide_rules_free(&o->hide);
	free(o->bases);
	o->bases = NULL;
}
