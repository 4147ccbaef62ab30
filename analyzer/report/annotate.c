/*
 * annotate: per-instruction and per-line hits of chosen functions (see
 * annotate.h).
 *
 * Three steps. Selection finds each FUNCTION in the report's profile.
 * Collection reads every spool again with a sample hook: for each sample
 * it walks the frames from the leaf, skips hidden functions, and charges
 * the first displayed one (when it is a chosen function) at that frame's
 * address; it also keeps, for --list, the set of addresses each sample
 * had in a chosen function. Addresses are kept as ELF addresses looked
 * up the way the resolver looks them up (a return address one byte
 * earlier, inside its call), so they fall in the function's symbol.
 * Writing decodes the function once (annotate_code.h) into an array of
 * instructions with their source line and inlined calls; the hits are
 * then placed by binary search on that array, and the lines of --list
 * are gathered from it.
 */
#include "annotate.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "annotate_code.h"
#include "diag.h"
#include "hmap.h"
#include "modmap.h"
#include "regfile.h"
#include "report.h"
#include "srcline.h"
#include "textesc.h"
#include "xmalloc.h"

#define BYTES_PER_LINE 7

/* Hits charged at one address: a leaf PC, or (after) a return address
 * less one, inside the call the function was making. */
struct hit {
	uint64_t addr;
	bool after;
	uint64_t samples, weight;
};

/* The samples whose stack had exactly this set of addresses in the
 * function (usually one), for the totals of --list. */
struct tvec {
	uint32_t off, n; /* into the target's pool */
	uint64_t samples, weight;
};

struct target {
	const char *spec;
	bool disasm, list;
	uint32_t func; /* in the report's profile */
	/* The same function in the shown profile (annotate_opts.shown), or
	 * PROFILE_NONE when that is the report's; the inlined function the
	 * spec named, whose code this function holds, or PROFILE_NONE. */
	uint32_t shown, inl;
	struct hmap hit_index; /* addr << 1 | after -> index into hits */
	struct hit *hits;
	size_t nhits, hits_cap;
	struct hmap vec_index; /* hash of the addresses -> index into vecs */
	struct tvec *vecs;
	size_t nvecs, vecs_cap;
	uint64_t *pool;
	size_t npool, pool_cap;
};

/* What a function of the spool being read is to the collection. */
enum {
	ST_UNSEEN = 0,
	ST_HIDDEN,
	ST_OTHER,
	ST_TARGET, /* ST_TARGET + k: target k */
};

struct scratch {
	uint32_t k;
	uint64_t addr;
};

struct annotate {
	const struct profile *p;
	struct annotate_opts o;
	struct target *t;
	size_t nt, t_cap;
	bool want_total;
	/* During the collection of one spool: */
	uint32_t *state; /* per function of the spool's profile */
	size_t state_cap;
	struct scratch *scr;
	size_t scr_cap;
	uint64_t *buf; /* one target's addresses of one sample */
	size_t buf_cap;
};

/* Source files read for the listings, by path. */
struct srcfile {
	char *path;
	char *data;
	size_t *starts; /* offset of each line */
	size_t nlines;
	bool missing;
};

struct srcfiles {
	struct srcfile *f;
	size_t n, cap;
};

/* ---- selection ---- */

static bool
selectable(const struct profile_func *f)
{
	return !(f->flags & (PROFILE_FUNC_PSEUDO | PROFILE_FUNC_HIDDEN |
			     PROFILE_FUNC_ELLIPSIS));
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* MODULE:NAME splits at a single ':' (C++ names have '::'). */
static const char *
split_module(const char *spec, size_t *modlen)
{
	for (const char *c = spec; *c; c++) {
		if (*c != ':')
			continue;
		if (c[1] == ':') {
			c++;
			continue;
		}
		if (c == spec)
			return spec;
		*modlen = (size_t)(c - spec);
		return c + 1;
	}
	*modlen = 0;
	return spec;
}

static bool
module_matches(const char *path, const char *mod, size_t len)
{
	if (!len)
		return true;
	if (!path)
		return false;
	const char *b = memchr(mod, '/', len) ? path : base_name(path);
	return strlen(b) == len && memcmp(b, mod, len) == 0;
}

static bool
all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The profile a FUNCTION names functions of: the one the other reports
 * show. */
static const struct profile *
shown_of(const struct annotate *a)
{
	return a->o.shown ? a->o.shown : a->p;
}

/* Whether function f of the spool's profile sp is function g of p: same
 * module path, symbol address and name. */
static bool
same_func(const struct profile *sp, uint32_t f, const struct profile *p,
	  uint32_t g)
{
	const struct profile_func *a = &sp->funcs[f], *b = &p->funcs[g];
	uint32_t unnamed = PROFILE_FUNC_UNNAMED;
	if (a->addr != b->addr ||
	    (a->flags & unnamed) != (b->flags & unnamed) ||
	    strcmp(a->name, b->name) != 0)
		return false;
	const char *ma = profile_func_module(sp, f);
	const char *mb = profile_func_module(p, g);
	return ma && mb ? strcmp(ma, mb) == 0 : ma == mb;
}

static bool
inlined(const struct profile *p, uint32_t f)
{
	return p->funcs[f].flags & PROFILE_FUNC_INLINED;
}

/* The function whose code node's frame is in: the nearest frame at or
 * above it that is no inlined call. PROFILE_NONE: none shown. */
static uint32_t
container_of(const struct profile *s, uint32_t node)
{
	for (; node != PROFILE_NONE; node = s->nodes[node].parent) {
		uint32_t f = s->nodes[node].func;
		if (f == PROFILE_NONE || !selectable(&s->funcs[f]))
			return PROFILE_NONE;
		if (!inlined(s, f))
			return f;
	}
	return PROFILE_NONE;
}

/* Makes function f of the shown profile (no inlined call) a target of
 * spec: p's function with the same symbol. inl: the inlined function the
 * spec named, whose code f holds, or PROFILE_NONE. */
static int
add_target(struct annotate *a, const char *opt, const char *spec, uint32_t f,
	   uint32_t inl, bool disasm)
{
	const struct profile *s = shown_of(a);
	uint32_t g = f;
	if (s != a->p)
		for (g = 0; g < a->p->nfuncs; g++)
			if (selectable(&a->p->funcs[g]) &&
			    same_func(s, f, a->p, g))
				break;
	if (g >= a->p->nfuncs) {
		diag_error("%s: %s=%s: %s is not among the functions of the "
			   "symbols", a->o.spool, opt, spec, s->funcs[f].text);
		return -1;
	}
	size_t k = 0;
	while (k < a->nt && a->t[k].func != g)
		k++;
	if (k == a->nt) {
		xgrow(&a->t, &a->t_cap, a->nt + 1, sizeof(*a->t));
		memset(&a->t[k], 0, sizeof(a->t[k]));
		a->t[k].func = g;
		a->t[k].shown = s != a->p ? f : PROFILE_NONE;
		a->t[k].inl = PROFILE_NONE;
		a->t[k].spec = spec;
		a->nt++;
	}
	if (inl != PROFILE_NONE && a->t[k].inl == PROFILE_NONE)
		a->t[k].inl = inl;
	if (disasm)
		a->t[k].disasm = true;
	else
		a->t[k].list = a->want_total = true;
	return 0;
}

/* An inlined function inl: the functions it was inlined into, each a
 * target. */
static int
add_containers(struct annotate *a, const char *opt, const char *spec,
	       uint32_t inl, bool disasm)
{
	const struct profile *s = shown_of(a);
	size_t found = 0;
	for (uint32_t n = 0; n < s->nnodes; n++) {
		if (s->nodes[n].func != inl)
			continue;
		uint32_t f = container_of(s, n);
		if (f == PROFILE_NONE)
			continue;
		if (add_target(a, opt, spec, f, inl, disasm) < 0)
			return -1;
		found++;
	}
	if (!found) {
		diag_error("%s: %s=%s: %s was inlined into no function shown",
			   a->o.spool, opt, spec, s->funcs[inl].text);
		return -1;
	}
	return 0;
}

static int
select_by_outline(struct annotate *a, const char *opt, const char *spec,
		  bool disasm)
{
	const struct profile *s = shown_of(a);
	const struct report_outline *ol = a->o.outline;
	size_t lines = ol ? report_outline_lines(ol) : 0;
	uint64_t n = strtoull(spec, NULL, 10);
	uint32_t node = ol ? report_outline_node(ol, n) : PROFILE_NONE;
	uint32_t f = node == PROFILE_NONE ? PROFILE_NONE : s->nodes[node].func;
	if (f == PROFILE_NONE || !selectable(&s->funcs[f])) {
		if (lines)
			diag_error("%s: %s=%s: outline line %s is no function "
				   "(the outline has lines 0 to %zu)",
				   a->o.spool, opt, spec, spec, lines - 1);
		else
			diag_error("%s: %s=%s: the outline is empty",
				   a->o.spool, opt, spec);
		return -1;
	}
	if (!inlined(s, f))
		return add_target(a, opt, spec, f, PROFILE_NONE, disasm);
	uint32_t c = container_of(s, node);
	if (c == PROFILE_NONE) {
		diag_error("%s: %s=%s: %s was inlined into no function shown",
			   a->o.spool, opt, spec, s->funcs[f].text);
		return -1;
	}
	return add_target(a, opt, spec, c, f, disasm);
}

/* Says which functions an ambiguous spec matches (the first 8), by their
 * labels, which the reports print and a spec may give. */
static void
ambiguous(const struct annotate *a, const char *opt, const char *spec,
	  const uint32_t *ids, size_t n)
{
	const struct profile *s = shown_of(a);
	char *list = xstrdup("");
	for (size_t i = 0; i < n && i < 8; i++) {
		const struct profile_func *f = &s->funcs[ids[i]];
		char *next = xasprintf("%s%s%s", list, i ? ", " : "", f->label);
		free(list);
		list = next;
	}
	diag_error("%s: %s=%s matches %zu functions (%s%s); name one by its "
		   "label, as MODULE:NAME or by its outline line",
		   a->o.spool, opt, spec, n, list, n > 8 ? ", ..." : "");
	free(list);
}

/* A name or label: the function of that name, or when only inlined
 * calls have it, the functions it was inlined into. */
static int
select_spec(struct annotate *a, const char *opt, const char *spec,
	    bool disasm)
{
	if (all_digits(spec))
		return select_by_outline(a, opt, spec, disasm);
	const struct profile *s = shown_of(a);
	size_t modlen;
	const char *name = split_module(spec, &modlen);
	uint32_t ids[2][9];
	size_t n[2] = { 0, 0 }; /* functions, inlined calls */
	for (uint32_t i = 0; i < s->nfuncs; i++) {
		const struct profile_func *f = &s->funcs[i];
		if (!selectable(f) || (strcmp(f->name, name) != 0 &&
				       strcmp(f->label, name) != 0))
			continue;
		if (!module_matches(profile_func_module(s, i), spec, modlen))
			continue;
		int k = inlined(s, i);
		if (n[k] < 9)
			ids[k][n[k]] = i;
		n[k]++;
	}
	int k = n[0] ? 0 : 1;
	if (n[k] == 1)
		return k ? add_containers(a, opt, spec, ids[1][0], disasm)
			 : add_target(a, opt, spec, ids[0][0], PROFILE_NONE,
				      disasm);
	if (n[k] == 0)
		diag_error("%s: %s=%s matches no function of the profile",
			   a->o.spool, opt, spec);
	else
		ambiguous(a, opt, spec, ids[k], n[k]);
	return -1;
}

static int
add_targets(struct annotate *a, const char *opt, const char *const *specs,
	    size_t n, bool disasm)
{
	for (size_t i = 0; i < n; i++)
		if (select_spec(a, opt, specs[i], disasm) < 0)
			return -1;
	return 0;
}

struct annotate *
annotate_new(const struct profile *p, const struct annotate_opts *o)
{
	struct annotate *a = xcalloc(1, sizeof(*a));
	a->p = p;
	a->o = *o;
	if (add_targets(a, "--disassemble", o->disassemble, o->ndisassemble,
			true) < 0 ||
	    add_targets(a, "--list", o->list, o->nlist, false) < 0) {
		annotate_free(a);
		return NULL;
	}
	return a;
}

void
annotate_free(struct annotate *a)
{
	if (!a)
		return;
	for (size_t k = 0; k < a->nt; k++) {
		struct target *t = &a->t[k];
		hmap_free(&t->hit_index);
		hmap_free(&t->vec_index);
		free(t->hits);
		free(t->vecs);
		free(t->pool);
	}
	free(a->t);
	free(a->state);
	free(a->scr);
	free(a->buf);
	free(a);
}

/* ---- collection ---- */

static uint32_t
state_of(struct annotate *a, const struct profile *sp, uint32_t f)
{
	xgrow_zeroed(&a->state, &a->state_cap, (size_t)f + 1,
		     sizeof(*a->state));
	if (a->state[f] != ST_UNSEEN)
		return a->state[f];
	uint32_t st = ST_OTHER;
	if (hide_func(sp, a->o.hide, f))
		st = ST_HIDDEN;
	for (size_t k = 0; st == ST_OTHER && k < a->nt; k++)
		if (same_func(sp, f, a->p, a->t[k].func))
			st = ST_TARGET + (uint32_t)k;
	return a->state[f] = st;
}

static void
add_hit(struct target *t, uint64_t addr, bool after, uint64_t weight,
	uint64_t count)
{
	bool found;
	uint64_t *idx = hmap_ref(&t->hit_index, addr << 1 | after, &found);
	if (!found) {
		xgrow(&t->hits, &t->hits_cap, t->nhits + 1, sizeof(*t->hits));
		t->hits[t->nhits] = (struct hit){ .addr = addr,
						  .after = after };
		*idx = t->nhits++;
	}
	t->hits[*idx].samples += count;
	t->hits[*idx].weight += weight;
}

static int
cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

/* Adds count samples of weight to the vector of their n distinct,
 * sorted addresses. */
static void
add_vec(struct target *t, const uint64_t *addrs, uint32_t n, uint64_t weight,
	uint64_t count)
{
	uint64_t h = hmap_hash_bytes(HMAP_HASH_INIT, addrs, n * sizeof(*addrs));
	uint64_t idx;
	for (;; h++) {
		if (!hmap_get(&t->vec_index, h, &idx))
			break;
		struct tvec *v = &t->vecs[idx];
		if (v->n == n && memcmp(t->pool + v->off, addrs,
					n * sizeof(*addrs)) == 0) {
			v->samples += count;
			v->weight += weight;
			return;
		}
	}
	xgrow(&t->pool, &t->pool_cap, t->npool + n, sizeof(*t->pool));
	memcpy(t->pool + t->npool, addrs, n * sizeof(*addrs));
	xgrow(&t->vecs, &t->vecs_cap, t->nvecs + 1, sizeof(*t->vecs));
	t->vecs[t->nvecs] = (struct tvec){
		.off = (uint32_t)t->npool, .n = n, .samples = count,
		.weight = weight,
	};
	t->npool += n;
	hmap_put(&t->vec_index, h, t->nvecs++);
}

/* The addresses the sample had in each target, for --list. */
static void
add_totals(struct annotate *a, size_t nscr, uint64_t weight, uint64_t count)
{
	xgrow(&a->buf, &a->buf_cap, nscr, sizeof(*a->buf));
	for (size_t k = 0; k < a->nt; k++) {
		uint32_t n = 0;
		for (size_t i = 0; i < nscr; i++)
			if (a->scr[i].k == k)
				a->buf[n++] = a->scr[i].addr;
		if (!n || !a->t[k].list)
			continue;
		qsort(a->buf, n, sizeof(*a->buf), cmp_u64);
		uint32_t u = 1;
		for (uint32_t i = 1; i < n; i++)
			if (a->buf[i] != a->buf[u - 1])
				a->buf[u++] = a->buf[i];
		add_vec(&a->t[k], a->buf, u, weight, count);
	}
}

static void
on_sample(void *arg, const struct loader_sample *ls)
{
	struct annotate *a = arg;
	const struct spool_sample *s = ls->s;
	bool charged = false;
	size_t nscr = 0;

	if (ls->n < s->depth)
		return;
	for (uint32_t i = 0; i < s->depth; i++) {
		uint32_t st = state_of(a, ls->prof, ls->stack[ls->n - 1 - i]);
		if (st == ST_HIDDEN)
			continue;
		if (st == ST_OTHER) {
			charged = true;
			if (!a->want_total)
				break;
			continue;
		}
		uint64_t pc = spool_sample_pc(s, i);
		uint64_t look = i > 0 && pc ? pc - 1 : pc;
		long ii = modmap_lookup(ls->map, look, s->time_ns);
		if (ii < 0)
			continue;
		uint64_t addr = look - ls->map->inst[ii].base;
		struct target *t = &a->t[st - ST_TARGET];
		if (!charged)
			add_hit(t, addr, i > 0, ls->weight, ls->count);
		charged = true;
		if (!a->want_total)
			break;
		xgrow(&a->scr, &a->scr_cap, nscr + 1, sizeof(*a->scr));
		a->scr[nscr++] = (struct scratch){ st - ST_TARGET, addr };
	}
	if (nscr)
		add_totals(a, nscr, ls->weight, ls->count);
}

/* Reads every spool again, with the options p was read with. */
static int
collect(struct annotate *a)
{
	struct loader_opts lo = *a->o.load;
	lo.sample_hook = on_sample;
	lo.sample_hook_arg = a;
	lo.sample_hook_sums = true; /* hits and weights, no times */
	/* One frame per PC (loader_sample), as the report's profile was
	 * read (cli/options.c): the listings show inlined code themselves. */
	lo.resolve.no_inline = true;
	int ret = 0;
	/* The first read gave the warnings about these spools. */
	diag_set_quiet(true);
	for (size_t i = 0; i < a->o.npaths && !ret; i++) {
		if (a->state)
			memset(a->state, 0, a->state_cap * sizeof(*a->state));
		struct profile *sp = loader_read(a->o.paths[i], &lo);
		if (!sp)
			ret = -1;
		profile_free(sp);
	}
	diag_set_quiet(false);
	return ret;
}

/* Reads and decodes function func of the report's profile. Returns 0, or
 * -1 after an error line. */
static int
load_code(const struct annotate *a, uint32_t func, struct annotate_code *c)
{
	const struct profile_func *f = &a->p->funcs[func];
	const struct profile_module *m = &a->p->modules[f->module];
	char why[ELFFILE_WHY_LEN + 64];
	struct annotate_code_opts o = {
		.path = m->path,
		.build_id = m->build_id,
		.build_id_len = m->build_id_len,
		.debug_root = a->o.load->resolve.debug_root,
		.addr = f->addr,
		.unnamed = f->flags & PROFILE_FUNC_UNNAMED,
		.intel = a->o.intel,
	};
	if (annotate_code_load(c, &o, why, sizeof(why)) == 0)
		return 0;
	diag_error("%s: cannot disassemble %s: %s", m->path, f->text, why);
	return -1;
}

/* Puts the hits on the instructions: a hit after a call on the
 * instruction after it (on the call itself when it is the last). Hits
 * outside the decoded code are counted in *lost (none when the file is
 * the one profiled). */
static void
place_hits(const struct target *t, struct annotate_code *c, uint64_t *lost)
{
	*lost = 0;
	for (size_t i = 0; i < t->nhits; i++) {
		const struct hit *h = &t->hits[i];
		long j = annotate_code_insn_at(c, h->addr);
		if (j < 0) {
			*lost += h->samples;
			continue;
		}
		struct annotate_insn *in = &c->ins[j];
		if (h->after) {
			if ((size_t)j + 1 < c->n)
				in++;
			in->after_samples += h->samples;
			in->after_weight += h->weight;
		}
		in->samples += h->samples;
		in->weight += h->weight;
	}
}

/* ---- source files ---- */

/* The source file at path, relative to dir (NULL: the current one) when
 * it is not absolute. */
static struct srcfile *
srcfile_get(struct srcfiles *fs, const char *dir, const char *name)
{
	char *path = name[0] == '/' || !dir ? xstrdup(name) :
					      xasprintf("%s/%s", dir, name);
	for (size_t i = 0; i < fs->n; i++)
		if (strcmp(fs->f[i].path, path) == 0) {
			free(path);
			return &fs->f[i];
		}
	xgrow(&fs->f, &fs->cap, fs->n + 1, sizeof(*fs->f));
	struct srcfile *f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	f->path = path;
	struct stat st;
	int fd = regfile_open(path, &st);
	FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!fp) {
		int err = fd < 0 ? fd : -errno;
		if (fd >= 0)
			close(fd);
		diag_note("%s: %s; its lines are shown without their text",
			  path, regfile_strerror(err));
		f->missing = true;
		return f;
	}
	size_t cap = 0, len = 0, scap = 0;
	char buf[65536];
	size_t got;
	while ((got = fread(buf, 1, sizeof(buf), fp)) > 0) {
		xgrow(&f->data, &cap, len + got + 1, 1);
		memcpy(f->data + len, buf, got);
		len += got;
	}
	fclose(fp);
	for (size_t off = 0; off < len;) {
		xgrow(&f->starts, &scap, f->nlines + 1, sizeof(*f->starts));
		f->starts[f->nlines++] = off;
		char *nl = memchr(f->data + off, '\n', len - off);
		if (!nl)
			break;
		*nl = '\0';
		off = (size_t)(nl - f->data) + 1;
	}
	if (f->data)
		f->data[len] = '\0';
	return f;
}

static void
srcfiles_free(struct srcfiles *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->f[i].path);
		free(fs->f[i].data);
		free(fs->f[i].starts);
	}
	free(fs->f);
}

/* Line n (from 1) of a file, or NULL. */
static const char *
srcfile_line(const struct srcfile *f, unsigned n)
{
	if (f->missing || n == 0 || n > f->nlines)
		return NULL;
	return f->data + f->starts[n - 1];
}

/* Source text with tabs expanded (8 wide) and other control characters
 * as \xNN. */
static void
put_source(FILE *out, const char *s)
{
	size_t col = 0;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '\t') {
			do
				fputc(' ', out);
			while (++col % 8);
		} else if (ch < 0x20 || ch == 0x7f) {
			fprintf(out, "\\x%02x", ch);
			col += 4;
		} else {
			fputc(ch, out);
			col++;
		}
	}
}

/* ---- writing ---- */

static bool
is_space(const struct annotate *a)
{
	return a->p->hdr.kind == PROFILE_KIND_SPACE;
}

/* The figure a line shows: samples (time) or bytes (space). */
static uint64_t
value(const struct annotate *a, uint64_t samples, uint64_t weight)
{
	return is_space(a) ? weight : samples;
}

static int
digits(uint64_t v)
{
	int n = 1;
	while (v >= 10)
		v /= 10, n++;
	return n;
}

/* The lines that relate a target's figures to the profile the other
 * reports show, where inlined calls are frames of their own: how much of
 * its self is in code inlined into it, and the inlined function the spec
 * named. */
static void
write_inlined_note(FILE *out, const struct annotate *a,
		   const struct target *t)
{
	const struct profile_func *f = &a->p->funcs[t->func];
	if (t->shown != PROFILE_NONE) {
		const struct profile_func *g = &a->o.shown->funcs[t->shown];
		uint64_t all = value(a, f->self_samples, f->self);
		uint64_t own = value(a, g->self_samples, g->self);
		const char *unit = is_space(a) ? (own == 1 ? "byte" : "bytes")
					       : (own == 1 ? "hit" : "hits");
		if (own < all)
			fprintf(out, ";; of them %" PRIu64 " %s in its own lines "
				"and %" PRIu64 " in code inlined into it, which "
				"the other reports show as frames of their own "
				"marked [inlined]\n", own, unit, all - own);
	}
	if (t->inl != PROFILE_NONE) {
		fputs(";; ", out);
		textesc_put(out, a->o.shown->funcs[t->inl].text);
		fputs(" (asked for as ", out);
		textesc_put(out, t->spec);
		fputs(") is code inlined into this function: its lines are "
		      "marked (inlined ", out);
		textesc_put(out, a->o.shown->funcs[t->inl].name);
		fputs(")\n", out);
	}
}

static void
write_disasm_header(FILE *out, const struct annotate *a,
		    const struct target *t, const struct annotate_code *c,
		    uint64_t after)
{
	const struct profile *p = a->p;
	uint32_t func = t->func;
	const struct profile_func *f = &p->funcs[func];
	const struct profile_module *m = &p->modules[f->module];

	fputs(";; disassembly of ", out);
	textesc_put(out, f->text);
	fputs(" in ", out);
	textesc_put(out, c->module);
	fprintf(out, "\n;; 0x%" PRIx64 "-0x%" PRIx64 ", %" PRIu64
		" bytes, %zu instructions, %s syntax; offsets in decimal\n",
		c->addr, c->addr + c->size, c->size, c->n,
		a->o.intel ? "Intel" : "AT&T");
	if (!m->build_id_len)
		fputs(";; the spool recorded no build-id: the file may not be "
		      "the one profiled\n", out);
	if (is_space(a))
		fprintf(out, ";; %" PRIu64 " bytes in %" PRIu64 " sampled "
			"allocations (%.1f%% of %" PRIu64 " bytes): allocated "
			"by calls this function made\n", f->self,
			f->self_samples, report_pct(f->self, p->hdr.weight),
			p->hdr.weight);
	else
		fprintf(out, ";; %" PRIu64 " hit%s of %" PRIu64 " samples "
			"(%.1f%%), %.3f seconds: the samples in which it was "
			"the innermost function shown (its self time)\n",
			f->self_samples, f->self_samples == 1 ? "" : "s",
			p->hdr.samples,
			report_pct(f->self_samples, p->hdr.samples),
			report_seconds(f->self));
	write_inlined_note(out, a, t);
	fprintf(out, ";; it was on the stack in %" PRIu64 " samples; the "
		"hits of the functions it called are theirs\n",
		f->total_samples);
	if (after)
		fprintf(out, ";; %" PRIu64 " %s marked \"after call\" are on "
			"the instruction after a call: the program was in the "
			"callee (%s), not executing that instruction\n", after,
			is_space(a) ? "bytes" : "hits",
			is_space(a) ? "the allocator" :
				      "hidden, so its time is this function's");
	fprintf(out, ";; each line: %s (share of this function's), offset: "
		"bytes  instruction\n\n", is_space(a) ? "bytes" : "hits");
}

/* ";; file.c:12 (inlined f): text" before the first instruction of a
 * source line. */
static void
write_line_heading(FILE *out, const struct annotate_code *c,
		   const struct annotate_insn *in, struct srcfiles *fs)
{
	fputs(";; ", out);
	textesc_put(out, base_name(in->file));
	fprintf(out, ":%u", in->line);
	if (in->ninl) {
		fputs(" (inlined ", out);
		textesc_put(out, in->inl[0].name);
		fputc(')', out);
	}
	const char *text = srcfile_line(srcfile_get(fs, c->comp_dir, in->file),
					in->line);
	if (text) {
		fputs(": ", out);
		put_source(out, text);
	}
	fputc('\n', out);
}

static void
write_insn(FILE *out, const struct annotate *a, const struct annotate_code *c,
	   const struct annotate_insn *in, uint64_t total, int w)
{
	uint64_t v = value(a, in->samples, in->weight);
	if (v) {
		/* "( 3%)" as Allegro prints it; "(100%)" eats the blank. */
		char pct[16];
		snprintf(pct, sizeof(pct), "(%2.0f%%)", report_pct(v, total));
		fprintf(out, "%*" PRIu64 " %s%s", w, v, pct,
			strlen(pct) > 5 ? "" : " ");
	} else
		fprintf(out, "%*s ", w + 6, "");
	fprintf(out, "%5" PRIu64 ": ", in->addr - c->addr);
	size_t nb = in->size < BYTES_PER_LINE ? in->size : BYTES_PER_LINE;
	for (size_t b = 0; b < BYTES_PER_LINE; b++)
		fprintf(out, b < nb ? "%02x " : "   ", in->bytes[b]);
	textesc_put(out, in->text);
	uint64_t av = value(a, in->after_samples, in->after_weight);
	if (av)
		fprintf(out, "   ; %" PRIu64 " after call", av);
	fputc('\n', out);
	/* Allegro's continuation lines for long instructions. */
	for (size_t b = BYTES_PER_LINE; b < in->size; b += BYTES_PER_LINE) {
		fprintf(out, "%*s ", w + 6 + 7, "");
		for (size_t k = b; k < in->size && k < b + BYTES_PER_LINE; k++)
			fprintf(out, "%02x ", in->bytes[k]);
		fputc('\n', out);
	}
}

static bool
same_line(const struct annotate_insn *x, const struct annotate_insn *y)
{
	return x->line == y->line && x->ninl == y->ninl &&
	       (x->file == y->file ||
		(x->file && y->file && strcmp(x->file, y->file) == 0));
}

static void
write_disasm(FILE *out, const struct annotate *a, const struct target *t,
	     struct annotate_code *c, struct srcfiles *fs)
{
	uint64_t lost, total = 0, after = 0, maxv = 0;
	place_hits(t, c, &lost);
	for (size_t i = 0; i < c->n; i++) {
		uint64_t v = value(a, c->ins[i].samples, c->ins[i].weight);
		total += v;
		after += value(a, c->ins[i].after_samples,
			       c->ins[i].after_weight);
		if (v > maxv)
			maxv = v;
	}
	if (!c->lines && t->disasm)
		diag_note("%s: no line information (%s); --disassemble=%s "
			  "shows instructions only", c->module, c->why_nolines,
			  t->spec);
	write_disasm_header(out, a, t, c, after);
	int w = digits(maxv) > 4 ? digits(maxv) : 4;
	const struct annotate_insn *prev = NULL;
	for (size_t i = 0; i < c->n; i++) {
		const struct annotate_insn *in = &c->ins[i];
		if (in->file && (!prev || !same_line(prev, in)))
			write_line_heading(out, c, in, fs);
		prev = in;
		write_insn(out, a, c, in, total, w);
	}
	if (lost)
		fprintf(out, ";; %" PRIu64 " hits at addresses outside the "
			"decoded code\n", lost);
	fputc('\n', out);
}

/* ---- the source listing ---- */

/* One source line of the listing: a line of the function, or of a
 * function inlined into it (inl, its name). */
struct lentry {
	const char *file;
	unsigned line;
	const char *inl;
	uint64_t self_s, self_w, tot_s, tot_w;
	uint64_t seen; /* the last vector that counted it */
};

struct listing {
	struct lentry *e;
	size_t n, cap;
	uint64_t none_s, none_w; /* self hits without a line */
};

static bool
str_eq(const char *x, const char *y)
{
	return x == y || (x && y && strcmp(x, y) == 0);
}

static size_t
lentry(struct listing *l, const char *file, unsigned line, const char *inl)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].line == line && str_eq(l->e[i].inl, inl) &&
		    str_eq(l->e[i].file, file))
			return i;
	xgrow(&l->e, &l->cap, l->n + 1, sizeof(*l->e));
	l->e[l->n] = (struct lentry){ .file = file, .line = line, .inl = inl,
				      .seen = UINT64_MAX };
	return l->n++;
}

/* Counts a vector's weight once on each line its address was in: the
 * innermost line and, for inlined code, the lines of the calls that
 * inlined it. */
static void
count_total(struct listing *l, const struct annotate_insn *in, uint64_t vec,
	    uint64_t s, uint64_t w)
{
	size_t ids[ANNOTATE_MAX_INLINE + 1], n = 0;
	ids[n++] = lentry(l, in->file, in->line,
			  in->ninl ? in->inl[0].name : NULL);
	for (size_t j = 0; j < in->ninl; j++) {
		const char *outer = j + 1 < in->ninl ? in->inl[j + 1].name :
						       NULL;
		if (in->inl[j].call_line)
			ids[n++] = lentry(l, in->inl[j].call_file,
					  in->inl[j].call_line, outer);
	}
	for (size_t i = 0; i < n; i++) {
		struct lentry *e = &l->e[ids[i]];
		if (e->seen == vec)
			continue;
		e->seen = vec;
		e->tot_s += s;
		e->tot_w += w;
	}
}

static void
fill_listing(struct listing *l, const struct target *t,
	     const struct annotate_code *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->ins[i].file)
			count_total(l, &c->ins[i], UINT64_MAX - 1, 0, 0);
	for (size_t i = 0; i < t->nhits; i++) {
		const struct hit *h = &t->hits[i];
		long j = annotate_code_insn_at(c, h->addr);
		if (j < 0 || !c->ins[j].file) {
			l->none_s += h->samples;
			l->none_w += h->weight;
			continue;
		}
		const struct annotate_insn *in = &c->ins[j];
		const char *inl = in->ninl ? in->inl[0].name : NULL;
		struct lentry *e = &l->e[lentry(l, in->file, in->line, inl)];
		e->self_s += h->samples;
		e->self_w += h->weight;
	}
	for (size_t v = 0; v < t->nvecs; v++) {
		const struct tvec *tv = &t->vecs[v];
		for (uint32_t k = 0; k < tv->n; k++) {
			long j = annotate_code_insn_at(c, t->pool[tv->off + k]);
			if (j >= 0 && c->ins[j].file)
				count_total(l, &c->ins[j], v, tv->samples,
					    tv->weight);
		}
	}
}

/* Blocks in order: the function's own lines (those of the file it is
 * declared in first), then each inlined function's; lines ascending. */
static int
cmp_block(const void *pa, const void *pb, void *decl_file)
{
	const struct lentry *a = pa, *b = pb;
	if (!a->inl != !b->inl)
		return a->inl ? 1 : -1;
	if (!a->inl && decl_file) {
		bool da = strcmp(a->file, decl_file) == 0;
		bool db = strcmp(b->file, decl_file) == 0;
		if (da != db)
			return da ? -1 : 1;
	}
	int r = a->inl ? strcmp(a->inl, b->inl) : 0;
	if (!r)
		r = strcmp(a->file, b->file);
	if (!r)
		r = a->line < b->line ? -1 : a->line > b->line;
	return r;
}

static void
write_cell(FILE *out, uint64_t v, int w)
{
	if (v)
		fprintf(out, "%*" PRIu64 " ", w, v);
	else
		fprintf(out, "%*s ", w, ".");
}

/* The lines from lo to hi of one block (file, inlined function). */
static void
write_block(FILE *out, const struct annotate *a, const struct annotate_code *c,
	    const struct lentry *e, size_t n, unsigned lo, struct srcfiles *fs,
	    int w)
{
	const struct srcfile *sf = srcfile_get(fs, c->comp_dir, e[0].file);
	unsigned hi = e[n - 1].line;
	size_t k = 0;
	for (unsigned line = lo; line <= hi; line++) {
		uint64_t self = 0, tot = 0;
		for (; k < n && e[k].line == line; k++) {
			self += value(a, e[k].self_s, e[k].self_w);
			tot += value(a, e[k].tot_s, e[k].tot_w);
		}
		write_cell(out, self, w);
		write_cell(out, tot, w);
		fprintf(out, "%6u", line);
		const char *text = srcfile_line(sf, line);
		if (text && *text) {
			fputs("  ", out);
			put_source(out, text);
		}
		fputc('\n', out);
	}
}

static void
write_block_heading(FILE *out, const struct annotate *a, uint32_t func,
		    const struct annotate_code *c, const struct lentry *e)
{
	char *path = srcline_path(c->comp_dir, e->file);
	if (e->inl) {
		fputs(";; inlined into ", out);
		textesc_put(out, a->p->funcs[func].text);
		fputs(": ", out);
		textesc_put(out, e->inl);
		fputs(", ", out);
	} else {
		fputs(";; ", out);
	}
	textesc_put(out, path);
	fputc('\n', out);
	free(path);
}

static void
write_list_header(FILE *out, const struct annotate *a, const struct target *t,
		  const struct annotate_code *c)
{
	const struct profile_func *f = &a->p->funcs[t->func];
	fputs(";; source of ", out);
	textesc_put(out, f->text);
	fputs(" in ", out);
	textesc_put(out, c->module);
	if (c->decl_file) {
		char *path = srcline_path(c->comp_dir, c->decl_file);
		fputs(", declared at ", out);
		textesc_put(out, path);
		fprintf(out, ":%u", c->decl_line);
		free(path);
	}
	fputc('\n', out);
	fprintf(out, ";; self %" PRIu64 ", total %" PRIu64 " %s of %" PRIu64
		"\n", value(a, f->self_samples, f->self),
		value(a, f->total_samples, f->total),
		is_space(a) ? "bytes" : "samples",
		value(a, a->p->hdr.samples, a->p->hdr.weight));
	write_inlined_note(out, a, t);
	fprintf(out, ";; self: %s; total: %s with the line on the stack "
		"(running it, in a call it makes or in code inlined there), "
		"each counted once per line\n",
		is_space(a) ? "bytes allocated by the line's calls" :
			      "samples in the line's own code (and hidden "
			      "callees)",
		is_space(a) ? "bytes" : "samples");
	fputc('\n', out);
}

/* Returns whether there were source lines to list. */
static bool
write_list(FILE *out, const struct annotate *a, const struct target *t,
	   const struct annotate_code *c, struct srcfiles *fs)
{
	if (!c->lines) {
		diag_note("%s: no line information (%s); --list=%s shows "
			  "the instructions instead", c->module,
			  c->why_nolines, t->spec);
		return false;
	}
	struct listing l = { 0 };
	fill_listing(&l, t, c);
	qsort_r(l.e, l.n, sizeof(*l.e), cmp_block, (void *)c->decl_file);
	const struct profile_func *f = &a->p->funcs[t->func];
	uint64_t maxv = value(a, f->total_samples, f->total);
	int w = digits(maxv) > 5 ? digits(maxv) : 5;
	write_list_header(out, a, t, c);
	fprintf(out, "%*s %*s  %6s\n", w, "self", w, "total", "line");
	for (size_t i = 0; i < l.n;) {
		size_t j = i + 1;
		while (j < l.n && str_eq(l.e[j].inl, l.e[i].inl) &&
		       strcmp(l.e[j].file, l.e[i].file) == 0)
			j++;
		unsigned lo = l.e[i].line;
		if (!l.e[i].inl && c->decl_file && c->decl_line < lo &&
		    strcmp(c->decl_file, l.e[i].file) == 0)
			lo = c->decl_line;
		write_block_heading(out, a, t->func, c, &l.e[i]);
		write_block(out, a, c, l.e + i, j - i, lo, fs, w);
		i = j;
	}
	if (l.none_s)
		fprintf(out, ";; %" PRIu64 " %s at addresses without a line\n",
			value(a, l.none_s, l.none_w),
			is_space(a) ? "bytes" : "hits");
	fputc('\n', out);
	free(l.e);
	return true;
}

int
annotate_write(FILE *out, struct annotate *a)
{
	int ret = 0;
	struct srcfiles fs = { 0 };

	if (collect(a) < 0)
		return -1;
	for (size_t k = 0; k < a->nt; k++) {
		const struct target *t = &a->t[k];
		const struct profile_func *f = &a->p->funcs[t->func];
		struct annotate_code c;
		const char *module = f->module == PROFILE_NONE ? NULL :
				     a->p->modules[f->module].path;
		if (!module || strcmp(module, RESOLVE_JIT_MODULE) == 0) {
			diag_error("%s: cannot show the code of %s: %s",
				   a->o.spool, f->text, module ?
				   "it was generated at run time (a perf "
				   "map named it), and no file holds it" :
				   "it is in no module, and no file holds it");
			ret = -1;
			continue;
		}
		if (load_code(a, t->func, &c) < 0) {
			ret = -1;
			continue;
		}
		if (t->disasm)
			write_disasm(out, a, t, &c, &fs);
		/* Without lines, what there is: the instructions. */
		if (t->list && !write_list(out, a, t, &c, &fs) && !t->disasm)
			write_disasm(out, a, t, &c, &fs);
		annotate_code_free(&c);
	}
	srcfiles_free(&fs);
	return ret;
}

bool
annotate_available(void)
{
	return annotate_code_available();
}
