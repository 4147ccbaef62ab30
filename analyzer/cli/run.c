/*
 * run: the report of a run of profanalyze: the profile of the spools,
 * then the one report or export the options chose, written to standard
 * output or (complete, or not at all) to -o's file. Some read the
 * spools again: the timeline, the space views of the html export, the
 * PCs of pprof and callgrind, the annotated functions.
 */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "annotate.h"
#include "diag.h"
#include "family.h"
#include "outfile.h"
#include "pcprof.h"
#include "report.h"
#include "report_calls.h"
#include "report_flat.h"
#include "report_graph.h"
#include "report_json.h"
#include "report_outline.h"
#include "report_processes.h"
#include "report_racket.h"
#include "spools.h"
#include "timeline.h"
#include "xmalloc.h"

static void
write_graph(FILE *out, const struct options *o, const struct profile *p)
{
	if (o->racket) {
		struct report_racket_opts ro = {
			.order = o->order,
			.hide_self_pct = o->hide_self_pct,
			.hide_subs_pct = o->hide_subs_pct,
		};
		report_racket_write(out, p, &ro);
	} else {
		struct report_graph_opts go = {
			.order = o->order,
			.threshold_pct = o->threshold_pct,
			.fractional_pct = o->fractional_pct,
		};
		report_graph_write(out, p, &go);
	}
}

/* The samples of p in time, for the exports that draw a timeline: the
 * spools read again (timeline.h). NULL after an error line. */
static struct timeline *
read_timeline(const struct options *o, const struct profile *p)
{
	struct family *fams = xcalloc(o->nspools, sizeof(*fams));
	size_t n;
	diag_set_quiet(true);
	char **paths = spools_paths(o, fams, &n);
	diag_set_quiet(false);
	struct timeline *tl = paths ? timeline_collect(p, paths, n, &o->load)
				    : NULL;
	for (size_t i = 0; i < o->nspools; i++)
		family_free(&fams[i]);
	free(paths);
	free(fams);
	return tl;
}

/* --format: pprof and callgrind keep the PCs, read again from the
 * spools (but for --follow's reports: by function there). */
static int
write_export(FILE *out, const struct options *o, const struct profile *p,
	     struct export_opts *eo)
{
	if ((o->format != EXPORT_PPROF && o->format != EXPORT_CALLGRIND) ||
	    o->follow)
		return export_write(out, o->format, p, eo);
	struct family *fams = xcalloc(o->nspools, sizeof(*fams));
	size_t n;
	diag_set_quiet(true);
	char **paths = spools_paths(o, fams, &n);
	diag_set_quiet(false);
	struct pcprof_opts po = { .paths = paths, .npaths = n,
				  .load = &o->load, .hide = &o->hide };
	struct pcprof *pcs = paths ? pcprof_read(&po) : NULL;
	int ret = -1;
	if (pcs) {
		eo->pcs = pcs;
		ret = export_write(out, o->format, p, eo);
	} else {
		diag_error("%s: cannot read the spools again", o->spool);
	}
	pcprof_free(pcs);
	for (size_t i = 0; i < o->nspools; i++)
		family_free(&fams[i]);
	free(paths);
	free(fams);
	return ret;
}

/* For the html export of a space profile p: the profile of each view,
 * the other two read as p was (quietly: p's read gave the warnings) and
 * hidden as p. views[p's view] is p. Returns 0, or -1 after an error. */
static int
read_space_views(const struct options *o, const struct profile *p,
		 struct profile *views[3])
{
	if (p->hdr.kind != PROFILE_KIND_SPACE)
		return 0;
	for (int v = 0; v < 3; v++) {
		if (v == (int)p->hdr.space.view) {
			views[v] = (struct profile *)p;
			continue;
		}
		struct options one = *o;
		int status = 0;
		one.load.kind = LOADER_KIND_SPACE;
		one.load.space_view = (enum profile_space_view)v;
		diag_set_quiet(true);
		struct profile *q = spools_load(&one, &status);
		diag_set_quiet(false);
		if (!q)
			return -1;
		views[v] = hide_apply_take(q, &o->hide);
	}
	return 0;
}

/* Writes the chosen report; returns 0, or -1 after an error line. */
static int
write_body(FILE *out, const struct options *o, const struct profile *p,
	   const struct report_outline *outline, const struct timeline *tl,
	   struct profile *const views[3])
{
	struct report_flat_opts fo = { .threshold_pct = o->threshold_pct };
	struct export_opts eo = {
		.name = o->spool,
		.threshold_pct = o->threshold_pct,
		.hide_self_pct = o->hide_self_pct,
		.hide_subs_pct = o->hide_subs_pct,
		.order = o->order,
		.node_count = o->node_count,
		.timeline = tl,
		.space_views = { views[0], views[1], views[2] },
		.addresses = o->addresses,
	};

	switch (o->report) {
	case REPORT_EXPORT:
		return write_export(out, o, p, &eo);
	case REPORT_JSON:
		report_json_write(out, p);
		break;
	case REPORT_GRAPH:
		write_graph(out, o, p);
		break;
	case REPORT_OUTLINE:
		report_outline_write(out, outline);
		break;
	case REPORT_FLAT:
		report_flat_write(out, p, &fo);
		break;
	case REPORT_CALL_COUNTS:
		report_calls_write(out, p);
		break;
	case REPORT_THREADS:
		report_threads_write(out, p);
		break;
	case REPORT_PROCESSES:
	case REPORT_ANNOTATE:
		break; /* (main writes them: see write_annotate) */
	}
	return 0;
}

/* The outline is laid out before anything is written, so that a --root
 * beyond its last line is an error without output. Returns NULL after
 * the error message. */
static struct report_outline *
prepare_outline(const struct options *o, const struct profile *p)
{
	struct report_outline_opts oo = {
		.threshold_pct = o->threshold_pct,
		.root = o->root,
		.max_indent = o->max_indent,
		.max_depth = o->max_depth,
	};
	struct report_outline *r = report_outline_new(p, &oo);
	size_t n = report_outline_lines(r);

	if (o->root == REPORT_OUTLINE_ALL || o->root < n)
		return r;
	if (n == 0)
		diag_error("%s: --root=%zu: the outline is empty", o->spool,
			   o->root);
	else
		diag_error("%s: --root=%zu: no such outline line (the "
			   "outline has lines 0 to %zu)", o->spool, o->root,
			   n - 1);
	report_outline_free(r);
	return NULL;
}

/* Writes the report; returns the exit status. */
int
run_write_report(const struct options *o, const struct profile *p)
{
	struct report_outline *outline = NULL;
	struct timeline *tl = NULL;
	struct profile *views[3] = { NULL, NULL, NULL };
	struct outfile out;

	if (o->report == REPORT_OUTLINE &&
	    !(outline = prepare_outline(o, p)))
		return EXIT_USAGE;
	if (o->report == REPORT_EXPORT && export_binary(o->format) &&
	    !o->output && isatty(STDOUT_FILENO)) {
		diag_error("%s: --format=pprof is binary; not writing it to a "
			   "terminal (use -O FILE)", o->spool);
		report_outline_free(outline);
		return EXIT_USAGE;
	}
	if (o->report == REPORT_EXPORT && export_timeline(o->format) &&
	    !(tl = read_timeline(o, p))) {
		report_outline_free(outline);
		return 1;
	}
	int ret = -1;
	bool opened = false;
	if (!(o->report == REPORT_EXPORT && export_space_views(o->format) &&
	      read_space_views(o, p, views) < 0) &&
	    outfile_open(&out, o->output) == 0) {
		opened = true;
		ret = write_body(out.fp, o, p, outline, tl, views);
	}
	report_outline_free(outline);
	timeline_free(tl);
	for (int v = 0; v < 3; v++)
		if (views[v] != p)
			profile_free(views[v]);
	if (!opened)
		return 1;
	if (ret < 0) {
		outfile_abort(&out);
		return 1;
	}
	return outfile_commit(&out) < 0 ? 1 : 0;
}

/* --processes: the tree under each SPOOL. */
static int
write_processes(const struct options *o)
{
	struct outfile out;
	int ret = 0;

	if (outfile_open(&out, o->output) < 0)
		return 1;
	struct family_window w = { o->load.from_ns, o->load.to_ns };
	for (size_t i = 0; i < o->nspools; i++) {
		struct family f;
		if (family_read_window(&f, o->spools[i], true,
				       o->load.window ? &w : NULL) < 0) {
			ret = 1;
			break;
		}
		if (i)
			fputc('\n', out.fp);
		report_processes_write(out.fp, &f);
		family_free(&f);
	}
	if (ret) {
		outfile_abort(&out);
		return ret;
	}
	return outfile_commit(&out) < 0 ? 1 : 0;
}

/* The annotation of --disassemble's and --list's functions, found in p
 * (an outline line number or an [inlined] frame in shown, when not
 * NULL), their hits read again from the spools at paths[0..n). Returns
 * the exit status. */
static int
write_annotation(struct options *o, const struct profile *p,
		 struct profile *shown, char **paths, size_t n)
{
	struct report_outline_opts oo = {
		.threshold_pct = o->threshold_pct,
		.root = REPORT_OUTLINE_ALL,
		.max_indent = REPORT_OUTLINE_ALL,
		.max_depth = o->max_depth,
	};
	struct report_outline *outline = report_outline_new(shown ? shown : p,
							    &oo);
	struct annotate_opts ao = {
		.disassemble = o->disassemble, .ndisassemble = o->ndisassemble,
		.list = o->list, .nlist = o->nlist, .intel = o->intel,
		.spool = o->spool, .paths = paths, .npaths = n,
		.load = &o->load, .hide = &o->hide, .shown = shown,
		.outline = outline,
	};
	struct annotate *a = annotate_new(p, &ao);
	struct outfile out;
	int ret = a ? EXIT_FAILURE : EXIT_USAGE;

	if (a && outfile_open(&out, o->output) == 0) {
		ret = annotate_write(out.fp, a) < 0 ? EXIT_FAILURE : 0;
		if (outfile_commit(&out) < 0)
			ret = EXIT_FAILURE;
	}
	annotate_free(a);
	report_outline_free(outline);
	return ret;
}

/* --disassemble and --list: the functions are found in p (an error
 * before any output when one is not), then the spools read again for
 * their hits. Returns the exit status. */
static int
write_annotate(struct options *o, const struct profile *p)
{
	struct family *fams = xcalloc(o->nspools, sizeof(*fams));
	size_t n;
	int ret = EXIT_FAILURE;
	struct profile *shown = NULL;
	/* (Read before: what there was to warn about was said.) */
	diag_set_quiet(true);
	char **paths = spools_paths(o, fams, &n);
	/* The profile the other reports show, whose outline lines and
	 * [inlined] frames a FUNCTION may name. */
	if (paths && o->shown_inline) {
		o->load.resolve.no_inline = false;
		shown = spools_load(o, &ret);
		o->load.resolve.no_inline = true;
		if (shown)
			shown = hide_apply_take(shown, &o->hide);
	}
	diag_set_quiet(false);
	if (paths && (!o->shown_inline || shown))
		ret = write_annotation(o, p, shown, paths, n);
	profile_free(shown);
	for (size_t i = 0; i < o->nspools; i++)
		family_free(&fams[i]);
	free(paths);
	free(fams);
	return ret;
}

/* An empty profile of the first process of a fork/exec tree (profrun --
 * sh -c ...) whose work was done by the children: says where the
 * samples are. Only without --children, and only when the spools beside
 * the operands have samples of the kind shown. */
static void
children_hint(const struct options *o, const struct profile *p)
{
	size_t nchildren = 0;
	uint64_t samples = 0;

	/* (An empty window says nothing of where the samples are.) */
	if (o->children || p->hdr.samples || o->load.window)
		return;
	for (size_t i = 0; i < o->nspools; i++) {
		struct family f;
		if (family_read(&f, o->spools[i], true) < 0)
			continue;
		for (size_t k = 1; k < f.n; k++)
			samples += p->hdr.kind == PROFILE_KIND_SPACE ?
					   f.procs[k].allocs :
					   f.procs[k].samples;
		nchildren += f.n ? f.n - 1 : 0;
		family_free(&f);
	}
	if (samples)
		diag_note("%s: 0 samples here; %zu child process%s wrote "
			  "spools with %llu samples: use --children (or "
			  "--processes to list them)", o->spool, nchildren,
			  nchildren == 1 ? "" : "es",
			  (unsigned long long)samples);
}

/* The report of the spools (neither --follow nor --diff): loaded,
 * checked against the report chosen, hidden functions collapsed,
 * written. */
int
run_report(struct options *o)
{
	if (o->report == REPORT_PROCESSES)
		return write_processes(o);
	int status = EXIT_FAILURE;
	struct profile *p = spools_load(o, &status);
	if (!p)
		return status;
	children_hint(o, p);
	if (p->hdr.kind == PROFILE_KIND_SPACE && o->report == REPORT_GRAPH &&
	    o->racket) {
		diag_error("%s: --style=racket shows time profiles only; this "
			   "is a space profile (use the allegro style)", o->spool);
		profile_free(p);
		return EXIT_USAGE;
	}
	/* Every report reads the profile with hidden functions collapsed,
	 * which replaces the one loaded. (The call counts have no stacks to
	 * collapse, and the collapsed copy leaves out their per-thread
	 * figures.) */
	if (o->report != REPORT_CALL_COUNTS && o->report != REPORT_THREADS)
		p = hide_apply_take(p, &o->hide);
	int ret = o->report == REPORT_ANNOTATE ? write_annotate(o, p) :
						 run_write_report(o, p);
	profile_free(p);
	return ret;
}
