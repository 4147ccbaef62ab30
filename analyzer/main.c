/*
 * profanalyze: reads a profrun spool and prints a report.
 *
 * main only parses the command line and wires the pieces: loader (spool
 * -> profile), then one report. Exit status: 0 when a report was written
 * (warnings included), 1 when the input could not be read or the output
 * not written, 2 for usage errors.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "loader.h"
#include "profile.h"
#include "report_flat.h"
#include "report_json.h"

#ifndef PROFRUN_VERSION
#define PROFRUN_VERSION "unknown"
#endif

#define EXIT_USAGE 2
#define DEBUG_ROOT "/usr/lib/debug"

enum report_kind {
	REPORT_FLAT,
	REPORT_JSON,
};

struct options {
	enum report_kind report;
	double threshold_pct;
	const char *output; /* NULL: standard output */
	const char *spool;
};

enum {
	OPT_FLAT = 0x100,
	OPT_JSON,
	OPT_THRESHOLD,
	OPT_SHOW_ALL,
	OPT_VERSION,
};

static const char usage_text[] =
	"Usage: profanalyze [OPTION]... SPOOL\n"
	"Print a report of the profile that profrun wrote to SPOOL.\n"
	"\n"
	"Reports (the last one given wins):\n"
	"      --flat             flat profile: functions by self time "
	"(default)\n"
	"      --json             the profile as JSON, every function\n"
	"\n"
	"Options:\n"
	"      --threshold PCT    leave out functions below PCT percent of "
	"the\n"
	"                         samples in the flat profile (default 1.0)\n"
	"      --show-all         list every function (--threshold 0)\n"
	"  -o, --output FILE      write the report to FILE instead of "
	"standard output\n"
	"  -h, --help             show this help and exit\n"
	"      --version          show the version and exit\n"
	"\n"
	"Exit status: 0 on success (also with warnings), 1 when SPOOL cannot "
	"be read\n"
	"or the report cannot be written, 2 for a usage error.\n";

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "%s: ", DIAG_PROGRAM);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see %s --help)\n", DIAG_PROGRAM);
	exit(EXIT_USAGE);
}

static double
parse_pct(const char *arg)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v) || v < 0 || v > 100)
		usage_error("--threshold: '%s' is not a percentage from 0 to "
			    "100", arg);
	return v;
}

static const struct option long_opts[] = {
	{ "flat", no_argument, NULL, OPT_FLAT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "show-all", no_argument, NULL, OPT_SHOW_ALL },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Handles one option; help and version exit here. */
static void
take_option(struct options *o, int c, int optopt_c, char **argv)
{
	switch (c) {
	case OPT_FLAT:
		o->report = REPORT_FLAT;
		break;
	case OPT_JSON:
		o->report = REPORT_JSON;
		break;
	case OPT_THRESHOLD:
		o->threshold_pct = parse_pct(optarg);
		break;
	case OPT_SHOW_ALL:
		o->threshold_pct = 0;
		break;
	case 'o':
		o->output = optarg;
		break;
	case 'h':
		fputs(usage_text, stdout);
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

static void
parse_args(struct options *o, int argc, char **argv)
{
	int c;

	o->report = REPORT_FLAT;
	o->threshold_pct = 1.0;
	o->output = NULL;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1)
		take_option(o, c, optopt, argv);
	if (optind == argc)
		usage_error("missing SPOOL operand");
	if (argc - optind > 1)
		usage_error("only one SPOOL can be analyzed at a time (got %d)",
			    argc - optind);
	o->spool = argv[optind];
}

/* Writes the report; returns 0 or 1 (the exit status). */
static int
write_report(const struct options *o, const struct profile *p)
{
	const char *name = o->output ? o->output : "standard output";
	FILE *out = stdout;

	if (o->output && !(out = fopen(o->output, "w"))) {
		diag_error("%s: %s", o->output, strerror(errno));
		return 1;
	}
	if (o->report == REPORT_JSON) {
		report_json_write(out, p);
	} else {
		struct report_flat_opts fo = { .threshold_pct = o->threshold_pct };
		report_flat_write(out, p, &fo);
	}
	int bad = fflush(out) != 0 || ferror(out);
	int saved = errno;
	if (out != stdout && fclose(out) != 0 && !bad) {
		bad = 1;
		saved = errno;
	}
	if (bad) {
		diag_error("%s: write error: %s", name, strerror(saved));
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct options o;
	struct loader_opts lo = { .debug_root = DEBUG_ROOT };

	parse_args(&o, argc, argv);
	struct profile *p = loader_read(o.spool, &lo);
	if (!p)
		return EXIT_FAILURE;
	int ret = write_report(&o, p);
	profile_free(p);
	return ret;
}
