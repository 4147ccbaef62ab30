/*
 * export_callgrind: the profile in the callgrind profile format, version
 * 1 (Valgrind's "Callgrind Format Specification"), which KCachegrind,
 * QCachegrind and callgrind_annotate read.
 *
 * The file has one cost position, the source line ("positions: line"),
 * and two events: for a time profile the weight in nanoseconds and the
 * number of samples, for a space profile the bytes and the number of
 * sampled allocations. Every function on some stack is one fn= block in
 * the object (ob=) of its module, and in the file (fl=) of its source
 * when --lines split it by line, else in "???", as Callgrind writes for
 * code without line information: naming the module there would make
 * callgrind_annotate read the binary as a source file to annotate.
 * Functions are named by their labels, unique in the profile, so
 * callgrind_annotate's "???:function" names stay unique. Names are
 * compressed ("fn=(3) name" once, then "fn=(3)").
 *
 * A block holds the function's self cost on one line, then one call
 * (cfn=, calls=, cost line) per callee with the inclusive cost of that
 * call. Callgrind counts a call's cost for nonrecursive calls only, and
 * its readers take a function's inclusive cost to be the sum of the
 * calls into it. So a sample is charged to the one call that made the
 * outermost activation of each function on its stack: the call from the
 * caller of that activation. A call back into a function already on the
 * stack (recursion, direct or through others) carries no cost and is not
 * written. The outermost frames of the stacks are called by a function
 * "<spontaneous>" (gprof's name for an unknown caller), which makes the
 * calls into every function add up to its total exactly, whether it was
 * the outermost frame of some stacks or not, and never count a sample
 * twice. calls= is the number of samples that saw the call: a sampling
 * profiler does not count calls.
 *
 * With the samples by program counter (export_opts.pcs), which
 * profanalyze gives it, export_callgrind_pc.c writes the same costs at
 * the source lines (and addresses) of their PCs instead.
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "textesc.h"
#include "xmalloc.h"

#define SPONTANEOUS_NAME "<spontaneous>"

/* The cost of the calls from caller to callee (see the top comment). */
struct call {
	uint32_t caller, callee;
	uint64_t weight, samples;
};

/* Function ids are the profile's, and nfuncs for <spontaneous>. */
struct callgrind {
	FILE *out;
	const struct profile *p;
	uint32_t spont;     /* p->nfuncs */
	uint32_t *ids;      /* exported functions, in writing order */
	size_t n;
	uint32_t *pos;      /* per function: its place in ids */
	uint32_t *file_id;  /* per function: its fl= id, from 1 */
	bool *file_named;   /* per fl= id: "(id) name" written */
	bool *fn_named;     /* per function */
	bool *ob_named;     /* per ob= slot (module, then "???") */
	struct call *calls;
	size_t ncalls, calls_cap;
};

/* The ob= slot of f: its module, or nmodules for none (named "???"). */
static size_t
ob_slot(const struct callgrind *c, uint32_t f)
{
	const struct profile *p = c->p;
	uint32_t m = f == c->spont ? PROFILE_NONE : p->funcs[f].module;
	if (m == PROFILE_NONE || !p->modules[m].path[0])
		return p->nmodules;
	return m;
}

static const char *
ob_name(const struct callgrind *c, size_t slot)
{
	return slot < c->p->nmodules ? c->p->modules[slot].path : "???";
}

/* The fl= name of f: its source file (--lines), else "???". */
static const char *
file_name(const struct callgrind *c, uint32_t f)
{
	if (f != c->spont && c->p->funcs[f].file)
		return c->p->funcs[f].file;
	return "???";
}

static const char *
func_name(const struct callgrind *c, uint32_t f)
{
	return f == c->spont ? SPONTANEOUS_NAME : c->p->funcs[f].label;
}

static uint32_t
line_of(const struct callgrind *c, uint32_t f)
{
	if (f == c->spont || !c->p->funcs[f].file)
		return 0;
	return c->p->funcs[f].line;
}

/* A name runs to the end of its line: a line break in it would end it,
 * and an escape sequence would reach the terminal of whoever reads the
 * file; control characters are written as \xNN (textesc.h). */
static void
put_name(FILE *out, const char *s)
{
	textesc_put(out, s);
}

/* "key=(id) name" the first time an id is used in its context, then
 * "key=(id)". */
static void
put_ref(FILE *out, const char *key, size_t id, bool *named,
	const char *name)
{
	fprintf(out, "%s=(%zu)", key, id);
	if (!*named) {
		fputc(' ', out);
		put_name(out, name);
		*named = true;
	}
	fputc('\n', out);
}

static int
cmp_file(const void *pa, const void *pb, void *arg)
{
	const struct callgrind *c = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	int r = strcmp(file_name(c, a), file_name(c, b));
	if (r)
		return r;
	return a < b ? -1 : a > b;
}

/* Numbers the distinct file names of the exported functions from 1. */
static void
number_files(struct callgrind *c)
{
	uint32_t *by_file = xcalloc(c->n + 1, sizeof(*by_file));
	uint32_t id = 0;

	memcpy(by_file, c->ids, c->n * sizeof(*by_file));
	qsort_r(by_file, c->n, sizeof(*by_file), cmp_file, c);
	for (size_t i = 0; i < c->n; i++) {
		if (!i || strcmp(file_name(c, by_file[i - 1]),
				 file_name(c, by_file[i])))
			id++;
		c->file_id[by_file[i]] = id;
	}
	c->file_named = xcalloc((size_t)id + 1, sizeof(*c->file_named));
	free(by_file);
}

static void
add_call(struct callgrind *c, struct hmap *index, uint32_t caller,
	 const struct profile_node *callee)
{
	bool found;
	uint64_t *v = hmap_ref(index, (uint64_t)caller << 32 | callee->func,
			       &found);
	if (!found) {
		*v = c->ncalls;
		xgrow(&c->calls, &c->calls_cap, c->ncalls + 1,
		      sizeof(*c->calls));
		c->calls[c->ncalls++] = (struct call){ caller, callee->func,
						       0, 0 };
	}
	c->calls[*v].weight += callee->total;
	c->calls[*v].samples += callee->total_samples;
}

/* Walks the calling-context tree depth first (without recursion: stacks
 * can be thousands of frames deep), charging each node that is the
 * outermost activation of its function on its path to the call from its
 * parent's function (<spontaneous> for the root's children). on[f]
 * counts f's activations on the current path. */
static void
collect_calls(struct callgrind *c)
{
	const struct profile *p = c->p;
	uint32_t *on = xcalloc(p->nfuncs + 1, sizeof(*on));
	struct hmap index;
	uint32_t n = p->nnodes ? p->nodes[PROFILE_ROOT].first_child
			       : PROFILE_NONE;

	hmap_init(&index);
	while (n != PROFILE_NONE) {
		const struct profile_node *nd = &p->nodes[n];
		if (!on[nd->func])
			add_call(c, &index,
				 nd->parent == PROFILE_ROOT
					 ? c->spont
					 : p->nodes[nd->parent].func,
				 nd);
		on[nd->func]++;
		if (nd->first_child != PROFILE_NONE) {
			n = nd->first_child;
			continue;
		}
		/* Leave n, and each ancestor whose last child it was. */
		for (;;) {
			on[p->nodes[n].func]--;
			if (p->nodes[n].next_sibling != PROFILE_NONE) {
				n = p->nodes[n].next_sibling;
				break;
			}
			n = p->nodes[n].parent;
			if (n == PROFILE_ROOT) {
				n = PROFILE_NONE;
				break;
			}
		}
	}
	hmap_free(&index);
	free(on);
}

/* Calls grouped by caller in writing order, heaviest first. */
static int
cmp_call(const void *pa, const void *pb, void *arg)
{
	const struct callgrind *c = arg;
	const struct call *a = pa, *b = pb;
	if (a->caller != b->caller)
		return c->pos[a->caller] < c->pos[b->caller] ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight > b->weight ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(func_name(c, a->callee), func_name(c, b->callee));
}

/* The functions in writing order: <spontaneous> when some stack has a
 * frame, then callers before callees, so the file reads top down. */
static void
order_functions(struct callgrind *c)
{
	const struct profile *p = c->p;
	size_t n;
	uint32_t *sorted = funcorder_sort(p, FUNCORDER_TOPOLOGICAL, &n);
	bool spont = p->nnodes &&
		     p->nodes[PROFILE_ROOT].first_child != PROFILE_NONE;

	c->ids = xcalloc(n + 1, sizeof(*c->ids));
	if (spont)
		c->ids[c->n++] = c->spont;
	memcpy(c->ids + c->n, sorted, n * sizeof(*sorted));
	c->n += n;
	free(sorted);
	/* A call from a function outside ids cannot be: it would sort
	 * last and not be written. */
	c->pos = xcalloc(p->nfuncs + 1, sizeof(*c->pos));
	memset(c->pos, 0xff, (p->nfuncs + 1) * sizeof(*c->pos));
	for (size_t i = 0; i < c->n; i++)
		c->pos[c->ids[i]] = (uint32_t)i;
}

void
export_callgrind_header(FILE *out, const struct profile *p,
			const struct export_opts *opts, bool addresses)
{
	const struct profile_header *h = &p->hdr;
	const char *positions = addresses ? "positions: instr line\n" :
					    "positions: line\n";
	static const char *const views[] = {
		[PROFILE_SPACE_ALLOC] = "bytes allocated",
		[PROFILE_SPACE_INUSE] = "bytes never freed",
		[PROFILE_SPACE_PEAK] = "bytes live at the peak of the heap",
	};

	fputs("# callgrind format\nversion: 1\n"
	      "creator: profanalyze (profrun)\n", out);
	if (h->has_process)
		fprintf(out, "pid: %u\n", h->pid);
	if (h->exe) {
		fputs("cmd: ", out);
		put_name(out, h->exe);
		fputc('\n', out);
	}
	fputs("desc: Spool: ", out);
	put_name(out, opts->name ? opts->name : "");
	fputc('\n', out);
	if (h->kind == PROFILE_KIND_SPACE) {
		unsigned v = h->space.view;
		fprintf(out, "desc: Profile: space, %s, %llu sampled "
			"allocation%s\n",
			v < sizeof(views) / sizeof(*views) ? views[v] : "bytes",
			(unsigned long long)h->samples,
			h->samples == 1 ? "" : "s");
		fputs(positions, out);
		fputs("event: bytes : Bytes\n"
		      "event: samples : Sampled allocations\n"
		      "events: bytes samples\n", out);
		return;
	}
	fprintf(out, "desc: Profile: time, %llu sample%s\n",
		(unsigned long long)h->samples, h->samples == 1 ? "" : "s");
	fputs(positions, out);
	fprintf(out, "event: ns : %s (nanoseconds)\n"
		"event: samples : Samples\n"
		"events: ns samples\n",
		h->clock == SPOOL_CLOCK_WALL ? "Elapsed real time"
					     : "CPU time");
}

/* The calls of function f, from calls[*next] on. */
static void
write_calls(struct callgrind *c, uint32_t f, size_t *next)
{
	FILE *out = c->out;

	for (; *next < c->ncalls && c->calls[*next].caller == f; ++*next) {
		const struct call *k = &c->calls[*next];
		size_t slot = ob_slot(c, k->callee);
		uint32_t fl = c->file_id[k->callee];
		put_ref(out, "cob", slot + 1, &c->ob_named[slot],
			ob_name(c, slot));
		put_ref(out, "cfi", fl, &c->file_named[fl],
			file_name(c, k->callee));
		put_ref(out, "cfn", k->callee + 1, &c->fn_named[k->callee],
			func_name(c, k->callee));
		fprintf(out, "calls=%llu %u\n%u %llu %llu\n",
			(unsigned long long)(k->samples ? k->samples : 1),
			line_of(c, k->callee), line_of(c, f),
			(unsigned long long)k->weight,
			(unsigned long long)k->samples);
	}
}

static void
body(struct callgrind *c)
{
	FILE *out = c->out;
	size_t cur_ob = SIZE_MAX, next = 0;
	uint32_t cur_fl = 0;

	for (size_t i = 0; i < c->n; i++) {
		uint32_t f = c->ids[i];
		size_t slot = ob_slot(c, f);

		fputc('\n', out);
		if (slot != cur_ob)
			put_ref(out, "ob", slot + 1, &c->ob_named[slot],
				ob_name(c, slot));
		if (c->file_id[f] != cur_fl)
			put_ref(out, "fl", c->file_id[f],
				&c->file_named[c->file_id[f]],
				file_name(c, f));
		cur_ob = slot;
		cur_fl = c->file_id[f];
		put_ref(out, "fn", f + 1, &c->fn_named[f], func_name(c, f));
		if (f != c->spont &&
		    (c->p->funcs[f].self || c->p->funcs[f].self_samples))
			fprintf(out, "%u %llu %llu\n", line_of(c, f),
				(unsigned long long)c->p->funcs[f].self,
				(unsigned long long)c->p->funcs[f].self_samples);
		write_calls(c, f, &next);
	}
}

int
export_callgrind_write(FILE *out, const struct profile *p,
		       const struct export_opts *opts)
{
	struct callgrind c = { .out = out, .p = p,
			       .spont = (uint32_t)p->nfuncs };

	order_functions(&c);
	c.file_id = xcalloc(p->nfuncs + 1, sizeof(*c.file_id));
	c.fn_named = xcalloc(p->nfuncs + 1, sizeof(*c.fn_named));
	c.ob_named = xcalloc(p->nmodules + 1, sizeof(*c.ob_named));
	number_files(&c);
	collect_calls(&c);
	if (c.ncalls) /* (calls is NULL then) */
		qsort_r(c.calls, c.ncalls, sizeof(*c.calls), cmp_call, &c);

	export_callgrind_header(out, p, opts, false);
	body(&c);
	fprintf(out, "\ntotals: %llu %llu\n", (unsigned long long)p->hdr.weight,
		(unsigned long long)p->hdr.samples);

	free(c.ids);
	free(c.pos);
	free(c.file_id);
	free(c.file_named);
	free(c.fn_named);
	free(c.ob_named);
	free(c.calls);
	return 0;
}
