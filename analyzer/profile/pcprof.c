/*
 * pcprof: the profile by program counter (see pcprof.h).
 *
 * Collection keeps, per location, the name of the function the profile
 * gave its PC; the source lines are looked up at the end, one module file
 * at a time, so each file's DWARF is opened once.
 */
#include "pcprof.h"

#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "elfsym.h"
#include "hmap.h"
#include "modmap.h"
#include "spool.h"
#include "srcline.h"
#include "xmalloc.h"

#define MAX_INLINE 32

enum {
	FN_UNSEEN = 0,
	FN_SHOWN,
	FN_HIDDEN
};

struct pcprof_state {
	const struct pcprof_opts *o;
	/* Per spool read: per function of the loader's profile, FN_*. */
	uint8_t *fstate;
	size_t fstate_cap;
	/* Over all reads. */
	struct hmap mapping_index, loc_index, func_index, sample_index;
	char **outer; /* per location: the profile's name for it */
	size_t outer_cap;
	uint64_t *outer_addr; /* ... and that function's ELF address */
	size_t outer_addr_cap;
	uint32_t *scratch;
	size_t scratch_cap;
};

static uint8_t
func_state(struct pcprof_state *st, const struct profile *sp, uint32_t f)
{
	xgrow_zeroed(&st->fstate, &st->fstate_cap, (size_t)f + 1, 1);
	if (st->fstate[f] == FN_UNSEEN)
		st->fstate[f] = st->o->hide && hide_func(sp, st->o->hide, f) ?
					FN_HIDDEN :
					FN_SHOWN;
	return st->fstate[f];
}

static bool
same_mapping(const struct pcprof_mapping *m, const struct modmap_file *f,
	     uint64_t base, uint64_t start)
{
	return m->base == base && m->start == start &&
	       strcmp(m->path, f->path) == 0 &&
	       m->build_id_len == f->build_id_len &&
	       (!f->build_id_len ||
		memcmp(m->build_id, f->build_id, f->build_id_len) == 0);
}

#define PAGE 4096u

/* The range the kernel mapped for the segment of instance in holding pc
 * (as /proc/PID/maps shows it: whole pages, the offset rounded down as
 * the start), which is what pprof expects of a mapping. Returns false
 * when no segment holds pc. */
static bool
segment_range(const struct modmap_instance *in, uint64_t pc, uint64_t *start,
	      uint64_t *limit, uint64_t *offset)
{
	for (uint32_t s = 0; s < in->nsegs; s++) {
		const struct modmap_segment *sg = &in->segs[s];
		uint64_t lo = in->base + sg->vaddr;
		if (pc < lo || pc - lo >= sg->memsz)
			continue;
		*start = lo & ~(uint64_t)(PAGE - 1);
		*limit = (lo + sg->memsz + PAGE - 1) & ~(uint64_t)(PAGE - 1);
		*offset = sg->offset & ~(uint64_t)(PAGE - 1);
		return true;
	}
	return false;
}

/* The mapping of the segment holding pc in module instance ii of map
 * (the instance's whole range when no segment does). */
static uint32_t
mapping_of(struct pcprof *pc, const struct modmap *map, long ii, uint64_t pcv)
{
	struct pcprof_state *st = pc->st;
	const struct modmap_instance *in = &map->inst[ii];
	const struct modmap_file *f = &map->files[in->file];
	uint64_t start = 0, limit = 0, offset = 0;
	bool found;

	if (!segment_range(in, pcv, &start, &limit, &offset))
		start = limit = offset = 0;
	uint64_t h =
		hmap_hash_bytes(HMAP_HASH_INIT, &in->base, sizeof(in->base));
	h = hmap_hash_bytes(h, &start, sizeof(start));
	h = hmap_hash_str(h, f->path);
	for (;; h++) {
		uint64_t *v = hmap_ref(&st->mapping_index, h, &found);
		if (found &&
		    !same_mapping(&pc->mappings[*v], f, in->base, start))
			continue;
		if (found)
			return (uint32_t)*v;
		*v = pc->nmappings;
		xgrow(&pc->mappings, &pc->mappings_cap, pc->nmappings + 1,
		      sizeof(*pc->mappings));
		struct pcprof_mapping *m = &pc->mappings[pc->nmappings++];
		*m = (struct pcprof_mapping){
			.path = xstrdup(f->path),
			.base = in->base,
			.build_id_len = f->build_id_len,
			.start = start,
			.limit = limit,
			.offset = offset,
		};
		if (f->build_id_len) {
			m->build_id = xmalloc(f->build_id_len);
			memcpy(m->build_id, f->build_id, f->build_id_len);
		}
		return (uint32_t)*v;
	}
}

/* The location of addr in mapping (PCPROF_NONE: none, then name tells
 * locations apart), added when new. */
static uint32_t
loc_of(struct pcprof *pc, uint32_t mapping, uint64_t addr, uint64_t base,
       const char *name, uint64_t func_addr)
{
	struct pcprof_state *st = pc->st;
	bool found;
	uint64_t h = hmap_hash_bytes(HMAP_HASH_INIT, &addr, sizeof(addr));
	h = hmap_hash_bytes(h, &mapping, sizeof(mapping));
	if (mapping == PCPROF_NONE)
		h = hmap_hash_str(h, name);
	for (;; h++) {
		uint64_t *v = hmap_ref(&st->loc_index, h, &found);
		if (found) {
			const struct pcprof_loc *l = &pc->locs[*v];
			if (l->mapping != mapping || l->addr != addr ||
			    (mapping == PCPROF_NONE &&
			     strcmp(st->outer[*v], name) != 0))
				continue;
			return (uint32_t)*v;
		}
		*v = pc->nlocs;
		xgrow(&pc->locs, &pc->locs_cap, pc->nlocs + 1,
		      sizeof(*pc->locs));
		xgrow(&st->outer, &st->outer_cap, pc->nlocs + 1,
		      sizeof(*st->outer));
		pc->locs[pc->nlocs] = (struct pcprof_loc){
			.mapping = mapping,
			.addr = addr,
			.elf_addr = addr - base,
		};
		st->outer[pc->nlocs] = xstrdup(name);
		xgrow(&st->outer_addr, &st->outer_addr_cap, pc->nlocs + 1,
		      sizeof(*st->outer_addr));
		st->outer_addr[pc->nlocs] = func_addr;
		return (uint32_t)pc->nlocs++;
	}
}

static void
add_sample(struct pcprof *pc, const uint32_t *locs, uint32_t n, uint32_t tid,
	   uint64_t weight, uint64_t count)
{
	struct pcprof_state *st = pc->st;
	bool found;
	uint64_t h = hmap_hash_bytes(HMAP_HASH_INIT, &tid, sizeof(tid));
	h = hmap_hash_bytes(h, locs, n * sizeof(*locs));
	for (;; h++) {
		uint64_t *v = hmap_ref(&st->sample_index, h, &found);
		if (found) {
			struct pcprof_sample *s = &pc->samples[*v];
			if (s->tid != tid || s->depth != n ||
			    (n && memcmp(pc->stacks + s->stack0, locs,
					 n * sizeof(*locs)) != 0))
				continue;
			s->count += count;
			s->weight += weight;
			return;
		}
		*v = pc->nsamples;
		/* (A sample whose every frame is hidden has none: stacks
		 * may still be NULL.) */
		xgrow(&pc->stacks, &pc->stacks_cap, pc->nstacks + n,
		      sizeof(*pc->stacks));
		if (n)
			memcpy(pc->stacks + pc->nstacks, locs,
			       n * sizeof(*locs));
		xgrow(&pc->samples, &pc->samples_cap, pc->nsamples + 1,
		      sizeof(*pc->samples));
		pc->samples[pc->nsamples++] = (struct pcprof_sample){
			.stack0 = (uint32_t)pc->nstacks,
			.depth = n,
			.tid = tid,
			.count = count,
			.weight = weight,
		};
		pc->nstacks += n;
		return;
	}
}

static void
on_sample(void *arg, const struct loader_sample *ls)
{
	struct pcprof *pc = arg;
	struct pcprof_state *st = pc->st;
	const struct spool_sample *s = ls->s;
	const struct profile *sp = ls->prof;
	uint32_t n = 0;

	if (ls->n < s->depth)
		return;
	xgrow(&st->scratch, &st->scratch_cap, ls->n + 1, sizeof(*st->scratch));
	/* The PCs, leaf first, then the markers of a cut stack. */
	for (size_t i = 0; i < ls->n; i++) {
		uint32_t f = ls->stack[ls->n - 1 - i];
		if (func_state(st, sp, f) == FN_HIDDEN)
			continue;
		const char *name = sp->funcs[f].name;
		if (i >= s->depth) {
			st->scratch[n++] =
				loc_of(pc, PCPROF_NONE, 0, 0, name, 0);
			continue;
		}
		uint64_t pcv = spool_sample_pc(s, (uint32_t)i);
		uint64_t look = i > 0 && pcv ? pcv - 1 : pcv;
		long ii = modmap_lookup(ls->map, look, s->time_ns);
		if (ii < 0) {
			st->scratch[n++] =
				loc_of(pc, PCPROF_NONE, look, 0, name, 0);
			continue;
		}
		uint32_t m = mapping_of(pc, ls->map, ii, look);
		st->scratch[n++] = loc_of(pc, m, look, pc->mappings[m].base,
					  name, sp->funcs[f].addr);
	}
	add_sample(pc, st->scratch, n, s->tid, ls->weight, ls->count);
}

/* The function (name, file), added when new. */
static uint32_t
func_of(struct pcprof *pc, const char *name, const char *file,
	uint32_t start_line)
{
	bool found;
	uint64_t h = hmap_hash_str(HMAP_HASH_INIT, name);
	h = hmap_hash_str(h ^ 1, file ? file : "");
	for (;; h++) {
		uint64_t *v = hmap_ref(&pc->st->func_index, h, &found);
		if (found) {
			const struct pcprof_func *fn = &pc->funcs[*v];
			if (strcmp(fn->name, name) != 0 ||
			    strcmp(fn->file ? fn->file : "", file ? file : ""))
				continue;
			if (!fn->start_line)
				pc->funcs[*v].start_line = start_line;
			return (uint32_t)*v;
		}
		*v = pc->nfuncs;
		xgrow(&pc->funcs, &pc->funcs_cap, pc->nfuncs + 1,
		      sizeof(*pc->funcs));
		pc->funcs[pc->nfuncs] = (struct pcprof_func){
			.name = xstrdup(name),
			.file = file ? xstrdup(file) : NULL,
			.start_line = start_line,
		};
		return (uint32_t)pc->nfuncs++;
	}
}

static void
add_line(struct pcprof *pc, struct pcprof_loc *l, uint32_t func, uint32_t line)
{
	xgrow(&pc->lines, &pc->lines_cap, pc->nlines + 1, sizeof(*pc->lines));
	pc->lines[pc->nlines++] = (struct pcprof_line){ func, line };
	l->nlines++;
}

/* The lines of location k from sl (NULL: the function's name alone). */
static void
resolve_loc(struct pcprof *pc, uint32_t k, struct srcline *sl)
{
	struct pcprof_loc *l = &pc->locs[k];
	const char *outer = pc->st->outer[k];
	struct srcline_inline inl[MAX_INLINE];
	const char *file = NULL, *decl = NULL, *dir = NULL;
	unsigned line = 0, decl_line = 0;
	size_t nin = 0;
	char *files[MAX_INLINE + 2] = { NULL };

	l->line0 = (uint32_t)pc->nlines;
	if (sl) {
		if (!srcline_lookup(sl, l->elf_addr, &file, &line))
			file = NULL;
		nin = srcline_inlines(sl, l->elf_addr, inl, MAX_INLINE);
		/* Asked at the function's own address, not the PC's: the
		 * same answer for every PC of it (a PC in inlined code may
		 * have none). */
		uint64_t at = pc->st->outer_addr[k];
		if (!at || !srcline_function(sl, at, &decl, &decl_line))
			decl = NULL;
		dir = srcline_comp_dir(sl, l->elf_addr);
	}
	/* files[j]: the file of line j; the outer function's last. */
	files[0] = srcline_path(dir, file ? file : decl);
	for (size_t j = 0; j < nin; j++)
		files[j + 1] = srcline_path(dir, strcmp(inl[j].call_file, "?") ?
							inl[j].call_file :
							NULL);
	for (size_t j = 0; j <= nin; j++) {
		const char *name = j == nin ? outer : inl[j].name;
		unsigned ln = j == 0 ? (file ? line : 0) : inl[j - 1].call_line;
		add_line(pc, l,
			 func_of(pc, name, files[j], j == nin ? decl_line : 0),
			 ln);
	}
	l->decl = pc->lines[l->line0 + nin].func;
	if (decl) {
		char *d = srcline_path(dir, decl);
		l->decl = func_of(pc, outer, d, decl_line);
		free(d);
	}
	for (size_t j = 0; j <= nin; j++)
		free(files[j]);
	l->inlined = nin > 0;
	if (l->mapping != PCPROF_NONE) {
		pc->mappings[l->mapping].has_lines |= file != NULL;
		pc->mappings[l->mapping].has_inline |= nin > 0;
	}
}

/* Whether the mapping names a file that may hold DWARF ("[vdso]" and
 * "" have none on disk). */
static bool
on_disk(const struct pcprof_mapping *m)
{
	return m->path[0] == '/';
}

/* The source lines of every location, one mapping's file at a time;
 * mappings of the same file share its reader. */
static void
resolve_lines(struct pcprof *pc, const struct pcprof_opts *o)
{
	struct srcline **sl = xcalloc(pc->nmappings + 1, sizeof(*sl));
	struct elfsym **syms = xcalloc(pc->nmappings + 1, sizeof(*syms));

	for (size_t m = 0; srcline_available() && m < pc->nmappings; m++) {
		const struct pcprof_mapping *mp = &pc->mappings[m];
		for (size_t e = 0; e < m && !sl[m]; e++)
			if (sl[e] &&
			    strcmp(pc->mappings[e].path, mp->path) == 0 &&
			    pc->mappings[e].build_id_len == mp->build_id_len &&
			    (!mp->build_id_len ||
			     !memcmp(pc->mappings[e].build_id, mp->build_id,
				     mp->build_id_len)))
				sl[m] = sl[e];
		if (sl[m] || !on_disk(mp))
			continue;
		struct elfsym_opts eo = {
			.build_id = mp->build_id,
			.build_id_len = mp->build_id_len,
			.debug_root =
				o->load ? o->load->resolve.debug_root : NULL,
			.want_dwarf = true,
		};
		struct elffile_why why;
		char w[256];
		syms[m] = elfsym_load(mp->path, &eo, &why);
		const char *dw = syms[m] ? elfsym_dwarf_path(syms[m]) : NULL;
		if (dw)
			sl[m] = srcline_open(dw, w, sizeof(w));
	}
	for (uint32_t k = 0; k < pc->nlocs; k++) {
		uint32_t m = pc->locs[k].mapping;
		resolve_loc(pc, k, m == PCPROF_NONE ? NULL : sl[m]);
	}
	for (size_t m = 0; m < pc->nmappings; m++) {
		for (size_t e = m + 1; e < pc->nmappings; e++)
			if (sl[e] == sl[m])
				sl[e] = NULL; /* (shared: freed once) */
		srcline_free(sl[m]);
		elfsym_free(syms[m]);
	}
	free(sl);
	free(syms);
}

static void
state_free(struct pcprof *pc)
{
	struct pcprof_state *st = pc->st;
	if (!st)
		return;
	free(st->fstate);
	hmap_free(&st->mapping_index);
	hmap_free(&st->loc_index);
	hmap_free(&st->func_index);
	hmap_free(&st->sample_index);
	for (size_t i = 0; i < pc->nlocs; i++)
		free(st->outer[i]);
	free(st->outer);
	free(st->outer_addr);
	free(st->scratch);
	free(st);
	pc->st = NULL;
}

struct pcprof *
pcprof_read(const struct pcprof_opts *o)
{
	struct pcprof *pc = xcalloc(1, sizeof(*pc));
	struct loader_opts lo = *o->load;
	int ret = 0;

	pc->st = xcalloc(1, sizeof(*pc->st));
	pc->st->o = o;
	lo.sample_hook = on_sample;
	lo.sample_hook_arg = pc;
	lo.sample_hook_sums = true; /* counts and weights, no times */
	/* One frame per PC (loader_sample): a location's inlined calls are
	 * its lines. */
	lo.resolve.no_inline = true;
	/* The first read gave the warnings about these spools. */
	diag_set_quiet(true);
	for (size_t i = 0; i < o->npaths && !ret; i++) {
		struct pcprof_state *st = pc->st;
		if (st->fstate)
			memset(st->fstate, 0, st->fstate_cap);
		struct profile *sp = loader_read(o->paths[i], &lo);
		if (!sp)
			ret = -1;
		profile_free(sp);
	}
	diag_set_quiet(false);
	if (ret) {
		pcprof_free(pc);
		return NULL;
	}
	resolve_lines(pc, o);
	state_free(pc);
	return pc;
}

void
pcprof_free(struct pcprof *pc)
{
	if (!pc)
		return;
	state_free(pc);
	for (size_t i = 0; i < pc->nmappings; i++) {
		free(pc->mappings[i].path);
		free(pc->mappings[i].build_id);
	}
	free(pc->mappings);
	for (size_t i = 0; i < pc->nfuncs; i++) {
		free(pc->funcs[i].name);
		free(pc->funcs[i].file);
	}
	free(pc->funcs);
	free(pc->lines);
	free(pc->locs);
	free(pc->stacks);
	free(pc->samples);
	free(pc);
}
