/*
 * export: the profile written in the formats of other profilers and of
 * the tools users already have (profanalyze --format=FORMAT).
 *
 * Every exporter reads the one profile model the text reports read (after
 * hiding), and works for time profiles (weights in nanoseconds) and space
 * profiles (weights in bytes) alike. Each format lives in its own
 * export_FORMAT.c; this file only names them and dispatches.
 */
#ifndef PROFANALYZE_EXPORT_H
#define PROFANALYZE_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "funcorder.h"
#include "profile.h"

struct timeline;
struct pcprof;

enum export_format {
	EXPORT_LISPWORKS,  /* LispWorks profiler tree file */
	EXPORT_MLMON,      /* MLton mlmon.out */
	EXPORT_SYMPRO,     /* SymPro report_data.js */
	EXPORT_SYMPRO_JSON, /* SymPro's bare message list */
	EXPORT_FOLDED,     /* root;...;leaf COUNT (FlameGraph) */
	EXPORT_CALLGRIND,  /* callgrind profile format (KCachegrind) */
	EXPORT_DOT,        /* Graphviz, as Racket's graph renderer */
	EXPORT_PPROF,      /* gzipped profile.proto */
	EXPORT_JSON,       /* the whole model (report_json.h) */
	EXPORT_MLMON_COUNT, /* mlmon.out of exact call counts ("count") */
	EXPORT_HTML,       /* one self-contained page (export_html.c) */
	EXPORT_SPEEDSCOPE, /* speedscope's file format, per thread */
	EXPORT_FIREFOX,    /* Gecko profile (Firefox Profiler), per thread */
	EXPORT_FORMAT_MAX_,
};

struct export_opts {
	/* A name for the profile where a format has one (the LispWorks
	 * tree's name, SymPro's metadata): the spool's path. */
	const char *name;
	/* The text reports' thresholds, for the formats that hide as they
	 * do (dot: Racket's hide-self and hide-subs). */
	double threshold_pct;
	double hide_self_pct;
	double hide_subs_pct;
	enum funcorder order;
	/* dot: at most this many functions, the heaviest by total; 0: all. */
	size_t node_count;
	/* The samples in time, for the formats that draw a timeline
	 * (export_timeline()); NULL when not read. */
	const struct timeline *timeline;
	/* html of a space profile: the profile of each view (by enum
	 * profile_space_view, hiding applied, the one exported among them),
	 * NULL when not read (export_space_views()). */
	const struct profile *space_views[3];
	/* The same samples by program counter (pcprof.h), or NULL: the
	 * pprof export then has a location per PC with source lines and
	 * inlined frames, else one per function. */
	const struct pcprof *pcs;
	/* callgrind with pcs: positions "instr line" (--addresses). */
	bool addresses;
};

/* The format named name ("lispworks", "pprof", ...); -1 when none is. */
int
export_parse(const char *name, enum export_format *fmt);

/* The names of all formats, comma-separated, for messages and --help. */
const char *
export_names(void);

/* Whether the format shows the samples in time, so that the caller reads
 * the spools again for opts->timeline (timeline.h). */
bool
export_timeline(enum export_format fmt);

/* Whether the format shows every view of a space profile, so that the
 * caller reads the other views for opts->space_views. */
bool
export_space_views(enum export_format fmt);

/* Whether the format is binary (not for a terminal). */
bool
export_binary(enum export_format fmt);

/* Writes the finished profile p in fmt to out. Returns 0, or -1 after one
 * error line naming what could not be exported (write errors are left in
 * out's error flag for the caller). */
int
export_write(FILE *out, enum export_format fmt, const struct profile *p,
	     const struct export_opts *opts);

/* The exporters, one per file (export_FORMAT.c); same contract. */
int
export_lispworks_write(FILE *out, const struct profile *p,
		       const struct export_opts *opts);
int
export_mlmon_write(FILE *out, const struct profile *p,
		   const struct export_opts *opts);
/* mlmon.out of kind "count" (mlton -profile count): each function's exact
 * calls, 0 for one whose calls were not counted. */
int
export_mlmon_count_write(FILE *out, const struct profile *p,
			 const struct export_opts *opts);
/* bare: the message list alone (sympro-json), else report_data.js. */
int
export_sympro_write(FILE *out, const struct profile *p,
		    const struct export_opts *opts, bool bare);
int
export_folded_write(FILE *out, const struct profile *p,
		    const struct export_opts *opts);

/* Writes name as export_folded_write writes a frame (';' and control
 * characters replaced, see export_folded.c); for the diff's folded
 * output (diff_export.c). */
void
export_folded_put_frame(FILE *out, const char *name);
/* callgrind by function (export_callgrind.c), and from opts->pcs
 * (export_callgrind_pc.c): export.c chooses. */
int
export_callgrind_write(FILE *out, const struct profile *p,
		       const struct export_opts *opts);
int
export_callgrind_pc_write(FILE *out, const struct profile *p,
			  const struct export_opts *opts);
/* The header lines both callgrind writers share; addresses: positions
 * "instr line", else "line". */
void
export_callgrind_header(FILE *out, const struct profile *p,
			const struct export_opts *opts, bool addresses);
int
export_dot_write(FILE *out, const struct profile *p,
		 const struct export_opts *opts);
/* The page: analyzer/html/, its data in export_html.c. */
int
export_html_write(FILE *out, const struct profile *p,
		  const struct export_opts *opts);

/* The page of export_html_write() with other data: data(out, arg)
 * writes the JSON object the page reads (a profile's, or the differential
 * page's: diff_write_html()). Returns 0, or -1 when the template lacks
 * its marker. */
int
export_html_page(FILE *out, void (*data)(FILE *out, const void *arg),
		 const void *arg);

/* s as a JSON string that cannot end the page's script element ('<'
 * escaped; NULL as ""). */
void
export_html_str(FILE *out, const char *s);
/* One sampled profile per thread, in time order. */
int
export_speedscope_write(FILE *out, const struct profile *p,
			const struct export_opts *opts);
/* Time profiles only: -1 with an error line for a space profile. */
int
export_firefox_write(FILE *out, const struct profile *p,
		     const struct export_opts *opts);
int
export_pprof_write(FILE *out, const struct profile *p,
		   const struct export_opts *opts);

struct diff;

/* The comparison of profanalyze --diff in d->opts.format: the folded
 * stacks, dot and HTML here, every other format through diff_write()
 * (report layer). */
void
diff_export_write(FILE *out, const struct diff *d);

/* The folded stacks of both sides, "stack BASE NEW" a line (each side's
 * mean per run of the stack's self weight: microseconds of CPU, or
 * bytes), and the Graphviz graph of the functions listed, coloured by
 * change (diff_export.c). */
void
diff_write_folded(FILE *out, const struct diff *d);
void
diff_write_dot(FILE *out, const struct diff *d);

/* The HTML page of the comparison: NEW's calling-context tree with
 * BASE's weights beside (a differential flame graph) and the rows as
 * --format=json has them (diff_html.c). */
void
diff_write_html(FILE *out, const struct diff *d);

#endif
