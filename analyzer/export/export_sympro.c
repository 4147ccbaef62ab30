/*
 * export_sympro: the SymPro profiler front end's report_data.js (see
 * export.h and ../shared/reference/sympro-report-data-format.txt).
 *
 * SymPro records a trace of calls, each an ENTER and an EXIT event whose
 * metrics are counters read at that moment; its UI takes a call's
 * inclusive cost as the difference of the counters at its EXIT and its
 * ENTER, and its exclusive cost as that less its callees'. A sampling
 * profile has no calls, but its calling-context tree has the same shape:
 * every tree node becomes one call, depth-first, under one call "[root]"
 * that stands for the whole run (the UI wants a single outermost call).
 * The counters are synthesized so that each call spans exactly its
 * node's total weight: a node's own weight is spent first, then its
 * children follow one after the other, heaviest first. The spans are thus
 * exact; the order and the instants are not when anything happened.
 *
 * Metrics: "time" is the spec's required wall clock in milliseconds. In a
 * time profile it advances by the sampled CPU time (nanoseconds, written
 * with six decimals, so exact); in a space profile by one millisecond per
 * sampled byte, so the UI's time columns read as bytes; "bytes" carries
 * the same count under its own name there. "samples" counts the samples.
 * The clock starts at 0.
 *
 * Strings go through json.h, which emits raw UTF-8. JSON allows U+2028
 * and U+2029 raw in strings but JavaScript before ES2019 does not, so the
 * .js variant passes its output through a filter that escapes them.
 */
#include "export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "json.h"
#include "xmalloc.h"

#define ROOT_NAME "[root]"
#define MS_DECIMALS 6 /* nanoseconds */

/* ---- escaping U+2028 / U+2029 for JavaScript ---- */

/* A stdio filter over the real output: the three bytes of U+2028 and
 * U+2029 (only ever inside strings: everything else json.h writes is
 * ASCII) become \u2028 and \u2029; a sequence may be split across
 * writes, so up to two bytes of a candidate wait in pend. */
struct js_filter {
	FILE *out;
	unsigned char pend[2];
	size_t npend;
};

static void
js_flush_pending(struct js_filter *f)
{
	fwrite(f->pend, 1, f->npend, f->out);
	f->npend = 0;
}

static ssize_t
js_write(void *cookie, const char *buf, size_t size)
{
	struct js_filter *f = cookie;

	for (size_t i = 0; i < size; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (f->npend == 2 && (c == 0xa8 || c == 0xa9)) {
			fputs(c == 0xa8 ? "\\u2028" : "\\u2029", f->out);
			f->npend = 0;
			continue;
		}
		if (f->npend == 1 && c == 0x80) {
			f->pend[f->npend++] = c;
			continue;
		}
		if (f->npend)
			js_flush_pending(f);
		if (c == 0xe2)
			f->pend[f->npend++] = c;
		else
			fputc(c, f->out);
	}
	return (ssize_t)size;
}

static int
js_close(void *cookie)
{
	struct js_filter *f = cookie;
	js_flush_pending(f);
	free(f);
	return 0;
}

/* A stream writing through the filter to out, or NULL (errno set). */
static FILE *
js_filter_open(FILE *out)
{
	cookie_io_functions_t io = { .write = js_write, .close = js_close };
	struct js_filter *f = xcalloc(1, sizeof(*f));
	f->out = out;
	FILE *s = fopencookie(f, "w", io);
	if (!s)
		free(f);
	return s;
}

/* ---- the calling-context tree in export order ---- */

/* Each node's children, heaviest first (then by label): node x's are
 * kids[start[x] .. start[x + 1]). */
struct order {
	uint32_t *kids;
	uint32_t *start;
};

static void
order_build(struct order *o, const struct profile *p)
{
	size_t n = p->nnodes;
	uint32_t *fill = xcalloc(n + 1, sizeof(*fill));

	o->start = xcalloc(n + 1, sizeof(*o->start));
	o->kids = xcalloc(n ? n : 1, sizeof(*o->kids));
	for (size_t i = 1; i < n; i++)
		o->start[p->nodes[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		o->start[i + 1] += o->start[i];
	for (size_t i = 1; i < n; i++) {
		uint32_t par = p->nodes[i].parent;
		o->kids[o->start[par] + fill[par]++] = (uint32_t)i;
	}
	for (size_t i = 0; i < n; i++)
		qsort_r(o->kids + o->start[i], o->start[i + 1] - o->start[i],
			sizeof(*o->kids), profile_cmp_nodes_heaviest, (void *)p);
	free(fill);
}

static void
order_free(struct order *o)
{
	free(o->kids);
	free(o->start);
}

/* ---- messages ---- */

/* When the profiled run started, from the spool's process record, in
 * UTC, in the spec's "2018-06-26 10:22:25" form; "unknown" when the spool
 * does not say. */
static void
profile_time(const struct profile *p, char *buf, size_t len)
{
	struct tm tm;
	time_t t = (time_t)(p->hdr.start_realtime_ns / 1000000000u);

	if (!p->hdr.start_realtime_ns || !gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "unknown");
}

static void
write_metadata(struct json *j, const struct profile *p,
	       const struct export_opts *opts)
{
	char when[64];

	profile_time(p, when, sizeof(when));
	json_begin_object(j);
	json_key(j, "type");
	json_string(j, "metadata");
	json_key(j, "form");
	json_string(j, "");
	json_key(j, "name");
	json_string(j, opts->name ? opts->name : "");
	json_key(j, "source");
	json_string(j, p->hdr.exe ? p->hdr.exe : "");
	json_key(j, "time");
	json_string(j, when);
	json_key(j, "version");
	json_uint(j, 1);
	json_end_object(j);
}

/* The counters at one instant of the synthesized run. */
struct clock {
	uint64_t weight;  /* ns or bytes */
	uint64_t samples;
};

static void
write_metrics(struct json *j, const struct profile *p, struct clock c)
{
	json_key(j, "metrics");
	json_begin_object(j);
	json_key(j, "time");
	if (p->hdr.kind == PROFILE_KIND_SPACE) {
		json_uint(j, c.weight);
		json_key(j, "bytes");
		json_uint(j, c.weight);
	} else {
		json_double(j, (double)c.weight / 1e6, MS_DECIMALS);
	}
	json_key(j, "samples");
	json_uint(j, c.samples);
	json_end_object(j);
}

static void
empty_signature(struct json *j, const char *key)
{
	json_key(j, key);
	json_begin_object(j);
	json_key(j, "signature");
	json_begin_array(j);
	json_end_array(j);
	json_end_object(j);
}

/* "<file>:<line>:<column>" of a function split by line (--lines), whose
 * column is unknown (0, Racket's first column), or false. */
static void
write_srcloc(struct json *j, const char *key, const struct profile *p,
	     uint32_t func)
{
	json_key(j, key);
	if (func == PROFILE_NONE || !p->funcs[func].file) {
		json_bool(j, false);
		return;
	}
	char *s = xasprintf("%s:%u:0", p->funcs[func].file,
			    p->funcs[func].line);
	json_string(j, s);
	free(s);
}

/* ENTER of node x, the id-th call. With --lines the caller's function is
 * the line that made the call: the call site. */
static void
write_enter(struct json *j, const struct profile *p, uint32_t x, uint64_t id,
	    struct clock c)
{
	const struct profile_node *n = &p->nodes[x];
	uint32_t caller = n->parent == PROFILE_NONE ? PROFILE_NONE
			  : p->nodes[n->parent].func;

	json_begin_object(j);
	empty_signature(j, "inputs");
	write_metrics(j, p, c);
	write_srcloc(j, "callsite", p, caller);
	json_key(j, "function");
	json_string(j, n->func == PROFILE_NONE ? ROOT_NAME
		       : p->funcs[n->func].label);
	json_key(j, "type");
	json_string(j, "ENTER");
	json_key(j, "id");
	json_uint(j, id);
	write_srcloc(j, "source", p, n->func);
	json_end_object(j);
}

static void
write_exit(struct json *j, const struct profile *p, struct clock c)
{
	json_begin_object(j);
	write_metrics(j, p, c);
	json_key(j, "type");
	json_string(j, "EXIT");
	empty_signature(j, "outputs");
	json_end_object(j);
}

/* A call in progress in the depth-first walk: its node and the index of
 * the next child to enter. */
struct frame {
	uint32_t node;
	uint32_t next;
};

/* The events of the whole tree, depth-first without recursion (stacks
 * can be thousands of frames deep). */
static void
write_events(struct json *j, const struct profile *p, const struct order *o)
{
	struct frame *st = NULL;
	size_t depth = 0, cap = 0;
	struct clock c = { 0, 0 };
	uint64_t id = 0;

	if (!p->nnodes)
		return;
	xgrow(&st, &cap, 1, sizeof(*st));
	st[depth++] = (struct frame){ PROFILE_ROOT, o->start[PROFILE_ROOT] };
	write_enter(j, p, PROFILE_ROOT, id++, c);
	c.weight += p->nodes[PROFILE_ROOT].self;
	c.samples += p->nodes[PROFILE_ROOT].self_samples;
	while (depth) {
		struct frame *f = &st[depth - 1];
		if (f->next == o->start[f->node + 1]) {
			write_exit(j, p, c);
			depth--;
			continue;
		}
		uint32_t x = o->kids[f->next++];
		write_enter(j, p, x, id++, c);
		c.weight += p->nodes[x].self;
		c.samples += p->nodes[x].self_samples;
		xgrow(&st, &cap, depth + 1, sizeof(*st));
		st[depth++] = (struct frame){ x, o->start[x] };
	}
	free(st);
}

static void
write_messages(FILE *out, const struct profile *p,
	       const struct export_opts *opts)
{
	struct json j;
	struct order o;

	order_build(&o, p);
	json_init(&j, out);
	json_begin_array(&j);
	write_metadata(&j, p, opts);
	json_begin_object(&j);
	json_key(&j, "type");
	json_string(&j, "callgraph");
	json_key(&j, "events");
	json_begin_array(&j);
	write_events(&j, p, &o);
	json_end_array(&j);
	json_end_object(&j);
	json_end_array(&j);
	order_free(&o);
}

int
export_sympro_write(FILE *out, const struct profile *p,
		    const struct export_opts *opts, bool bare)
{
	if (bare) {
		write_messages(out, p, opts);
		fputc('\n', out);
		return 0;
	}
	FILE *js = js_filter_open(out);
	if (!js) {
		diag_error("%s: cannot write report_data.js: %s", opts->name,
			   strerror(errno));
		return -1;
	}
	fputs("data.receiveData(", js);
	write_messages(js, p, opts);
	fputs(");\n", js);
	fclose(js);
	return 0;
}
