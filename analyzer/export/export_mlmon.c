/*
 * export_mlmon: MLton's mlmon.out (see export.h).
 *
 * The file is counts without names: MLton's mlprof finds the names in
 * the executable the magic number identifies. Ours are found by index:
 *   - the split functions are the functions of the --json report, in
 *     its order (same options, same spool): the flat report's functions
 *     by self weight, then the markers of cut stacks. With --lines a
 *     function split by source line is one split function per line, as
 *     MLton splits a function per copy of its code;
 *   - the master functions are the symbols the split functions belong to,
 *     in the order of their first split function: the lines of one
 *     symbol (same module and address) share a master; any other function
 *     is a master of its own. Without --lines the two lists are equal.
 * Each line is "CURRENT STACK 0" (stack style, always): CURRENT is what
 * the function had at the top of the stack (self), STACK what it had on
 * the stack, each sample counted once however often the function occurs
 * on it (total). The GC columns are 0: a native program has no
 * collector we could see.
 *
 * Time profiles are "time": a tick is a sample, whatever CPU time its
 * weight stands for. Space profiles are "alloc": counts are bytes (the
 * view's sampled bytes, their weights), as MLton counts bytes allocated.
 * The totals line is all ticks (or bytes) and 0 GC ticks; samples with
 * no frame at all (none come from profrun) count in the total only.
 *
 * mlmon-count is MLton's "count" kind (mlton -profile count) in "current"
 * style: one figure per function, its exact calls (profile_add_calls),
 * 0 for a function whose calls were not counted; the functions and
 * masters are the same lists as above, and the totals line is all calls
 * of the split functions and 0.
 *
 * The magic number is the first four bytes of the executable's build-id,
 * big-endian (the first eight hex digits `file` shows): the executable is
 * the module whose path is the spool's executable. Without one, or
 * without its build-id, the magic is 0x00000000.
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

struct mlmon_count {
	uint64_t current, stack;
};

/* Named code with a module: its lines share a master by (module, addr). */
static bool
has_symbol(const struct profile_func *f)
{
	return f->module != PROFILE_NONE &&
	       !(f->flags & (PROFILE_FUNC_UNNAMED | PROFILE_FUNC_PSEUDO |
			     PROFILE_FUNC_ELLIPSIS));
}

/* What the sort of split functions by symbol needs. */
struct symsort {
	const struct profile *p;
	const uint32_t *ids; /* split index -> function */
};

static int
cmp_symbol(const void *pa, const void *pb, void *arg)
{
	const struct symsort *c = arg;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct profile_func *fa = &c->p->funcs[c->ids[a]];
	const struct profile_func *fb = &c->p->funcs[c->ids[b]];

	if (fa->module != fb->module)
		return fa->module < fb->module ? -1 : 1;
	if (fa->addr != fb->addr)
		return fa->addr < fb->addr ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* master[i]: the master function of split i, numbered in the order of
 * first splits. Returns the number of masters. */
static size_t
assign_masters(const struct profile *p, const uint32_t *ids, size_t n,
	       uint32_t *master)
{
	uint32_t *first = xcalloc(n ? n : 1, sizeof(*first));
	uint32_t *sym = xcalloc(n ? n : 1, sizeof(*sym));
	struct symsort c = { p, ids };
	size_t k = 0, nmasters = 0;

	/* first[i]: the earliest split of i's symbol (i itself if none). */
	for (size_t i = 0; i < n; i++) {
		first[i] = (uint32_t)i;
		if (has_symbol(&p->funcs[ids[i]]))
			sym[k++] = (uint32_t)i;
	}
	qsort_r(sym, k, sizeof(*sym), cmp_symbol, &c);
	for (size_t i = 1; i < k; i++) {
		const struct profile_func *a = &p->funcs[ids[sym[i - 1]]];
		const struct profile_func *b = &p->funcs[ids[sym[i]]];
		if (a->module == b->module && a->addr == b->addr)
			first[sym[i]] = first[sym[i - 1]];
	}
	for (size_t i = 0; i < n; i++)
		master[i] = first[i] == i ? (uint32_t)nmasters++
					  : master[first[i]];
	free(first);
	free(sym);
	return nmasters;
}

/* A figure in the file's unit: bytes (the weight) in a space profile,
 * samples in a time profile. */
static uint64_t
in_unit(const struct profile *p, uint64_t weight, uint64_t samples)
{
	return p->hdr.kind == PROFILE_KIND_SPACE ? weight : samples;
}

/* The masters' stack counts: a preorder walk of the tree that credits a
 * node's total to its master where no ancestor has the same master, so
 * that each sample counts once per master (as profile_finish() does per
 * function). on[m] counts m's occurrences on the current path. */
static void
master_stack(const struct profile *p, const uint32_t *master_of_func,
	     struct mlmon_count *m, size_t nmasters)
{
	uint32_t *on = xcalloc(nmasters ? nmasters : 1, sizeof(*on));
	uint32_t x = p->nodes[PROFILE_ROOT].first_child;

	while (x != PROFILE_NONE) {
		uint32_t k = master_of_func[p->nodes[x].func];
		if (k != PROFILE_NONE && on[k]++ == 0)
			m[k].stack += in_unit(p, p->nodes[x].total,
					      p->nodes[x].total_samples);
		if (p->nodes[x].first_child != PROFILE_NONE) {
			x = p->nodes[x].first_child;
			continue;
		}
		/* Leave x and the ancestors it ends, up to a next sibling. */
		for (;;) {
			k = master_of_func[p->nodes[x].func];
			if (k != PROFILE_NONE)
				on[k]--;
			if (p->nodes[x].next_sibling != PROFILE_NONE) {
				x = p->nodes[x].next_sibling;
				break;
			}
			x = p->nodes[x].parent;
			if (x == PROFILE_ROOT) {
				x = PROFILE_NONE;
				break;
			}
		}
	}
	free(on);
}

/* The first four bytes of the executable's build-id, or 0. */
static uint32_t
magic(const struct profile *p)
{
	uint32_t v = 0;

	if (!p->hdr.exe)
		return 0;
	for (size_t i = 0; i < p->nmodules; i++) {
		const struct profile_module *mod = &p->modules[i];
		if (strcmp(mod->path, p->hdr.exe) != 0 || !mod->build_id)
			continue;
		for (size_t b = 0; b < 4; b++)
			v = v << 8 | (b < mod->build_id_len ? mod->build_id[b]
							    : 0u);
		return v;
	}
	return 0;
}

static void
put_counts(FILE *out, const struct mlmon_count *c, size_t n)
{
	fprintf(out, "%zu\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%llu %llu 0\n", (unsigned long long)c[i].current,
			(unsigned long long)c[i].stack);
}

int
export_mlmon_write(FILE *out, const struct profile *p,
		   const struct export_opts *opts)
{
	size_t n, nf = p->nfuncs ? p->nfuncs : 1;
	uint32_t *ids = profile_funcs_listed(p, &n);
	size_t cap = n ? n : 1;
	uint32_t *master = xcalloc(cap, sizeof(*master));
	uint32_t *master_of_func = xmalloc(nf * sizeof(*master_of_func));
	struct mlmon_count *split = xcalloc(cap, sizeof(*split));
	struct mlmon_count *mast = xcalloc(cap, sizeof(*mast));

	(void)opts;
	size_t nmasters = assign_masters(p, ids, n, master);
	memset(master_of_func, 0xff, nf * sizeof(*master_of_func));
	for (size_t i = 0; i < n; i++) {
		const struct profile_func *f = &p->funcs[ids[i]];
		split[i].current = in_unit(p, f->self, f->self_samples);
		split[i].stack = in_unit(p, f->total, f->total_samples);
		mast[master[i]].current += split[i].current;
		master_of_func[ids[i]] = master[i];
	}
	master_stack(p, master_of_func, mast, nmasters);

	fprintf(out, "MLton prof\n%s\nstack\n0x%08x\n%llu 0\n",
		p->hdr.kind == PROFILE_KIND_SPACE ? "alloc" : "time", magic(p),
		(unsigned long long)in_unit(p, p->hdr.weight, p->hdr.samples));
	put_counts(out, split, n);
	put_counts(out, mast, nmasters);
	free(ids);
	free(master);
	free(master_of_func);
	free(split);
	free(mast);
	return 0;
}

int
export_mlmon_count_write(FILE *out, const struct profile *p,
			 const struct export_opts *opts)
{
	size_t n;
	uint32_t *ids = profile_funcs_listed(p, &n);
	size_t cap = n ? n : 1;
	uint32_t *master = xcalloc(cap, sizeof(*master));
	uint64_t *mast = xcalloc(cap, sizeof(*mast));
	uint64_t all = 0;

	(void)opts;
	size_t nmasters = assign_masters(p, ids, n, master);
	for (size_t i = 0; i < n; i++) {
		uint64_t c = p->funcs[ids[i]].calls;
		mast[master[i]] += c;
		all += c;
	}
	fprintf(out, "MLton prof\ncount\ncurrent\n0x%08x\n%llu 0\n%zu\n",
		magic(p), (unsigned long long)all, n);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%llu\n",
			(unsigned long long)p->funcs[ids[i]].calls);
	fprintf(out, "%zu\n", nmasters);
	for (size_t i = 0; i < nmasters; i++)
		fprintf(out, "%llu\n", (unsigned long long)mast[i]);
	free(ids);
	free(master);
	free(mast);
	return 0;
}
