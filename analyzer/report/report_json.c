/*
 * report_json: the JSON export (see report_json.h).
 *
 * Unknown figures are null rather than 0 (no footer: no CPU total and no
 * drop counts; no process record: no timer), so a program can tell "none"
 * from "not known". Seconds carry nine decimals: they are exact
 * nanosecond sums, not rounded displays.
 *
 * Besides the functions, the export holds the call graph (edges between
 * two functions) and the calling-context tree, both referring to
 * functions by their index in "functions" and to tree nodes by theirs in
 * "tree". Markers of cut stacks appear there too, so they come last in
 * "functions", flagged. Everything is read from the profile the text
 * reports read, after hiding.
 */
#include "report_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "report.h"
#include "space.h"
#include "spool.h"
#include "xmalloc.h"

#define SECONDS_DECIMALS 9
#define PCT_DECIMALS 4
#define HZ_DECIMALS 3
/* man/profanalyze.schema.json's version: raised when a field is removed or
 * changes meaning (a new field is no change to a reader). */
#define REPORT_JSON_SCHEMA_VERSION 1

static const char *
clock_name(uint32_t clock)
{
	switch (clock) {
	case SPOOL_CLOCK_CPU:
		return "cpu";
	case SPOOL_CLOCK_WALL:
		return "wall";
	default:
		return NULL;
	}
}

static void
key_uint_or_null(struct json *j, const char *key, bool known, uint64_t v)
{
	json_key(j, key);
	if (known)
		json_uint(j, v);
	else
		json_null(j);
}

static void
write_dropped(struct json *j, const struct profile_header *h)
{
	json_key(j, "dropped");
	if (!h->complete) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++) {
		json_key(j, spool_drop_name(c));
		if (h->drops_corrupt & (1u << c))
			json_null(j); /* the footer's count was corrupt */
		else
			json_uint(j, h->drops[c]);
	}
	json_end_object(j);
}

/* The call counts by function name, null when the spool has none. */
static void
write_call_counts(struct json *j, const struct profile_space *s)
{
	json_key(j, "call_counts");
	if (!s->has_calls) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	for (uint32_t id = 0; id < SPOOL_ALLOC_FN_MAX_; id++) {
		json_key(j, spool_alloc_fn_name(id));
		json_uint(j, s->calls[id]);
	}
	json_end_object(j);
}

/* A space profile's header: bytes, estimates with their expected errors
 * (the square root of the variance estimate, see space.h). */
static void
write_space_header(struct json *j, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	const struct profile_space *s = &h->space;

	json_key(j, "kind");
	json_string(j, "space");
	json_key(j, "view");
	json_string(j, space_view_name(s->view));
	json_key(j, "samples");
	json_uint(j, h->samples);
	json_key(j, "samples_taken");
	json_uint(j, s->alloc_records);
	key_uint_or_null(j, "interval_bytes", s->interval, s->interval);
	json_key(j, "allocated_bytes");
	json_double(j, s->alloc_bytes, 0);
	json_key(j, "allocated_bytes_error");
	json_double(j, sqrt(s->alloc_var), 0);
	json_key(j, "sampled_bytes");
	json_uint(j, h->weight);
	json_key(j, "sampled_bytes_error");
	json_double(j, sqrt(s->view_var), 0);
	json_key(j, "peak_seconds");
	if (s->view == PROFILE_SPACE_PEAK && h->start_mono_ns &&
	    s->peak_time_ns >= h->start_mono_ns)
		json_double(j, (double)(s->peak_time_ns - h->start_mono_ns) / 1e9,
			    SECONDS_DECIMALS);
	else
		json_null(j);
	json_key(j, "frees");
	json_uint(j, s->matched_frees);
	json_key(j, "untracked");
	json_uint(j, s->untracked);
}

static void
write_header(struct json *j, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	bool pr = h->has_process;
	double hz;

	if (h->kind == PROFILE_KIND_SPACE) {
		write_space_header(j, p);
		goto common;
	}
	json_key(j, "kind");
	json_string(j, "time");
	json_key(j, "samples");
	json_uint(j, h->samples);
	json_key(j, "samples_taken");
	json_uint(j, h->run_samples);
	key_uint_or_null(j, "period_ns", pr, h->period_ns);
	json_key(j, "timer");
	json_string(j, pr ? spool_timer_name(h->timer) : NULL);
	json_key(j, "clock");
	json_string(j, pr ? clock_name(h->clock) : NULL);
	key_uint_or_null(j, "requested_hz", pr, h->requested_hz);
	json_key(j, "delivered_hz");
	if (report_delivered_hz(h, &hz))
		json_double(j, hz, HZ_DECIMALS);
	else
		json_null(j);
	json_key(j, "cpu_seconds");
	if (h->complete)
		json_double(j, report_seconds(h->cpu_ns), SECONDS_DECIMALS);
	else
		json_null(j);
	json_key(j, "sampled_seconds");
	json_double(j, report_seconds(h->weight), SECONDS_DECIMALS);
	json_key(j, "blocked_seconds");
	json_double(j, report_seconds(h->offcpu_weight), SECONDS_DECIMALS);
common:
	key_uint_or_null(j, "pid", pr, h->pid);
	json_key(j, "spools");
	json_uint(j, h->spools ? h->spools : 1);
	/* --from/--to, seconds after the start; to null: the end. */
	json_key(j, "window");
	if (h->window) {
		json_begin_object(j);
		json_key(j, "from_seconds");
		json_double(j, (double)h->window_from_ns / 1e9,
			    SECONDS_DECIMALS);
		json_key(j, "to_seconds");
		if (h->window_to_ns == UINT64_MAX)
			json_null(j);
		else
			json_double(j, (double)h->window_to_ns / 1e9,
				    SECONDS_DECIMALS);
		json_end_object(j);
	} else {
		json_null(j);
	}
	json_key(j, "exe");
	json_string(j, h->exe);
	json_key(j, "threads");
	json_uint(j, report_threads(p));
	json_key(j, "complete");
	json_bool(j, h->complete);
	json_key(j, "user_mode_only");
	json_bool(j, (h->process_flags & SPOOL_PROCESS_USER_ONLY) != 0);
	json_key(j, "random_periods");
	json_bool(j, (h->process_flags & SPOOL_PROCESS_JITTER) != 0);
	/* Why the automatic choice passed perf over: null when it did not. */
	json_key(j, "perf_refused");
	json_string(j, !(h->process_flags & SPOOL_PROCESS_PERF_REFUSED) ? NULL :
		       h->process_flags & SPOOL_PROCESS_PERF_DENIED ? "denied" :
		       h->process_flags & SPOOL_PROCESS_PERF_NO_FD ? "descriptors" :
								      "failed");
	json_key(j, "ended");
	json_string(j, !h->complete ? NULL
		       : h->end_reason == SPOOL_END_EXIT ? "exit"
		       : h->end_reason == SPOOL_END_EXEC ? "exec"
		       : h->end_reason == SPOOL_END_SIGNAL ? "signal"
		       : h->end_reason == SPOOL_END__EXIT ? "_exit" : "unknown");
	json_key(j, "end_signal");
	if (h->complete && h->end_reason == SPOOL_END_SIGNAL)
		json_uint(j, h->end_signal);
	else
		json_null(j);
	write_dropped(j, h);
	/* The size limit (profrun --max-size) and when it stopped
	 * sampling, in seconds from the start: null when none, not reached. */
	key_uint_or_null(j, "max_size_bytes", h->size_limit, h->size_limit);
	json_key(j, "max_size_reached_seconds");
	if (h->size_limit_ns && h->start_mono_ns &&
	    h->size_limit_ns >= h->start_mono_ns)
		json_double(j, (double)(h->size_limit_ns - h->start_mono_ns) / 1e9,
			    SECONDS_DECIMALS);
	else
		json_null(j);
	json_key(j, "truncated_stacks");
	json_uint(j, h->truncated_stacks);
	json_key(j, "unwind_errors");
	json_uint(j, h->unwind_errors);
	json_key(j, "unresolved_samples");
	json_uint(j, h->unnamed_samples);
	/* (Spools written before call counting have none: the key is then
	 * left out of time profiles, whose exports keep their shape.) */
	if (h->kind == PROFILE_KIND_SPACE || h->space.has_calls)
		write_call_counts(j, &h->space);
	if (profile_has_calls(p) || h->calls_missed) {
		json_key(j, "calls_missed");
		json_uint(j, h->calls_missed);
	}
}

/* A weight under key: seconds (nine decimals) in a time profile, bytes
 * (whole, but for the fractional edge shares) in a space profile, whose
 * keys say "bytes" where the time keys say "seconds". */
static void
key_weight(struct json *j, const struct profile *p, const char *time_key,
	   const char *space_key, double w)
{
	if (p->hdr.kind == PROFILE_KIND_SPACE) {
		json_key(j, space_key);
		json_double(j, w, w == floor(w) ? 0 : 3);
	} else {
		json_key(j, time_key);
		json_double(j, w / 1e9, SECONDS_DECIMALS);
	}
}

static void
write_function(struct json *j, const struct profile *p, uint32_t id)
{
	const uint32_t marker = PROFILE_FUNC_PSEUDO | PROFILE_FUNC_ELLIPSIS;
	const struct profile_func *f = &p->funcs[id];
	uint64_t whole = p->hdr.weight;

	json_begin_object(j);
	json_key(j, "name");
	json_string(j, f->name);
	json_key(j, "module");
	json_string(j, profile_func_module(p, id));
	if (f->file) { /* --lines */
		json_key(j, "file");
		json_string(j, f->file);
		json_key(j, "line");
		json_uint(j, f->line);
	}
	if (f->version) { /* a versioned symbol */
		json_key(j, "symbol_version");
		json_string(j, f->version);
	}
	if (f->flags & PROFILE_FUNC_INLINED) { /* --inline */
		json_key(j, "inlined");
		json_bool(j, true);
	}
	key_weight(j, p, "self", "self", (double)f->self);
	key_weight(j, p, "total", "total", (double)f->total);
	json_key(j, "self_pct");
	json_double(j, report_pct(f->self, whole), PCT_DECIMALS);
	json_key(j, "total_pct");
	json_double(j, report_pct(f->total, whole), PCT_DECIMALS);
	json_key(j, "self_pct_err");
	json_double(j, report_pct_err(p, f->self, f->self_var), PCT_DECIMALS);
	json_key(j, "total_pct_err");
	json_double(j, report_pct_err(p, f->total, f->total_var),
		    PCT_DECIMALS);
	json_key(j, "self_samples");
	json_uint(j, f->self_samples);
	json_key(j, "total_samples");
	json_uint(j, f->total_samples);
	/* Exact counts exist only for the malloc-family wrappers. */
	int fn = space_wrapper_fn(p, id);
	json_key(j, "calls");
	if (f->flags & PROFILE_FUNC_COUNTED) /* -finstrument-functions */
		json_uint(j, f->calls);
	else if (fn >= 0 && p->hdr.space.has_calls)
		json_uint(j, p->hdr.space.calls[fn]);
	else
		json_null(j);
	json_key(j, "elided");
	json_bool(j, f->flags & PROFILE_FUNC_ELIDED);
	json_key(j, "marker");
	json_bool(j, f->flags & marker);
	json_end_object(j);
}

/* An edge's exact calls, in profiles that have counts (a spool without
 * them keeps the shape it had). */
static void
write_edge_calls(struct json *j, const struct profile *p,
		 const struct profile_edge *e)
{
	if (!profile_has_calls(p))
		return;
	json_key(j, "calls");
	if (e->counted)
		json_uint(j, e->calls);
	else
		json_null(j);
}

/* Every counted arc between two listed functions, sampled or not:
 * {"caller", "callee", "calls"}, by their places in "functions". */
static void
write_call_arcs(struct json *j, const struct profile *p, const uint32_t *pos,
		const bool *listed)
{
	if (!profile_has_calls(p))
		return;
	json_key(j, "call_arcs");
	json_begin_array(j);
	for (size_t i = 0; i < p->narcs; i++) {
		const struct profile_arc *a = &p->arcs[i];
		if (a->caller == PROFILE_NONE || !listed[a->caller] ||
		    !listed[a->callee])
			continue;
		json_begin_object(j);
		json_key(j, "caller");
		json_uint(j, pos[a->caller]);
		json_key(j, "callee");
		json_uint(j, pos[a->callee]);
		json_key(j, "calls");
		json_uint(j, a->count);
		json_end_object(j);
	}
	json_end_array(j);
}

static void
write_edges(struct json *j, const struct profile *p, const uint32_t *pos)
{
	json_key(j, "edges");
	json_begin_array(j);
	for (size_t i = 0; i < p->nedges; i++) {
		const struct profile_edge *e = &p->edges[i];
		if (e->caller == PROFILE_NONE || e->callee == PROFILE_NONE)
			continue;
		json_begin_object(j);
		json_key(j, "caller");
		json_uint(j, pos[e->caller]);
		json_key(j, "callee");
		json_uint(j, pos[e->callee]);
		key_weight(j, p, "seconds", "bytes", (double)e->weight);
		json_key(j, "samples");
		json_uint(j, e->samples);
		key_weight(j, p, "caller_seconds", "caller_bytes",
			   e->caller_time);
		key_weight(j, p, "callee_seconds", "callee_bytes",
			   e->callee_time);
		write_edge_calls(j, p, e);
		json_end_object(j);
	}
	json_end_array(j);
}

static void
write_hex(struct json *j, const uint8_t *b, size_t n)
{
	char *hex = xmalloc(2 * n + 1);

	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	json_string(j, hex);
	free(hex);
}

/* The modules functions live in, with the build-ids the spool recorded. */
static void
write_modules(struct json *j, const struct profile *p)
{
	json_key(j, "modules");
	json_begin_array(j);
	for (size_t i = 0; i < p->nmodules; i++) {
		const struct profile_module *m = &p->modules[i];
		json_begin_object(j);
		json_key(j, "path");
		json_string(j, m->path);
		json_key(j, "build_id");
		if (m->build_id)
			write_hex(j, m->build_id, m->build_id_len);
		else
			json_null(j);
		json_end_object(j);
	}
	json_end_array(j);
}

/* Each thread seen in the samples or records, in the order first seen. */
static void
write_thread_list(struct json *j, const struct profile *p)
{
	json_key(j, "thread_list");
	json_begin_array(j);
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct profile_thread *t = &p->threads[i];
		json_begin_object(j);
		json_key(j, "tid");
		json_uint(j, t->tid);
		json_key(j, "name");
		json_string(j, t->name);
		json_key(j, "samples");
		json_uint(j, t->samples);
		key_weight(j, p, "seconds", "bytes", (double)t->weight);
		uint64_t cpu = 0;
		bool missing = report_thread_unsampled(p, t, &cpu);
		if (p->hdr.kind != PROFILE_KIND_SPACE) {
			json_key(j, "cpu_seconds");
			if (t->has_cpu)
				json_double(j, report_seconds(t->cpu_ns), 6);
			else
				json_null(j);
			json_key(j, "unsampled");
			json_bool(j, missing);
		}
		json_end_object(j);
	}
	json_end_array(j);
}

static void
write_tree(struct json *j, const struct profile *p, const uint32_t *pos)
{
	json_key(j, "tree");
	json_begin_array(j);
	for (size_t i = 0; i < p->nnodes; i++) {
		const struct profile_node *n = &p->nodes[i];
		json_begin_object(j);
		json_key(j, "function");
		if (n->func == PROFILE_NONE)
			json_null(j);
		else
			json_uint(j, pos[n->func]);
		json_key(j, "parent");
		if (n->parent == PROFILE_NONE)
			json_null(j);
		else
			json_uint(j, n->parent);
		key_weight(j, p, "self", "self", (double)n->self);
		key_weight(j, p, "total", "total", (double)n->total);
		json_key(j, "self_samples");
		json_uint(j, n->self_samples);
		json_key(j, "total_samples");
		json_uint(j, n->total_samples);
		json_end_object(j);
	}
	json_end_array(j);
}

void
report_json_write(FILE *out, const struct profile *p)
{
	struct json j;
	size_t n;
	uint32_t *ids = profile_funcs_listed(p, &n);
	uint32_t *pos = xcalloc(p->nfuncs + 1, sizeof(*pos));
	bool *listed = xcalloc(p->nfuncs + 1, sizeof(*listed));

	for (size_t i = 0; i < n; i++) {
		pos[ids[i]] = (uint32_t)i;
		listed[ids[i]] = true;
	}
	json_init(&j, out);
	json_begin_object(&j);
	/* The version of man/profanalyze.schema.json this output follows. */
	json_key(&j, "schema_version");
	json_uint(&j, REPORT_JSON_SCHEMA_VERSION);
	write_header(&j, p);
	json_key(&j, "functions");
	json_begin_array(&j);
	for (size_t i = 0; i < n; i++)
		write_function(&j, p, ids[i]);
	json_end_array(&j);
	write_edges(&j, p, pos);
	write_call_arcs(&j, p, pos, listed);
	write_tree(&j, p, pos);
	write_modules(&j, p);
	write_thread_list(&j, p);
	json_end_object(&j);
	json_finish(&j);
	free(listed);
	free(pos);
	free(ids);
}
