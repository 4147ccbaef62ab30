/*
 * export_callgrind_pc: the callgrind export from the samples by program
 * counter (export_opts.pcs, pcprof.h), so that callgrind_annotate
 * --auto=yes and KCachegrind's source view show the cost of each line.
 *
 * The costs and calls are those of export_callgrind.c (whose top comment
 * says how a sample is charged to the outermost activation of each
 * function, and how <spontaneous> calls the outermost frames), but at
 * the positions of their PCs: a function (fn=) is the one its PCs'
 * symbol names, in the object (ob=) of its module and the file (fl=) of
 * its source; each self cost line is at the source line of its PC,
 * under fi= when that line is in another file (code inlined from a
 * header, or from a function of another file), fe= back to the
 * function's own (callgrind_annotate then lists that cost as the
 * function's in the other file, as it does for Callgrind's own output);
 * a call is written at the outermost line of its return address (the
 * line of the outermost inlined call when inlined code made the call),
 * with a cost line of zeros there too. A function is named by its
 * symbol and its fl= is the file DWARF declares it in. With
 * export_opts.addresses the positions are "instr line", the instruction
 * being the PC's address in its ELF file (objdump's addresses), which
 * KCachegrind's assembly view reads. Functions are keyed by object,
 * file and name; a PC without line information is at line 0 of "???".
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "hmap.h"
#include "pcprof.h"
#include "textesc.h"
#include "xmalloc.h"

#define SPONT UINT32_MAX /* the location of <spontaneous> calls */

/* Names compressed as "(id) name" once, then "(id)". */
struct names {
	const char **v; /* v[id - 1] */
	bool *named; /* named[id] */
	size_t n, cap, named_cap;
	struct hmap index;
};

struct cgfunc {
	const char *ob, *fl, *name;
	uint32_t line; /* where it is declared, 0 unknown */
	bool fn_named;
};

/* A cost: self (callee NONE) or a call, at a location of fn. */
struct cgcost {
	uint32_t fn, loc, callee;
	uint64_t weight, samples;
};

struct cgpc {
	FILE *out;
	const struct pcprof *pc;
	bool addresses;
	struct cgfunc *funcs;
	size_t nfuncs, funcs_cap;
	struct hmap func_index, cost_index;
	uint32_t *loc_func; /* per location: its function */
	struct cgcost *costs;
	size_t ncosts, costs_cap;
	/* File names (one id for fl=, fi=, fe= and cfi=) and objects. */
	struct names files, obs;
	uint32_t spont;
};

static uint32_t
func_id(struct cgpc *c, const char *ob, const char *fl, const char *name,
	uint32_t line)
{
	bool found;
	uint64_t h = hmap_hash_str(
		hmap_hash_str(hmap_hash_str(HMAP_HASH_INIT, ob) ^ 1, fl) ^ 2,
		name);
	for (;; h++) {
		uint64_t *v = hmap_ref(&c->func_index, h, &found);
		if (found) {
			const struct cgfunc *f = &c->funcs[*v];
			if (strcmp(f->ob, ob) || strcmp(f->fl, fl) ||
			    strcmp(f->name, name))
				continue;
			return (uint32_t)*v;
		}
		*v = c->nfuncs;
		xgrow(&c->funcs, &c->funcs_cap, c->nfuncs + 1,
		      sizeof(*c->funcs));
		c->funcs[c->nfuncs] =
			(struct cgfunc){ ob, fl, name, line, false };
		return (uint32_t)c->nfuncs++;
	}
}

/* The id of name (from 1) in t. */
static uint32_t
name_id(struct names *t, const char *name)
{
	bool found;
	for (uint64_t h = hmap_hash_str(HMAP_HASH_INIT, name);; h++) {
		uint64_t *v = hmap_ref(&t->index, h, &found);
		if (found && strcmp(t->v[*v], name))
			continue;
		if (!found) {
			*v = t->n;
			xgrow(&t->v, &t->cap, t->n + 1, sizeof(*t->v));
			t->v[t->n++] = name;
			xgrow_zeroed(&t->named, &t->named_cap, t->n + 1,
				     sizeof(*t->named));
		}
		return (uint32_t)*v + 1;
	}
}

static void
names_free(struct names *t)
{
	free(t->v);
	free(t->named);
	hmap_free(&t->index);
}

/* The innermost line of location k (its PC's own position). */
static const struct pcprof_line *
first_line(const struct pcprof *pc, uint32_t k)
{
	const struct pcprof_loc *l = &pc->locs[k];
	return l->nlines ? &pc->lines[l->line0] : NULL;
}

static const char *
line_file(const struct pcprof *pc, const struct pcprof_line *ln)
{
	return ln && pc->funcs[ln->func].file ? pc->funcs[ln->func].file :
						"???";
}

/* Each location's function: the last line's (its symbol's). */
static void
locate_functions(struct cgpc *c)
{
	const struct pcprof *pc = c->pc;

	c->loc_func = xcalloc(pc->nlocs + 1, sizeof(*c->loc_func));
	c->spont = func_id(c, "???", "???", "<spontaneous>", 0);
	for (uint32_t k = 0; k < pc->nlocs; k++) {
		const struct pcprof_loc *l = &pc->locs[k];
		const struct pcprof_func *f = &pc->funcs[l->decl];
		const char *ob = l->mapping == PCPROF_NONE ?
					 "???" :
					 pc->mappings[l->mapping].path;
		c->loc_func[k] = func_id(c, ob[0] ? ob : "???",
					 f->file ? f->file : "???", f->name,
					 f->start_line);
	}
}

static void
add_cost(struct cgpc *c, uint32_t fn, uint32_t loc, uint32_t callee,
	 const struct pcprof_sample *s)
{
	bool found;
	uint64_t h = hmap_hash_bytes(HMAP_HASH_INIT, &fn, sizeof(fn));
	h = hmap_hash_bytes(h, &loc, sizeof(loc));
	h = hmap_hash_bytes(h, &callee, sizeof(callee));
	for (;; h++) {
		uint64_t *v = hmap_ref(&c->cost_index, h, &found);
		if (found) {
			struct cgcost *k = &c->costs[*v];
			if (k->fn != fn || k->loc != loc || k->callee != callee)
				continue;
			k->weight += s->weight;
			k->samples += s->count;
			return;
		}
		*v = c->ncosts;
		xgrow(&c->costs, &c->costs_cap, c->ncosts + 1,
		      sizeof(*c->costs));
		c->costs[c->ncosts++] = (struct cgcost){
			fn, loc, callee, s->weight, s->count,
		};
		return;
	}
}

/* Charges each sample: self at its leaf, and each call that made the
 * outermost activation of a function on its stack (stamp[f] is the last
 * sample that charged a call into f). */
static void
collect(struct cgpc *c)
{
	const struct pcprof *pc = c->pc;
	uint32_t *stamp = xcalloc(c->nfuncs + 1, sizeof(*stamp));

	for (uint32_t i = 0; i < pc->nsamples; i++) {
		const struct pcprof_sample *s = &pc->samples[i];
		if (!s->depth)
			continue;
		const uint32_t *st = pc->stacks + s->stack0;
		add_cost(c, c->loc_func[st[0]], st[0], PCPROF_NONE, s);
		for (uint32_t d = s->depth; d-- > 0;) {
			uint32_t f = c->loc_func[st[d]];
			if (stamp[f] == i + 1)
				continue;
			stamp[f] = i + 1;
			if (d + 1 == s->depth)
				add_cost(c, c->spont, SPONT, f, s);
			else
				add_cost(c, c->loc_func[st[d + 1]], st[d + 1],
					 f, s);
		}
	}
	free(stamp);
}

/* By function in order of first use, then self before calls, then by
 * position. */
static int
cmp_cost(const void *pa, const void *pb, void *arg)
{
	const struct cgpc *c = arg;
	const struct cgcost *a = pa, *b = pb;
	if (a->fn != b->fn)
		return a->fn < b->fn ? -1 : 1;
	if ((a->callee == PCPROF_NONE) != (b->callee == PCPROF_NONE))
		return a->callee == PCPROF_NONE ? -1 : 1;
	if (a->loc != b->loc && a->loc != SPONT && b->loc != SPONT) {
		const struct pcprof_loc *x = &c->pc->locs[a->loc];
		const struct pcprof_loc *y = &c->pc->locs[b->loc];
		if (x->elf_addr != y->elf_addr)
			return x->elf_addr < y->elf_addr ? -1 : 1;
	}
	if (a->loc != b->loc)
		return a->loc < b->loc ? -1 : 1;
	return a->callee < b->callee ? -1 : a->callee > b->callee;
}

static void
put_ref(FILE *out, const char *key, size_t id, bool *named, const char *name)
{
	fprintf(out, "%s=(%zu)", key, id);
	if (!*named) {
		fputc(' ', out);
		textesc_put(out, name);
		*named = true;
	}
	fputc('\n', out);
}

static void
put_name(struct cgpc *c, struct names *t, const char *key, const char *name)
{
	uint32_t id = name_id(t, name);
	put_ref(c->out, key, id, &t->named[id], name);
}

static void
put_file(struct cgpc *c, const char *key, const char *name)
{
	put_name(c, &c->files, key, name);
}

/* The outermost line of location k: where its function made the call
 * (through the inlined calls, if any), in the function's own file. */
static const struct pcprof_line *
last_line(const struct pcprof *pc, uint32_t k)
{
	const struct pcprof_loc *l = &pc->locs[k];
	return l->nlines ? &pc->lines[l->line0 + l->nlines - 1] : NULL;
}

/* "[addr] line" of location k (SPONT: 0), at its outermost line for a
 * call. */
static void
put_position(struct cgpc *c, uint32_t k, bool call)
{
	const struct pcprof_line *ln = k == SPONT ? NULL :
				       call	  ? last_line(c->pc, k) :
						    first_line(c->pc, k);
	if (c->addresses)
		fprintf(c->out, "%#llx ",
			k == SPONT ?
				0ull :
				(unsigned long long)c->pc->locs[k].elf_addr);
	fprintf(c->out, "%u", ln ? ln->line : 0);
}

/* The file of a cost line: fi= when it is not the current one. */
static void
switch_file(struct cgpc *c, const char **cur, const char *want, const char *own)
{
	if (strcmp(*cur, want) == 0)
		return;
	put_file(c, strcmp(want, own) == 0 ? "fe" : "fi", want);
	*cur = want;
}

static void
write_costs(struct cgpc *c)
{
	const struct pcprof *pc = c->pc;
	FILE *out = c->out;
	const char *cur_ob = NULL, *cur_fl = "";
	uint32_t fn = UINT32_MAX;

	for (size_t i = 0; i < c->ncosts; i++) {
		const struct cgcost *k = &c->costs[i];
		struct cgfunc *f = &c->funcs[k->fn];
		if (k->fn != fn) {
			fputc('\n', out);
			if (!cur_ob || strcmp(cur_ob, f->ob))
				put_name(c, &c->obs, "ob", f->ob);
			put_file(c, "fl", f->fl);
			put_ref(out, "fn", k->fn + 1, &f->fn_named, f->name);
			cur_ob = f->ob;
			cur_fl = f->fl;
			fn = k->fn;
			/* A line of zeros in the function's own file, at its
			 * declaration: callgrind_annotate warns about a
			 * function's file that has no line of its own (all
			 * its code inlined from headers). */
			if (k->loc != SPONT) {
				if (c->addresses)
					fprintf(out, "%#llx ",
						(unsigned long long)pc
							->locs[k->loc]
							.elf_addr);
				fprintf(out, "%u 0 0\n", f->line);
			}
		}
		/* A call is at its line in the function's own file:
		 * callgrind_annotate counts no call cost in a file, and
		 * would find a file with calls alone empty. */
		bool call = k->callee != PCPROF_NONE;
		if (k->loc != SPONT)
			switch_file(
				c, &cur_fl,
				line_file(pc, call ? last_line(pc, k->loc) :
						     first_line(pc, k->loc)),
				f->fl);
		if (k->callee != PCPROF_NONE) {
			struct cgfunc *g = &c->funcs[k->callee];
			/* No cost of its own at the call's line, so that
			 * callgrind_annotate, which counts no call cost in
			 * a file, finds the file of calls alone not empty
			 * (it warns about one). */
			if (k->loc != SPONT) {
				put_position(c, k->loc, true);
				fputs(" 0 0\n", out);
			}
			put_name(c, &c->obs, "cob", g->ob);
			put_file(c, "cfi", g->fl);
			put_ref(out, "cfn", k->callee + 1, &g->fn_named,
				g->name);
			fprintf(out, "calls=%llu %s0\n",
				(unsigned long long)k->samples,
				c->addresses ? "0 " : "");
		}
		put_position(c, k->loc, call);
		fprintf(out, " %llu %llu\n", (unsigned long long)k->weight,
			(unsigned long long)k->samples);
	}
}

int
export_callgrind_pc_write(FILE *out, const struct profile *p,
			  const struct export_opts *opts)
{
	struct cgpc c = { .out = out,
			  .pc = opts->pcs,
			  .addresses = opts->addresses };

	locate_functions(&c);
	collect(&c);
	if (c.ncosts)
		qsort_r(c.costs, c.ncosts, sizeof(*c.costs), cmp_cost, &c);
	export_callgrind_header(out, p, opts, c.addresses);
	write_costs(&c);
	fprintf(out, "\ntotals: %llu %llu\n", (unsigned long long)p->hdr.weight,
		(unsigned long long)p->hdr.samples);
	free(c.funcs);
	hmap_free(&c.func_index);
	hmap_free(&c.cost_index);
	names_free(&c.files);
	names_free(&c.obs);
	free(c.loc_func);
	free(c.costs);
	return 0;
}
