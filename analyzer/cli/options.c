/*
 * options: the command line of profanalyze, into struct options: the
 * options getopt_long knows, --help, the parsing of each option's
 * argument, and the checks that refuse an option the chosen report would
 * silently ignore.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
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

enum {
	OPT_FLAT = 0x100,
	OPT_JSON,
	OPT_GRAPH,
	OPT_OUTLINE,
	OPT_THRESHOLD,
	OPT_FRACTIONAL,
	OPT_ORDER,
	OPT_STYLE,
	OPT_HIDE_SELF,
	OPT_HIDE_SUBS,
	OPT_ROOT,
	OPT_MAX_INDENT,
	OPT_MAX_DEPTH,
	OPT_NODE_COUNT,
	OPT_HIDE,
	OPT_HIDE_MODULE,
	OPT_SHOW_ALL,
	OPT_NO_DEMANGLE,
	OPT_LINES,
	OPT_INLINE,
	OPT_NO_INLINE,
	OPT_ERROR_BARS,
	OPT_DEBUG_DIR,
	OPT_DEBUGINFOD,
	OPT_VERSION,
	OPT_TIME,
	OPT_SPACE,
	OPT_ALLOC,
	OPT_INUSE,
	OPT_PEAK,
	OPT_CALL_COUNTS,
	OPT_THREADS,
	OPT_THREAD,
	OPT_FROM,
	OPT_TO,
	OPT_FORMAT,
	OPT_CHILDREN,
	OPT_PROCESSES,
	OPT_DISASSEMBLE,
	OPT_LIST,
	OPT_INTEL,
	OPT_ADDRESSES,
	OPT_FOLLOW,
	OPT_INTERVAL,
	OPT_DIFF,
	OPT_BASE,
	OPT_NORMALIZE,
	OPT_METRIC,
	OPT_FAIL_ABOVE,
	OPT_FAIL_ABOVE_ABS,
	OPT_FAIL_RULES,
};

/* --help, in two parts around the list of export formats, which
 * print_usage() takes from export.c's table so that no format can be
 * missing from it. */
static const char usage_head[] =
	"Usage: profanalyze [OPTION]... SPOOL...\n"
	"  or:  profanalyze --diff [OPTION]... BASE NEW\n"
	"  or:  profanalyze --diff [OPTION]... --base=SPOOL... NEW...\n"
	"Print a report of the profile that profrun wrote to SPOOL (several "
	"SPOOLs:\n"
	"of all of them, merged). A SPOOL that is not there is read from "
	"SPOOL.PID.N.tmp,\n"
	"the name it had while profrun ran, when profrun was killed before "
	"renaming it.\n"
	"\n"
	"Reports (the last one given wins):\n"
	"      --flat             flat profile: functions by self time "
	"(default)\n"
	"      --graph            call graph: each function with its "
	"parents and children\n"
	"      --outline          outline: the calling-context tree\n"
	"      --json             the profile as JSON, every function\n"
	"      --call-counts      exact counts of the calls to the malloc "
	"family\n"
	"      --threads          each thread: id, name, samples, seconds or "
	"bytes\n"
	"      --format=FORMAT    export in another tool's format:";

static const char usage_tail[] =
	"                         (see profanalyze(1))\n"
	"      --addresses        --format=callgrind: each cost at its "
	"instruction too\n"
	"      --disassemble=FUNCTION\n"
	"                         the annotated disassembly of FUNCTION (a "
	"name,\n"
	"                         MODULE:NAME or an outline line number; "
	"repeatable):\n"
	"                         each instruction with its hits, grouped by "
	"source line\n"
	"      --intel            --disassemble in Intel syntax (default: "
	"AT&T)\n"
	"      --list=FUNCTION    FUNCTION's source lines with self and total "
	"hits\n"
	"                         (repeatable; needs debug information)\n"
	"      --processes        the process tree under each SPOOL: pid, "
	"parent,\n"
	"                         samples, CPU seconds, ending, spool, "
	"command line\n"
	"      --children         merge the spools of the whole process tree "
	"under\n"
	"                         SPOOL (its forked and exec'd descendants' "
	"SPOOL.PID)\n"
	"      --thread=ID|NAME   only the samples of this thread (a name may "
	"be a\n"
	"                         glob; repeatable) in every report\n"
	"      --from=SECS, --to=SECS\n"
	"                         only the samples taken in this window of "
	"the run\n"
	"                         (seconds after the program's start) in "
	"every report\n"
	"                         and export\n"
	"      --follow           while profrun is still writing SPOOL, "
	"print the\n"
	"                         report again every --interval seconds "
	"(default 2),\n"
	"                         until the program ends (text reports "
	"only)\n"
	"\n"
	"Comparing two versions (see DIFF in profanalyze(1)):\n"
	"      --diff BASE NEW    compare NEW with BASE, function by "
	"function: base\n"
	"                         and new self and total, the change and "
	"whether it is\n"
	"                         significant (Welch t, 5% family-wise)\n"
	"      --base=SPOOL       a run of the base side (repeatable); the "
	"operands\n"
	"                         are then the new side's runs\n"
	"      --normalize=none|total|FUNCTION\n"
	"                         compare seconds (bytes), shares of the "
	"run, or\n"
	"                         shares of FUNCTION's total (default none)\n"
	"      --metric=total|self  what is gated and sorted (default "
	"total)\n"
	"      --fail-above=PCT   exit 3 when a function's metric grew "
	"significantly\n"
	"                         by more than PCT percent\n"
	"      --fail-above-abs=N ... by more than N seconds (bytes); with "
	"both, by more\n"
	"                         than both\n"
	"      --fail-rules=FILE  per-function limits: lines of PATTERN PCT "
	"[ABS]\n"
	"      --format=FORMAT    with --diff: text (default), json, "
	"markdown, junit,\n"
	"                         bmf (Bencher), gab "
	"(github-action-benchmark),\n"
	"                         folded (differential flame graph), dot,\n"
	"                         html (a page with the differential flame "
	"graph)\n"
	"\n"
	"Profiles (time, unless the spool has allocation samples only):\n"
	"      --time             CPU time (Allegro's time profiler)\n"
	"      --space            space allocated, in bytes, in one of "
	"three views:\n"
	"      --alloc            all bytes allocated (the default view)\n"
	"      --inuse            bytes never freed: the leaks at exit\n"
	"      --peak             bytes live when the heap was largest\n"
	"\n"
	"Options:\n"
	"      --threshold PCT    leave out functions (flat: by self time, "
	"graph: by\n"
	"                         total time) and outline paths below PCT "
	"percent\n"
	"                         of the samples (default 1.0; --flat, "
	"--graph and\n"
	"                         --outline only, not --style=racket)\n"
	"      --fractional-threshold PCT\n"
	"                         graph: leave out parents and children "
	"below PCT\n"
	"                         percent of the function's time (default "
	"2.0)\n"
	"      --order=ORDER      graph entries: topological (default), "
	"self, total\n"
	"      --style=STYLE      graph layout: allegro (default) or racket\n"
	"      --hide-self PCT    racket style: leave out functions below "
	"PCT percent\n"
	"                         self time (default 1.0) ... (also "
	"--format=dot)\n"
	"      --hide-subs PCT    ... whose caller and callee lines are all "
	"below PCT\n"
	"                         percent (default 2.0)\n"
	"      --node-count=N     --format=dot: at most N functions, the "
	"heaviest\n"
	"                         (default 80; 0: all)\n"
	"      --root=N           outline: only the subtree of line N\n"
	"      --max-indent=N     outline: indent by at most N columns\n"
	"      --max-depth=N      outline: at most N levels, the deeper "
	"ones cut\n"
	"                         (default 256; 0: no limit)\n"
	"      --hide=PATTERN     hide functions whose name matches the "
	"glob PATTERN;\n"
	"                         their time goes to their caller, shown "
	"as '... name'\n"
	"      --hide-module=PATTERN\n"
	"                         hide the functions of modules whose file "
	"name\n"
	"                         (or path, when PATTERN has a '/') matches "
	"PATTERN\n"
	"                         (libprofrun.so* and __restore_rt are "
	"hidden unless\n"
	"                         --show-all is given, and in space "
	"profiles C++'s\n"
	"                         operator new and delete too)\n"
	"      --show-all         no hiding and no thresholds (options after "
	"it can\n"
	"                         set them again)\n"
	"      --no-demangle      show C++ names as the symbol table has them\n"
	"      --lines            split functions by source line "
	"(file.c:LINE)\n"
	"      --inline           show code the compiler inlined as frames "
	"of its own,\n"
	"                         marked [inlined] (default, in modules "
	"with DWARF)\n"
	"      --no-inline        charge inlined code to the function that "
	"holds it\n"
	"      --error-bars       add each share's 95% interval: a column "
	"after the\n"
	"                         flat report's % Time and the graph's "
	"% self and\n"
	"                         % total, \u00b1POINTS after each outline "
	"share\n"
	"      --debug-dir DIR    look for separate debug files under DIR\n"
	"                         (default " DEBUG_ROOT ")\n"
	"      --debuginfod       ask the debuginfod servers of "
	"DEBUGINFOD_URLS for\n"
	"                         debug files not found locally (off: no "
	"network)\n"
	"  -o, -O, --output FILE  write the report to FILE instead of "
	"standard output\n"
	"                         (FILE is replaced only once it is "
	"complete)\n"
	"  -h, --help             show this help and exit\n"
	"      --version          show the version and exit\n"
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

static void
print_usage(FILE *out)
{
	fputs(usage_head, out);
	put_help_list(out, strlen(strrchr(usage_head, '\n') + 1),
		      export_names());
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

static double
parse_pct(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > 100)
		usage_error("%s: '%s' is not a percentage from 0 to 100", opt,
			    arg);
	return v;
}

/* Seconds, as nanoseconds. */
static uint64_t
parse_secs(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > 1e9)
		usage_error("%s: '%s' is not a number of seconds", opt, arg);
	return (uint64_t)(v * 1e9 + 0.5);
}

static size_t
parse_count(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v >= SIZE_MAX)
		usage_error("%s: '%s' is not a whole number", opt, arg);
	return (size_t)v;
}

static const struct option long_opts[] = {
	{ "flat", no_argument, NULL, OPT_FLAT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "graph", no_argument, NULL, OPT_GRAPH },
	{ "outline", no_argument, NULL, OPT_OUTLINE },
	{ "call-counts", no_argument, NULL, OPT_CALL_COUNTS },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "thread", required_argument, NULL, OPT_THREAD },
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "follow", no_argument, NULL, OPT_FOLLOW },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "processes", no_argument, NULL, OPT_PROCESSES },
	{ "disassemble", required_argument, NULL, OPT_DISASSEMBLE },
	{ "list", required_argument, NULL, OPT_LIST },
	{ "intel", no_argument, NULL, OPT_INTEL },
	{ "diff", no_argument, NULL, OPT_DIFF },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "normalize", required_argument, NULL, OPT_NORMALIZE },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "fail-above", required_argument, NULL, OPT_FAIL_ABOVE },
	{ "fail-above-abs", required_argument, NULL, OPT_FAIL_ABOVE_ABS },
	{ "fail-rules", required_argument, NULL, OPT_FAIL_RULES },
	{ "addresses", no_argument, NULL, OPT_ADDRESSES },
	{ "time", no_argument, NULL, OPT_TIME },
	{ "space", no_argument, NULL, OPT_SPACE },
	{ "alloc", no_argument, NULL, OPT_ALLOC },
	{ "inuse", no_argument, NULL, OPT_INUSE },
	{ "peak", no_argument, NULL, OPT_PEAK },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "fractional-threshold", required_argument, NULL, OPT_FRACTIONAL },
	{ "order", required_argument, NULL, OPT_ORDER },
	{ "style", required_argument, NULL, OPT_STYLE },
	{ "hide-self", required_argument, NULL, OPT_HIDE_SELF },
	{ "hide-subs", required_argument, NULL, OPT_HIDE_SUBS },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "max-indent", required_argument, NULL, OPT_MAX_INDENT },
	{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
	{ "node-count", required_argument, NULL, OPT_NODE_COUNT },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "hide-module", required_argument, NULL, OPT_HIDE_MODULE },
	{ "show-all", no_argument, NULL, OPT_SHOW_ALL },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "error-bars", no_argument, NULL, OPT_ERROR_BARS },
	{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
	{ "debuginfod", no_argument, NULL, OPT_DEBUGINFOD },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* --show-all: Allegro's show-all, every display control off. */
static void
show_all(struct options *o)
{
	o->threshold_pct = 0;
	o->fractional_pct = 0;
	o->hide_self_pct = 0;
	o->hide_subs_pct = 0;
	hide_rules_clear(&o->hide);
}

/* A limit of --fail-above-abs: seconds or bytes, not negative. */
static double
parse_amount(const char *opt, const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0)
		usage_error("%s: '%s' is not a non-negative number", opt, arg);
	return v;
}

/* The options of --diff. Returns false for an option it does not know. */
static bool
take_diff(struct options *o, int c)
{
	switch (c) {
	case OPT_DIFF:
		o->diff = true;
		return true;
	case OPT_BASE:
		xgrow(&o->bases, &o->bases_cap, o->nbases + 1,
		      sizeof(*o->bases));
		o->bases[o->nbases++] = optarg;
		break;
	case OPT_NORMALIZE:
		diff_parse_normalize(&o->dopts, optarg);
		break;
	case OPT_METRIC:
		if (strcmp(optarg, "self") && strcmp(optarg, "total"))
			usage_error("--metric: '%s' is not self or total",
				    optarg);
		o->dopts.metric = optarg[0] == 's' ? DIFF_METRIC_SELF :
						     DIFF_METRIC_TOTAL;
		break;
	case OPT_FAIL_ABOVE:
		o->dopts.fail_pct = parse_amount("--fail-above", optarg);
		break;
	case OPT_FAIL_ABOVE_ABS:
		o->dopts.fail_abs = parse_amount("--fail-above-abs", optarg);
		break;
	case OPT_FAIL_RULES:
		o->rules = optarg;
		break;
	default:
		return false;
	}
	o->given |= GIVEN_DIFF;
	return true;
}

static void
take_style(struct options *o, const char *arg)
{
	if (strcmp(arg, "racket") != 0 && strcmp(arg, "allegro") != 0)
		usage_error("--style: '%s' is not allegro or racket", arg);
	o->racket = arg[0] == 'r';
	o->given |= GIVEN_STYLE;
}

/* Options that tune a report rather than pick one. Returns false for an
 * option it does not know. */
static bool
take_tuning(struct options *o, int c)
{
	switch (c) {
	case OPT_THRESHOLD:
		o->threshold_pct = parse_pct("--threshold", optarg);
		o->given |= GIVEN_THRESHOLD;
		break;
	case OPT_FRACTIONAL:
		o->fractional_pct = parse_pct("--fractional-threshold", optarg);
		o->given |= GIVEN_FRACTION;
		break;
	case OPT_ORDER:
		if (funcorder_parse(optarg, &o->order) < 0)
			usage_error("--order: '%s' is not topological, self or "
				    "total", optarg);
		o->given |= GIVEN_ORDER;
		break;
	case OPT_STYLE:
		take_style(o, optarg);
		break;
	case OPT_HIDE_SELF:
		o->hide_self_pct = parse_pct("--hide-self", optarg);
		o->given |= GIVEN_RACKET;
		break;
	case OPT_HIDE_SUBS:
		o->hide_subs_pct = parse_pct("--hide-subs", optarg);
		o->given |= GIVEN_RACKET;
		break;
	case OPT_ROOT:
		o->root = parse_count("--root", optarg);
		o->given |= GIVEN_OUTLINE;
		break;
	case OPT_MAX_INDENT:
		o->max_indent = parse_count("--max-indent", optarg);
		o->given |= GIVEN_OUTLINE;
		break;
	case OPT_NODE_COUNT:
		o->node_count = parse_count("--node-count", optarg);
		o->given |= GIVEN_NODE_COUNT;
		break;
	case OPT_MAX_DEPTH:
		o->max_depth = parse_count("--max-depth", optarg);
		if (o->max_depth == 0)
			o->max_depth = REPORT_OUTLINE_ALL;
		o->given |= GIVEN_OUTLINE;
		break;
	case OPT_HIDE:
		hide_rules_add_func(&o->hide, optarg);
		break;
	case OPT_HIDE_MODULE:
		hide_rules_add_module(&o->hide, optarg);
		break;
	case OPT_SHOW_ALL:
		show_all(o);
		break;
	default:
		return false;
	}
	return true;
}

/* --disassemble=F, --list=F: a report of their own, of one or more
 * functions. */
static void
take_annotate(struct options *o, bool disasm, const char *arg)
{
	const char **list = disasm ? o->disassemble : o->list;
	size_t *n = disasm ? &o->ndisassemble : &o->nlist;
	const char *opt = disasm ? "--disassemble" : "--list";
	/* An empty name (--list= with the name forgotten, or a shell
	 * variable that was not set) would be looked for in the profile and
	 * reported as matching no function, after reading the spools. */
	if (!*arg)
		usage_error("%s needs a FUNCTION: a name, MODULE:NAME or an "
			    "outline line number", opt);
	if (*n == sizeof(o->list) / sizeof(o->list[0]))
		usage_error("%s: at most %zu of them", opt,
			    sizeof(o->list) / sizeof(o->list[0]));
	if (!annotate_available())
		usage_error("--disassemble and --list need Capstone, which "
			    "this build of profanalyze lacks");
	list[(*n)++] = arg;
	o->report = REPORT_ANNOTATE;
}

/* Handles one option; help and version exit here. */
static void
take_option(struct options *o, int c, int optopt_c, char **argv)
{
	if (take_tuning(o, c) || take_diff(o, c))
		return;
	switch (c) {
	case OPT_FLAT:
		o->report = REPORT_FLAT;
		break;
	case OPT_JSON:
		o->report = REPORT_JSON;
		break;
	case OPT_GRAPH:
		o->report = REPORT_GRAPH;
		break;
	case OPT_OUTLINE:
		o->report = REPORT_OUTLINE;
		break;
	case OPT_CALL_COUNTS:
		o->report = REPORT_CALL_COUNTS;
		break;
	case OPT_THREADS:
		o->report = REPORT_THREADS;
		break;
	case OPT_FORMAT:
		o->format_arg = optarg; /* (parse_args parses it) */
		o->report = REPORT_EXPORT;
		break;
	case OPT_CHILDREN:
		o->children = true;
		break;
	case OPT_FOLLOW:
		o->follow = true;
		break;
	case OPT_INTERVAL: {
		char *end;
		errno = 0;
		double v = strtod(optarg, &end);
		if (errno || end == optarg || *end || !isfinite(v) ||
		    v < 0.1 || v > 3600)
			usage_error("--interval=%s: expected seconds from 0.1 "
				    "to 3600", optarg);
		o->interval = v;
		break;
	}
	case OPT_PROCESSES:
		o->report = REPORT_PROCESSES;
		break;
	case OPT_DISASSEMBLE:
	case OPT_LIST:
		take_annotate(o, c == OPT_DISASSEMBLE, optarg);
		break;
	case OPT_ADDRESSES:
		o->addresses = true;
		break;
	case OPT_INTEL:
		o->intel = true;
		break;
	case OPT_THREAD:
		if (o->load.nthreads == sizeof(o->threads) / sizeof(o->threads[0]))
			usage_error("--thread: at most %zu of them",
				    sizeof(o->threads) / sizeof(o->threads[0]));
		o->threads[o->load.nthreads++] = optarg;
		o->load.threads = o->threads;
		break;
	case OPT_FROM:
		o->load.window = true;
		o->load.from_ns = parse_secs("--from", optarg);
		break;
	case OPT_TO:
		o->load.window = true;
		o->load.to_ns = parse_secs("--to", optarg);
		o->has_to = true;
		break;
	case OPT_TIME:
		o->load.kind = LOADER_KIND_TIME;
		break;
	case OPT_SPACE:
		o->load.kind = LOADER_KIND_SPACE;
		break;
	case OPT_ALLOC:
	case OPT_INUSE:
	case OPT_PEAK:
		o->load.space_view = c == OPT_ALLOC ? PROFILE_SPACE_ALLOC :
				     c == OPT_INUSE ? PROFILE_SPACE_INUSE :
						      PROFILE_SPACE_PEAK;
		o->given |= GIVEN_VIEW;
		break;
	case OPT_NO_DEMANGLE:
		o->load.resolve.no_demangle = true;
		break;
	case OPT_ERROR_BARS:
		report_error_bars = true;
		break;
	case OPT_LINES:
		if (!srcline_available())
			usage_error("--lines needs libdw, which this build of "
				    "profanalyze lacks");
		o->load.resolve.lines = true;
		break;
	case OPT_INLINE:
		if (!srcline_available())
			usage_error("--inline needs libdw, which this build of "
				    "profanalyze lacks");
		o->load.resolve.no_inline = false;
		o->given |= GIVEN_INLINE;
		break;
	case OPT_NO_INLINE:
		o->load.resolve.no_inline = true;
		o->given &= ~GIVEN_INLINE;
		break;
	case OPT_DEBUG_DIR:
		o->load.resolve.debug_root = optarg;
		break;
	case OPT_DEBUGINFOD:
		if (!debuginfo_uses_libdw())
			usage_error("--debuginfod needs libdw, which this "
				    "build of profanalyze lacks");
		o->debuginfod = true;
		break;
	case 'o':
	case 'O':
		o->output = optarg;
		break;
	case 'h':
		print_usage(stdout);
		exit(EXIT_SUCCESS);
	case OPT_VERSION:
		printf("profanalyze (profrun) %s\n", PROFRUN_VERSION);
		exit(EXIT_SUCCESS);
	case ':':
		usage_error("option '%s' needs an argument", argv[optind - 1]);
	default:
		if (optopt_c)
			usage_error("unknown option '-%c'", optopt_c);
		usage_error("unknown option '%s'", argv[optind - 1]);
	}
}

/* --diff: its own report, which the report and layout options do not
 * shape. */
static void
check_diff(const struct options *o)
{
	if (o->given & (GIVEN_ORDER | GIVEN_STYLE | GIVEN_RACKET |
			GIVEN_OUTLINE | GIVEN_FRACTION))
		usage_error("--diff writes its own report: --order, --style, "
			    "--hide-self, --hide-subs, --root, --max-indent, "
			    "--max-depth and --fractional-threshold do not "
			    "apply");
	if (o->report != REPORT_FLAT && o->report != REPORT_EXPORT &&
	    o->report != REPORT_JSON)
		usage_error("--diff writes its own report (choose its form "
			    "with --format)");
	if ((o->given & GIVEN_VIEW) && o->load.kind == LOADER_KIND_TIME)
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

/* An option that the chosen report would silently ignore is an error:
 * the user expects it to change something. */
static void
check_applies(const struct options *o)
{
	if (o->load.window && o->has_to && o->load.to_ns <= o->load.from_ns)
		usage_error("--to must be after --from");
	/* Exact counts have no times: a window cannot select them. */
	if (o->load.window && !o->diff &&
	    (o->report == REPORT_CALL_COUNTS ||
	     (o->report == REPORT_EXPORT && o->format == EXPORT_MLMON_COUNT)))
		usage_error("--from and --to do not apply to the exact call "
			    "counts (--call-counts, --format=mlmon-count), "
			    "which have no times");
	if (o->diff) {
		check_diff(o);
		return;
	}
	if (o->given & GIVEN_DIFF)
		usage_error("--base, --normalize, --metric and --fail-* apply "
			    "to --diff only");
	bool graph = o->report == REPORT_GRAPH;
	if ((o->given & (GIVEN_ORDER | GIVEN_STYLE)) && !graph)
		usage_error("--order and --style apply to --graph only");
	bool dot = o->report == REPORT_EXPORT && o->format == EXPORT_DOT;
	if ((o->given & GIVEN_NODE_COUNT) && !dot)
		usage_error("--node-count applies to --format=dot only");
	if ((o->given & GIVEN_RACKET) && !(graph && o->racket) && !dot)
		usage_error("--hide-self and --hide-subs apply to --graph "
			    "--style=racket and --format=dot only");
	/* The Racket table has thresholds of its own; --show-all, which
	 * sets every threshold, is not this mistake. */
	if ((o->given & GIVEN_THRESHOLD) && graph && o->racket)
		usage_error("--threshold does not apply to --graph "
			    "--style=racket, whose thresholds are --hide-self "
			    "and --hide-subs");
	/* The other outputs list everything: a threshold would be ignored. */
	bool html = o->report == REPORT_EXPORT && o->format == EXPORT_HTML;
	if ((o->given & GIVEN_THRESHOLD) && !graph && !html &&
	    o->report != REPORT_FLAT && o->report != REPORT_OUTLINE)
		usage_error("--threshold applies to --flat, --graph, --outline "
			    "and --format=html only (the other outputs list "
			    "every function)");
	if ((o->given & GIVEN_FRACTION) && !(graph && !o->racket))
		usage_error("--fractional-threshold applies to --graph "
			    "(allegro style) only");
	if ((o->given & GIVEN_OUTLINE) && o->report != REPORT_OUTLINE)
		usage_error("--root, --max-indent and --max-depth apply to "
			    "--outline only");
	if (o->intel && !o->ndisassemble)
		usage_error("--intel applies to --disassemble only");
	if (o->addresses && !(o->report == REPORT_EXPORT &&
			      o->format == EXPORT_CALLGRIND))
		usage_error("--addresses applies to --format=callgrind only");
	if (o->report == REPORT_ANNOTATE && o->load.resolve.lines)
		usage_error("--lines does not apply to --disassemble and "
			    "--list, which show source lines of their own");
	if (o->report == REPORT_ANNOTATE && (o->given & GIVEN_INLINE))
		usage_error("--inline does not apply to --disassemble and "
			    "--list, which show inlined calls of their own");
	if (o->report != REPORT_ANNOTATE && (o->ndisassemble || o->nlist))
		usage_error("--disassemble and --list are reports of their "
			    "own: they do not go with another report");
	bool text = o->report == REPORT_FLAT || o->report == REPORT_GRAPH ||
		    o->report == REPORT_OUTLINE || o->report == REPORT_THREADS ||
		    o->report == REPORT_CALL_COUNTS;
	if (o->follow && (!text || o->output))
		usage_error("--follow prints the text reports to standard "
			    "output (--flat, --graph, --outline, --threads, "
			    "--call-counts), not --json, --format, --processes "
			    "or -o");
	if (o->interval && !o->follow)
		usage_error("--interval applies to --follow only");
	if ((o->given & GIVEN_VIEW) && o->load.kind == LOADER_KIND_TIME)
		usage_error("--alloc, --inuse and --peak are views of the space "
			    "profile, not of --time");
}

void
options_parse(struct options *o, int argc, char **argv)
{
	int c;

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
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:O:h", long_opts, NULL)) != -1)
		take_option(o, c, optopt, argv);
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
	if (o->given & GIVEN_VIEW)
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
options_free(struct options *o)
{
	hide_rules_free(&o->hide);
	free(o->bases);
	o->bases = NULL;
}
