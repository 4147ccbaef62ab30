/*
 * diff: two sets of runs compared function by function (profanalyze
 * --diff), for reviewers and for CI gates.
 *
 * Each side (base, new) is one or more runs, each run a finished profile
 * (one spool, or a process tree merged by the caller). A side's figure
 * for a function is its mean over the side's runs, after normalization
 * (none: seconds or bytes; total: share of the run; FUNCTION: share of
 * that function's total). Its variance is the larger of
 *   - the sampling variance: the profile's per-function variance
 *     contributions (profile.h: w^2 per time sample, w (w - n) per sampled
 *     allocation), through the normalization by the delta method, summed
 *     over the runs and divided by their number squared;
 *   - with two or more runs, the spread: the runs' sample variance over
 *     their number, with runs - 1 degrees of freedom.
 * A change is tested with Welch's t (Satterthwaite's degrees of freedom;
 * a side whose variance is the sampling one counts as exact in
 * distribution, infinite degrees of freedom, so with one run each it is
 * the z test), two-sided, at 5 % family-wise with Bonferroni's correction
 * over all rows compared. Exact figures (call counts) have no variance:
 * any change of them is significant.
 *
 * The gate (--fail-above, --fail-above-abs, a rule file) fails on a
 * significant growth of the gated metric beyond its limits, except a
 * growth of a total that the growth of the function's callees (in any
 * new run's call graph) accounts for, within the change's interval: a
 * function that got slower fails, its callers whose totals grew with it
 * are shown as inherited. The whole run's row is inherited likewise from
 * the functions called from the root (metric total) or from every
 * function's self (metric self).
 */
#ifndef PROFANALYZE_DIFF_H
#define PROFANALYZE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile.h"

#define DIFF_ALPHA 0.05 /* family-wise level of the test */
#define DIFF_EXIT_FAIL 3 /* the gate failed */

enum diff_normalize {
	DIFF_NORM_NONE,
	DIFF_NORM_TOTAL,
	DIFF_NORM_FUNC,
};

enum diff_metric {
	DIFF_METRIC_TOTAL = 0,
	DIFF_METRIC_SELF = 1,
};

enum diff_format {
	DIFF_FORMAT_TEXT,
	DIFF_FORMAT_JSON,
	DIFF_FORMAT_MARKDOWN,
	DIFF_FORMAT_JUNIT,
	DIFF_FORMAT_BMF,   /* Bencher Metric Format */
	DIFF_FORMAT_GAB,   /* github-action-benchmark customSmallerIsBetter */
	DIFF_FORMAT_FOLDED, /* FlameGraph's difffolded: stack BASE NEW */
	DIFF_FORMAT_DOT,   /* Graphviz, nodes coloured by change */
	DIFF_FORMAT_HTML,  /* the HTML report's page: differential flame graph */
};

/* One line of a rule file: functions whose label matches the glob
 * pattern are gated with these limits (NAN: none). */
struct diff_rule {
	char *pattern;
	double pct, abs;
};

struct diff_opts {
	enum diff_normalize normalize;
	const char *norm_func;   /* DIFF_NORM_FUNC */
	/* Set by diff_compute(): DIFF_NORM_FUNC's function had its calls
	 * counted exactly in every run (-finstrument-functions), so the
	 * figures are per call of it, not shares of its total. */
	bool per_call;
	enum diff_metric metric; /* what the gate and the sort read */
	double fail_pct, fail_abs; /* NAN: not given */
	struct diff_rule *rules; /* from diff_rules_read; may be NULL */
	size_t nrules;
	double threshold_pct;    /* the rest: listed from this share up */
	enum diff_format format;
};

/* A side's estimate of one metric of one row. */
struct diff_est {
	double mean, var;
	double df;  /* INFINITY: sampling variance (normal) */
	bool spread; /* the runs' spread was larger than sampling */
};

enum diff_class {
	DIFF_SAME = 0,
	DIFF_REGRESSION,
	DIFF_IMPROVEMENT,
};

struct diff_row {
	const char *label; /* borrowed from a profile, or static */
	bool exact;        /* call counts: no variance */
	bool whole;        /* the whole run's row */
	struct diff_est base[2], new[2]; /* by enum diff_metric */
	double share;      /* largest share of its run (metric), percent */
	/* Of the metric: */
	double change, rel; /* rel: change / base (INFINITY from 0) */
	double half;        /* 95 % half-width of change */
	double df, p;
	enum diff_class cls;
	bool gated;
	double limit_pct, limit_abs;
	/* A regression of a total that its callees' regressions account
	 * for (a caller of the function that got slower): shown, never
	 * failed, so the gate names where the time went. */
	bool inherited;
	bool failed;
};

struct diff {
	/* The runs compared (borrowed), for the exports that walk them. */
	struct profile *const *base_runs, *const *new_runs;
	enum profile_kind kind;
	enum profile_space_view view;
	struct diff_opts opts;
	const char *const *base_names, *const *new_names;
	size_t nbase, nnew;
	uint64_t base_samples, new_samples;
	struct diff_row *rows;
	size_t nrows;
	size_t nfunc; /* the function rows come first, sorted by label */
	size_t nfailed, nregress, nimprove;
};

/* Whether o's figures are fractions (shares of the run, or of the
 * harness function's total), not seconds or bytes. */
bool
diff_fractions(const struct diff_opts *o);

/* Parses "none", "total" or a function name into o. */
void
diff_parse_normalize(struct diff_opts *o, const char *arg);

/* Parses a --format name of the diff; -1 when it is none. */
int
diff_parse_format(const char *arg, enum diff_format *out);

/* Reads a rule file into o->rules. Format: one rule a line, '#' starts
 * a comment, blank lines are skipped:
 *     PATTERN PCT [ABS]
 * PATTERN a glob for function names, PCT a percentage or '-' for none,
 * ABS seconds (time) or bytes (space), or '-'. Returns 0, or -1 after
 * one error line naming the file and line. */
int
diff_rules_read(struct diff_opts *o, const char *path);

void
diff_opts_free(struct diff_opts *o);

/* Compares the runs (finished profiles of one kind). names are the runs'
 * spool paths. Returns 0 and fills *d, or -1 after an error line (the
 * normalizing function is in no run). The profiles must outlive *d. */
int
diff_compute(struct diff *d, const struct diff_opts *o,
	     struct profile *const *base, const char *const *base_names,
	     size_t nbase, struct profile *const *new,
	     const char *const *new_names, size_t nnew);

void
diff_free(struct diff *d);

/* The exit status the comparison gives: 0, or DIFF_EXIT_FAIL. */
int
diff_status(const struct diff *d);

/* Writes the comparison's reports in d->opts.format: text, JSON,
 * Markdown, JUnit, BMF, GAB (report/diff_write.c). The other formats are
 * exports: export.h's diff_export_write() takes every format. */
void
diff_write(FILE *out, const struct diff *d);

/* Statistics, exposed for the unit tests: the two-sided p-value of t
 * with df degrees of freedom (INFINITY: normal), and the t value whose
 * two-sided p-value is p. */
double
diff_t_pvalue(double t, double df);
double
diff_t_quantile(double p, double df);

#endif
