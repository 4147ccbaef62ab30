/*
 * options: profanalyze's command line, parsed and checked into one
 * struct options that the stages of a run read (run.h, follow.h,
 * diffrun.h). A usage error is one line on stderr and exit status 2.
 */
#ifndef PROFANALYZE_OPTIONS_H
#define PROFANALYZE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diff.h"
#include "export.h"
#include "funcorder.h"
#include "hide.h"
#include "loader.h"

/* Exit status of a usage error (and of the errors found once the
 * profile is read that are the command line's: a --root past the
 * outline's end, a --thread that names no thread). */
#define EXIT_USAGE 2

enum report_kind {
	REPORT_FLAT,
	REPORT_JSON,
	REPORT_GRAPH,
	REPORT_OUTLINE,
	REPORT_CALL_COUNTS,
	REPORT_THREADS,
	REPORT_EXPORT, /* --format */
	REPORT_PROCESSES,
	REPORT_ANNOTATE, /* --disassemble, --list */
};

struct options {
	enum report_kind report;
	bool racket;
	/* The other reports would show inlined calls as frames (no
	 * --no-inline): --disassemble and --list take their FUNCTION from
	 * that profile. */
	bool shown_inline;
	uint64_t given;       /* 1 << each option given (options.c's ids) */
	double threshold_pct;
	double fractional_pct;
	double hide_self_pct, hide_subs_pct;
	enum funcorder order;
	enum export_format format;
	size_t root, max_indent;
	size_t max_depth;     /* --max-depth, REPORT_OUTLINE_ALL: none */
	size_t node_count;    /* --node-count (dot), 0: no limit */
	struct hide_rules hide;
	struct loader_opts load;
	const char *output; /* NULL: standard output */
	const char *threads[64]; /* --thread, into load.threads */
	const char *spool;    /* the first SPOOL operand */
	char **spools;        /* all of them */
	size_t nspools;
	bool children;        /* --children */
	const char *disassemble[64]; /* --disassemble */
	size_t ndisassemble;
	const char *list[64];        /* --list */
	size_t nlist;
	bool intel;                  /* --intel */
	bool has_to;          /* --to given (else the window ends with the run) */
	bool addresses;              /* --addresses */
	bool follow;          /* --follow */
	double interval;      /* --interval, seconds */
	const char *format_arg; /* --format, parsed once --diff is known */
	bool diff;            /* --diff (diff.h) */
	bool debuginfod;      /* --debuginfod: keep DEBUGINFOD_URLS */
	struct diff_opts dopts;
	const char **bases;   /* --base=SPOOL... */
	size_t nbases, bases_cap;
	const char *rules;    /* --fail-rules=FILE */
};

/* Parses argv into *o, checks that every option given applies to the
 * report chosen, and leaves o->spools pointing into argv. On a usage
 * error, --help or --version it exits. Free *o with options_free. */
void
options_parse(struct options *o, int argc, char **argv);

/* Frees what options_parse allocated in *o (not *o itself). */
void
options_free(struct options *o);

#endif
