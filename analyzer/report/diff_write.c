/*
 * diff_write: the comparison of diff.c written out: the text report,
 * JSON, Markdown (a pull-request comment or $GITHUB_STEP_SUMMARY),
 * JUnit XML (one testcase per gated row), Bencher's metric format and
 * github-action-benchmark's custom JSON.
 */
#include "diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "space.h"
#include "textesc.h"
#include "xmalloc.h"

#define DIFF_JSON_VERSION 1
#define MARKDOWN_MAX_ROWS 20

static const char *const metric_names[2] = { "total", "self" };
static const char *const class_names[3] = { "same", "regression",
					     "improvement" };

/* ---- ordering and figures ---- */

/* Failures first, then the other regressions (inherited ones last),
 * improvements, the rest. */
static int
rank(const struct diff_row *r)
{
	if (r->failed)
		return 0;
	if (r->cls == DIFF_REGRESSION)
		return r->inherited ? 2 : 1;
	return r->cls == DIFF_IMPROVEMENT ? 3 : 4;
}

static int
cmp_rows(const void *a, const void *b, void *arg)
{
	const struct diff_row *rows = arg;
	const struct diff_row *x = &rows[*(const size_t *)a];
	const struct diff_row *y = &rows[*(const size_t *)b];
	int rx = rank(x), ry = rank(y);
	if (rx != ry)
		return rx - ry;
	/* Regressions largest growth first, improvements largest fall
	 * first, the rest largest change either way first. */
	double kx = x->cls == DIFF_REGRESSION ? -x->change :
		    x->cls == DIFF_IMPROVEMENT ? x->change : -fabs(x->change);
	double ky = y->cls == DIFF_REGRESSION ? -y->change :
		    y->cls == DIFF_IMPROVEMENT ? y->change : -fabs(y->change);
	if (kx != ky)
		return kx < ky ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* Row indexes in report order; the caller frees them. */
static size_t *
ordered(const struct diff *d)
{
	size_t *idx = xcalloc(d->nrows ? d->nrows : 1, sizeof(*idx));
	for (size_t i = 0; i < d->nrows; i++)
		idx[i] = i;
	qsort_r(idx, d->nrows, sizeof(*idx), cmp_rows, d->rows);
	return idx;
}

/* Whether the text and the dashboards list the row: a significant
 * change, or one above the threshold share, or the whole run. */
static bool
listed(const struct diff *d, const struct diff_row *r)
{
	return r->cls != DIFF_SAME || r->whole || r->failed ||
	       (r->share >= d->opts.threshold_pct && r->share > 0);
}

/* The unit of a row's figures, short. */
static const char *
unit(const struct diff *d, const struct diff_row *r)
{
	if (r->exact)
		return "calls";
	if (diff_fractions(&d->opts))
		return "%";
	if (d->opts.per_call)
		return d->kind == PROFILE_KIND_TIME ? "s/call" : "bytes/call";
	return d->kind == PROFILE_KIND_TIME ? "s" : "bytes";
}

/* A figure as the text shows it. */
static const char *
fig(char *buf, size_t cap, const struct diff *d, const struct diff_row *r,
    double v, bool sign)
{
	int decimals = 3;
	if (r->exact || (d->kind == PROFILE_KIND_SPACE &&
			 d->opts.normalize == DIFF_NORM_NONE))
		decimals = 0;
	else if (diff_fractions(&d->opts))
		v *= 100;
	else if (d->opts.per_call)
		decimals = 6;
	if (sign)
		snprintf(buf, cap, "%+.*f", decimals, v);
	else
		snprintf(buf, cap, "%.*f", decimals, v);
	return buf;
}

static const char *
rel_str(char *buf, size_t cap, double rel)
{
	if (isinf(rel))
		snprintf(buf, cap, "new");
	else
		snprintf(buf, cap, "%+.1f%%", 100 * rel);
	return buf;
}

static const char *
p_str(char *buf, size_t cap, double p)
{
	if (p < 1e-4)
		snprintf(buf, cap, "<0.0001");
	else
		snprintf(buf, cap, "%.4f", p);
	return buf;
}

static const char *
what(const struct diff *d)
{
	if (d->kind == PROFILE_KIND_TIME)
		return "time profile, CPU seconds";
	switch (d->view) {
	case PROFILE_SPACE_INUSE:
		return "space profile (inuse), bytes never freed";
	case PROFILE_SPACE_PEAK:
		return "space profile (peak), bytes live at the peak";
	default:
		return "space profile (alloc), bytes allocated";
	}
}

static const char *
norm_str(char *buf, size_t cap, const struct diff *d)
{
	switch (d->opts.normalize) {
	case DIFF_NORM_TOTAL:
		return "as percent of the run";
	case DIFF_NORM_FUNC:
		snprintf(buf, cap, d->opts.per_call ?
				 "per call of %s (its calls counted exactly)" :
				 "as percent of %s's total",
			 d->opts.norm_func);
		return buf;
	default:
		return "per run";
	}
}

/* ---- text ---- */

static void
text_side(FILE *out, const char *title, const char *const *names, size_t n,
	  uint64_t samples)
{
	fprintf(out, "%s %zu run%s, %llu sample%s:", title, n,
		n == 1 ? "" : "s", (unsigned long long)samples,
		samples == 1 ? "" : "s");
	for (size_t i = 0; i < n; i++) {
		fputc(' ', out);
		textesc_put(out, names[i]);
	}
	fputc('\n', out);
}

static void
text_header(FILE *out, const struct diff *d)
{
	char nb[256];
	fprintf(out, "Comparison of the %s %s; changes of each function's "
		"%s.\n", what(d), norm_str(nb, sizeof(nb), d),
		metric_names[d->opts.metric]);
	text_side(out, "Base:", d->base_names, d->nbase, d->base_samples);
	text_side(out, "New: ", d->new_names, d->nnew, d->new_samples);
	fprintf(out, "Test: two-sided Welch t test of each change (z with one "
		"run a side), 5%% family-wise\nover %zu comparisons "
		"(Bonferroni: significant when p < %.2g).\n", d->nrows,
		DIFF_ALPHA / (double)(d->nrows ? d->nrows : 1));
	if (d->nfailed)
		fprintf(out, "Verdict: FAIL: %zu significant growth%s beyond "
			"the limits.\n", d->nfailed, d->nfailed == 1 ? "" : "s");
	else
		fprintf(out, "Verdict: pass: %zu regression%s, %zu "
			"improvement%s.\n", d->nregress,
			d->nregress == 1 ? "" : "s", d->nimprove,
			d->nimprove == 1 ? "" : "s");
}

static void
text_row(FILE *out, const struct diff *d, const struct diff_row *r)
{
	char b[5][48];
	fprintf(out, "%10s %10s %10s %10s %10s",
		fig(b[0], 48, d, r, r->base[1].mean, false),
		fig(b[1], 48, d, r, r->new[1].mean, false),
		fig(b[2], 48, d, r, r->base[0].mean, false),
		fig(b[3], 48, d, r, r->new[0].mean, false),
		fig(b[4], 48, d, r, r->change, true));
	fprintf(out, " %9s", fig(b[0], 48, d, r, r->half, false));
	fprintf(out, " %8s %8s  ", rel_str(b[1], 48, r->rel),
		p_str(b[2], 48, r->p));
	textesc_put(out, r->label);
	if (r->exact)
		fputs(" (exact)", out);
	if (r->failed)
		fputs("  FAIL", out);
	else if (r->inherited)
		fputs("  (from callees)", out);
	fputc('\n', out);
}

static void
text_section(FILE *out, const struct diff *d, const size_t *idx,
	     enum diff_class cls, const char *title)
{
	fprintf(out, "\n%s\n", title);
	fprintf(out, "      base        new       base        new     change "
		"     \u00b195%%   change        p  Function\n"
		"      self       self      total      total    (%s, %s)"
		"             %%\n", metric_names[d->opts.metric],
		diff_fractions(&d->opts) ? "%" :
		d->kind == PROFILE_KIND_TIME ? (d->opts.per_call ? "s/call" : "s")
					     : (d->opts.per_call ? "by/call"
								 : "bytes"));
	size_t shown = 0;
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[idx[i]];
		if (r->cls != cls || !listed(d, r))
			continue;
		text_row(out, d, r);
		shown++;
	}
	if (!shown)
		fputs("  (none)\n", out);
}

static void
write_text(FILE *out, const struct diff *d)
{
	size_t *idx = ordered(d);
	text_header(out, d);
	text_section(out, d, idx, DIFF_REGRESSION,
		     "Regressions (significant growth):");
	text_section(out, d, idx, DIFF_IMPROVEMENT,
		     "Improvements (significant decrease):");
	char title[96];
	snprintf(title, sizeof(title), "Not significant (%.1f%% of a run "
		 "or more):", d->opts.threshold_pct);
	text_section(out, d, idx, DIFF_SAME, title);
	free(idx);
}

/* ---- JSON ---- */

static void
json_est(struct json *j, const char *key, const struct diff_est *e)
{
	json_key(j, key);
	json_begin_object(j);
	json_key(j, "self");
	json_double(j, e[DIFF_METRIC_SELF].mean, 9);
	json_key(j, "total");
	json_double(j, e[DIFF_METRIC_TOTAL].mean, 9);
	json_key(j, "self_sd");
	json_double(j, sqrt(e[DIFF_METRIC_SELF].var), 9);
	json_key(j, "total_sd");
	json_double(j, sqrt(e[DIFF_METRIC_TOTAL].var), 9);
	json_end_object(j);
}

static void
json_limit(struct json *j, const char *key, double v)
{
	json_key(j, key);
	if (isnan(v))
		json_null(j);
	else
		json_double(j, v, 9);
}

static void
json_row(struct json *j, const struct diff_row *r)
{
	json_begin_object(j);
	json_key(j, "name");
	json_string(j, r->label);
	json_key(j, "kind");
	json_string(j, r->whole ? "whole" : r->exact ? "calls" : "function");
	json_key(j, "class");
	json_string(j, class_names[r->cls]);
	json_est(j, "base", r->base);
	json_est(j, "new", r->new);
	json_key(j, "change");
	json_double(j, r->change, 9);
	json_key(j, "change_pct"); /* null: from nothing */
	json_double(j, 100 * r->rel, 4);
	json_key(j, "interval");
	json_begin_array(j);
	json_double(j, r->change - r->half, 9);
	json_double(j, r->change + r->half, 9);
	json_end_array(j);
	json_key(j, "p");
	json_double(j, r->p, 9);
	json_key(j, "df"); /* null: normal */
	json_double(j, r->df, 3);
	json_key(j, "gated");
	json_bool(j, r->gated);
	json_key(j, "inherited");
	json_bool(j, r->inherited);
	json_limit(j, "limit_pct", r->limit_pct);
	json_limit(j, "limit_abs", r->limit_abs);
	json_key(j, "failed");
	json_bool(j, r->failed);
	json_end_object(j);
}

static void
json_side(struct json *j, const char *key, const char *const *names,
	  size_t n, uint64_t samples)
{
	json_key(j, key);
	json_begin_object(j);
	json_key(j, "runs");
	json_uint(j, n);
	json_key(j, "samples");
	json_uint(j, samples);
	json_key(j, "spools");
	json_begin_array(j);
	for (size_t i = 0; i < n; i++)
		json_string(j, names[i]);
	json_end_array(j);
	json_end_object(j);
}

static void
json_rows(struct json *j, const struct diff *d, const size_t *idx,
	  const char *key, enum diff_class cls)
{
	json_key(j, key);
	json_begin_array(j);
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[idx[i]].cls == cls)
			json_row(j, &d->rows[idx[i]]);
	json_end_array(j);
}

static void
json_head(struct json *j, const struct diff *d)
{
	json_key(j, "format");
	json_string(j, "profrun-diff");
	json_key(j, "version");
	json_uint(j, DIFF_JSON_VERSION);
	json_key(j, "kind");
	json_string(j, d->kind == PROFILE_KIND_TIME ? "time" : "space");
	json_key(j, "view");
	if (d->kind == PROFILE_KIND_SPACE)
		json_string(j, space_view_name(d->view));
	else
		json_null(j);
	json_key(j, "unit");
	json_string(j, diff_fractions(&d->opts) ? "fraction" :
		    d->opts.per_call ?
			    (d->kind == PROFILE_KIND_TIME ? "seconds per call"
							  : "bytes per call") :
		    d->kind == PROFILE_KIND_TIME ? "seconds" : "bytes");
	json_key(j, "normalize");
	json_string(j, d->opts.normalize == DIFF_NORM_FUNC ?
			       d->opts.norm_func :
		       d->opts.normalize == DIFF_NORM_TOTAL ? "total" : "none");
	json_key(j, "metric");
	json_string(j, metric_names[d->opts.metric]);
	json_side(j, "base", d->base_names, d->nbase, d->base_samples);
	json_side(j, "new", d->new_names, d->nnew, d->new_samples);
	json_key(j, "test");
	json_begin_object(j);
	json_key(j, "name");
	json_string(j, "welch-t-bonferroni");
	json_key(j, "alpha");
	json_double(j, DIFF_ALPHA, 4);
	json_key(j, "comparisons");
	json_uint(j, d->nrows);
	json_end_object(j);
}

static void
write_json(FILE *out, const struct diff *d)
{
	struct json j;
	size_t *idx = ordered(d);
	json_init(&j, out);
	json_begin_object(&j);
	json_head(&j, d);
	json_key(&j, "verdict");
	json_begin_object(&j);
	json_key(&j, "status");
	json_string(&j, d->nfailed ? "fail" : "pass");
	json_key(&j, "exit");
	json_uint(&j, (uint64_t)diff_status(d));
	json_key(&j, "failed");
	json_begin_array(&j);
	for (size_t i = 0; i < d->nrows; i++)
		if (d->rows[idx[i]].failed)
			json_string(&j, d->rows[idx[i]].label);
	json_end_array(&j);
	json_end_object(&j);
	json_rows(&j, d, idx, "regressions", DIFF_REGRESSION);
	json_rows(&j, d, idx, "improvements", DIFF_IMPROVEMENT);
	json_rows(&j, d, idx, "unchanged", DIFF_SAME);
	json_end_object(&j);
	json_finish(&j);
	free(idx);
}

/* ---- Markdown ---- */

/* A name in a table cell: control bytes escaped, and the characters
 * that would end the cell or the code span replaced. */
static void
md_name(FILE *out, const char *s)
{
	char *e = textesc_dup(s);
	fputc('`', out);
	for (char *c = e; *c; c++)
		fputs(*c == '|' ? "\\|" : *c == '`' ? "'" : (char[2]){ *c, 0 },
		      out);
	fputc('`', out);
	free(e);
}

static void
write_markdown(FILE *out, const struct diff *d)
{
	char nb[256], b[4][48];
	size_t *idx = ordered(d);
	size_t sig = d->nregress + d->nimprove, shown = 0;
	fprintf(out, "**profrun: %s** \u2014 %zu significant regression%s "
		"(%zu over the limits), %zu improvement%s; %s %s, %s, base "
		"%zu run%s, new %zu run%s; Welch t, 5%% family-wise over %zu "
		"comparisons.\n\n", d->nfailed ? "FAIL" : "pass", d->nregress,
		d->nregress == 1 ? "" : "s", d->nfailed, d->nimprove,
		d->nimprove == 1 ? "" : "s", what(d),
		norm_str(nb, sizeof(nb), d), metric_names[d->opts.metric],
		d->nbase, d->nbase == 1 ? "" : "s", d->nnew,
		d->nnew == 1 ? "" : "s", d->nrows);
	if (!sig) {
		fputs("No significant change.\n", out);
		free(idx);
		return;
	}
	fprintf(out, "| | Function | Base (%s) | New | Change | \u00b1 95%% "
		"| p |\n|---|---|---:|---:|---:|---:|---:|\n",
		unit(d, &d->rows[idx[0]]));
	for (size_t i = 0; i < d->nrows && shown < MARKDOWN_MAX_ROWS; i++) {
		const struct diff_row *r = &d->rows[idx[i]];
		int m = d->opts.metric;
		if (r->cls == DIFF_SAME)
			continue;
		fputs(r->failed ? "| \u274c | " :
		      r->inherited ? "| \u2b06 from callees | " :
		      r->cls == DIFF_REGRESSION ? "| \u2b06 | " : "| \u2b07 | ",
		      out);
		md_name(out, r->label);
		fprintf(out, " | %s | %s | %s | %s | %s |\n",
			fig(b[0], 48, d, r, r->base[m].mean, false),
			fig(b[1], 48, d, r, r->new[m].mean, false),
			rel_str(b[2], 48, r->rel),
			fig(b[3], 48, d, r, r->half, false),
			p_str(nb, sizeof(nb), r->p));
		shown++;
	}
	if (sig > shown)
		fprintf(out, "\n%zu more significant changes: see the full "
			"report.\n", sig - shown);
	free(idx);
}

/* ---- JUnit, Bencher, github-action-benchmark ---- */

/* XML 1.0 text: markup escaped; control characters (C0 ones are not
 * allowed, DEL and C1 ones discouraged) and bytes that are not UTF-8
 * (which would make the file malformed) as '?'. */
static void
xml_put(FILE *out, const char *str)
{
	const unsigned char *u = (const unsigned char *)str;
	size_t n = strlen(str);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = u[i];
		uint32_t cp;
		size_t len = json_utf8_decode(u + i, n - i, &cp);
		if (len > 1 && cp > 0x9f) {
			fwrite(u + i, 1, len, out);
			i += len - 1;
		} else if (len != 1 || c == 0x7f) {
			fputc('?', out);
			i += len ? len - 1 : 0;
		} else if (c == '<')
			fputs("&lt;", out);
		else if (c == '>')
			fputs("&gt;", out);
		else if (c == '&')
			fputs("&amp;", out);
		else if (c == '"')
			fputs("&quot;", out);
		else if (c < 0x20 && c != '\t')
			fputc('?', out);
		else
			fputc(c, out);
	}
}

/* One testcase per gated row, a failure for a row that failed the gate.
 * JUnit XML has no specification; this is the common subset documented
 * at https://github.com/testmoapp/junitxml and in Jenkins' junit-4.xsd
 * (testsuites > testsuite with tests and failures > testcase with
 * classname and name > failure with a message attribute). The message
 * is also the failure's text, since GitLab shows only the text
 * (gitlab-org/gitlab-foss issue 53668). */
static void
write_junit(FILE *out, const struct diff *d)
{
	size_t n = 0;
	char b[3][48];
	for (size_t i = 0; i < d->nrows; i++)
		n += d->rows[i].gated;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"profanalyze --diff\" tests=\"%zu\" "
		"failures=\"%zu\">\n  <testsuite name=\"profrun.diff\" "
		"tests=\"%zu\" failures=\"%zu\">\n", n, d->nfailed, n,
		d->nfailed);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		if (!r->gated)
			continue;
		fputs("    <testcase classname=\"profrun.diff\" name=\"", out);
		xml_put(out, r->label);
		fprintf(out, " (%s)\"", metric_names[d->opts.metric]);
		if (!r->failed) {
			fputs("/>\n", out);
			continue;
		}
		char msg[256];
		snprintf(msg, sizeof(msg), "grew %s (%s %s), p %s",
			 rel_str(b[0], 48, r->rel),
			 fig(b[1], 48, d, r, r->change, true), unit(d, r),
			 p_str(b[2], 48, r->p));
		fputs(">\n      <failure message=\"", out);
		xml_put(out, msg);
		fputs("\">", out);
		xml_put(out, msg);
		fputs("</failure>\n    </testcase>\n", out);
	}
	fputs("  </testsuite>\n</testsuites>\n", out);
}

/* The measure's name in Bencher's and github-action-benchmark's terms. */
static const char *
measure(char *buf, size_t cap, const struct diff *d, const struct diff_row *r,
	int m)
{
	snprintf(buf, cap, "%s-%s", r->exact ? "calls" : metric_names[m],
		 r->exact ? "exact" : diff_fractions(&d->opts) ? "share" :
		 d->opts.per_call ? "per-call" : d->kind == PROFILE_KIND_TIME ? "seconds" : "bytes");
	return buf;
}

/* Bencher Metric Format: { benchmark: { measure: { value, lower_value,
 * upper_value } } }, as https://bencher.dev/docs/reference/bencher-metric-format
 * gives it (value required, the bounds optional). The new side's figures
 * with their 95 % interval. */
static void
write_bmf(FILE *out, const struct diff *d)
{
	struct json j;
	char mb[64];
	json_init(&j, out);
	json_begin_object(&j);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		if (!listed(d, r))
			continue;
		json_key(&j, r->label);
		json_begin_object(&j);
		for (int m = 0; m < (r->exact || r->whole ? 1 : 2); m++) {
			const struct diff_est *e = &r->new[m];
			double h = diff_t_quantile(0.05, e->df) * sqrt(e->var);
			json_key(&j, measure(mb, sizeof(mb), d, r, m));
			json_begin_object(&j);
			json_key(&j, "value");
			json_double(&j, e->mean, 9);
			json_key(&j, "lower_value");
			json_double(&j, e->mean - h, 9);
			json_key(&j, "upper_value");
			json_double(&j, e->mean + h, 9);
			json_end_object(&j);
		}
		json_end_object(&j);
	}
	json_end_object(&j);
	json_finish(&j);
}

/* github-action-benchmark's "customSmallerIsBetter" tool
 * (https://github.com/benchmark-action/github-action-benchmark, custom
 * benchmarks): an array of { name, unit, value, range, extra }, name, unit
 * and value required, range (the variance, a string such as "± 329") and
 * extra optional, as the README of cryspen/benchmark-upload-and-plot-action,
 * which takes the same input, lists them. */
static void
write_gab(FILE *out, const struct diff *d)
{
	struct json j;
	char name[1024], mb[64], extra[200], pb[48], b[3][48];
	json_init(&j, out);
	json_begin_array(&j);
	for (size_t i = 0; i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];
		int m = r->exact ? 0 : d->opts.metric;
		if (!listed(d, r))
			continue;
		const struct diff_est *e = &r->new[m];
		double h = diff_t_quantile(0.05, e->df) * sqrt(e->var);
		json_begin_object(&j);
		json_key(&j, "name");
		snprintf(name, sizeof(name), "%s [%s]", r->label,
			 measure(mb, sizeof(mb), d, r, m));
		json_string(&j, name);
		json_key(&j, "unit");
		json_string(&j, unit(d, r));
		json_key(&j, "value");
		json_double(&j, e->mean * (strcmp(unit(d, r), "%") ? 1 : 100), 9);
		json_key(&j, "range");
		snprintf(name, sizeof(name), "\u00b1 %s",
			 fig(b[0], 48, d, r, h, false));
		json_string(&j, name);
		json_key(&j, "extra");
		snprintf(extra, sizeof(extra), "base %s, change %s, p %s",
			 fig(b[1], 48, d, r, r->base[m].mean, false),
			 rel_str(b[2], 48, r->rel), p_str(pb, sizeof(pb), r->p));
		json_string(&j, extra);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_finish(&j);
}

void
diff_write(FILE *out, const struct diff *d)
{
	switch (d->opts.format) {
	case DIFF_FORMAT_JSON:
		write_json(out, d);
		break;
	case DIFF_FORMAT_MARKDOWN:
		write_markdown(out, d);
		break;
	case DIFF_FORMAT_JUNIT:
		write_junit(out, d);
		break;
	case DIFF_FORMAT_BMF:
		write_bmf(out, d);
		break;
	case DIFF_FORMAT_GAB:
		write_gab(out, d);
		break;
	default:
		write_text(out, d);
		break;
	}
}
