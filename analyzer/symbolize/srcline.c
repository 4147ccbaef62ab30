/*
 * srcline: DWARF line lookups with libdw (see srcline.h). Without libdw
 * the build keeps the interface and every open fails.
 *
 * The inlined calls at an address are found from the function that holds
 * it: each unit's functions (DW_TAG_subprogram with code) are listed by
 * address the first time an address in the unit is asked about, and the
 * search then goes down from that function's DIE through the children
 * whose ranges hold the address. libdw's dwarf_getscopes() walks the
 * whole unit from its root on every call, which made a profile of many
 * distinct addresses in a large unit cost a unit walk per address
 * (BENCHMARKS.md, "Symbolization").
 *
 * Layer: symbolize.
 */
#include "srcline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

#ifdef HAVE_LIBDW

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <unistd.h>

#include "regfile.h"

/* An address range of a unit or of a function. */
struct range {
	uint64_t start, end; /* [start, end) */
	Dwarf_Off die;       /* offset of the unit's or function's DIE */
	size_t unit;         /* a unit's: its index in srcline.units */
};

/* A compilation unit's functions, listed when first needed. */
struct unit {
	struct range *fns; /* sorted by start */
	size_t nfns;
	bool listed;
};

/* The file is mapped and its descriptor closed at once: a program with
 * hundreds of libraries would otherwise keep hundreds of them open. */
struct srcline {
	Elf *elf;
	Dwarf *dw;
	struct range *ranges;
	size_t n;
	struct unit *units;
	size_t nunits;
};

static void
add_cu_ranges(struct srcline *s, size_t *cap, Dwarf_Die *cu, size_t unit)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		xgrow(&s->ranges, cap, s->n + 1, sizeof(*s->ranges));
		s->ranges[s->n++] = (struct range){
			.start = start, .end = end, .die = dwarf_dieoffset(cu),
			.unit = unit,
		};
	}
}

/* By start, and of ranges that start together the longer first: the
 * searches look from the last range starting at or below an address
 * downwards, so they meet the innermost first. */
static int
cmp_range(const void *pa, const void *pb)
{
	const struct range *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? 1 : a->end > b->end ? -1 : 0;
}

static void
index_units(struct srcline *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0, ucap = 0;

	while (dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(s->dw, off + hsize, &cu)) {
			xgrow(&s->units, &ucap, s->nunits + 1,
			      sizeof(*s->units));
			s->units[s->nunits] = (struct unit){ 0 };
			add_cu_ranges(s, &cap, &cu, s->nunits++);
		}
		off = next;
	}
	if (s->n)
		qsort(s->ranges, s->n, sizeof(*s->ranges), cmp_range);
}

bool
srcline_available(void)
{
	return true;
}

struct srcline *
srcline_open(const char *path, char *why, size_t whylen)
{
	struct srcline *s = xcalloc(1, sizeof(*s));

	/* The file was checked when its symbols were read, but it may have
	 * been replaced since. */
	int fd = regfile_open(path, NULL);
	if (fd < 0) {
		snprintf(why, whylen, "%s", regfile_strerror(fd));
		goto out_free;
	}
	elf_version(EV_CURRENT);
	s->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (s->elf)
		elf_cntl(s->elf, ELF_C_FDDONE);
	close(fd);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF) {
		snprintf(why, whylen, "not an ELF file");
		goto out_free;
	}
	s->dw = dwarf_begin_elf(s->elf, DWARF_C_READ, NULL);
	if (!s->dw) {
		snprintf(why, whylen, "no DWARF (%s)", dwarf_errmsg(-1));
		goto out_free;
	}
	index_units(s);
	if (!s->n) {
		snprintf(why, whylen, "no compilation unit with code");
		goto out_free;
	}
	return s;

out_free:
	srcline_free(s);
	return NULL;
}

void
srcline_free(struct srcline *s)
{
	if (!s)
		return;
	if (s->dw)
		dwarf_end(s->dw);
	if (s->elf)
		elf_end(s->elf);
	for (size_t i = 0; i < s->nunits; i++)
		free(s->units[i].fns);
	free(s->units);
	free(s->ranges);
	free(s);
}

static bool
lookup_in_unit(struct srcline *s, Dwarf_Off die, uint64_t addr,
	       const char **file, unsigned *line)
{
	Dwarf_Die cu;
	int lineno;
	if (!dwarf_offdie(s->dw, die, &cu))
		return false;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, addr);
	if (!l || dwarf_lineno(l, &lineno) != 0 || lineno <= 0)
		return false;
	const char *src = dwarf_linesrc(l, NULL, NULL);
	if (!src)
		return false;
	*file = src;
	*line = (unsigned)lineno;
	return true;
}

/* Index of the first of the n ranges r (sorted by start) that starts
 * above addr: the ones that may hold it come just before. */
static size_t
first_above(const struct range *r, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool
srcline_lookup(struct srcline *s, uint64_t addr, const char **file,
	       unsigned *line)
{
	size_t lo = first_above(s->ranges, s->n, addr);
	/* Units rarely overlap; a few steps down cover those that do. */
	for (size_t k = 0; k < 4 && lo > k; k++) {
		const struct range *r = &s->ranges[lo - 1 - k];
		if (addr < r->end && lookup_in_unit(s, r->die, addr, file, line))
			return true;
	}
	return false;
}

/* The unit whose address range holds addr, and its index in s->units
 * when unit is not NULL. */
static bool
find_unit(struct srcline *s, uint64_t addr, Dwarf_Die *cu, size_t *unit)
{
	size_t lo = first_above(s->ranges, s->n, addr);
	for (size_t k = 0; k < 4 && lo > k; k++) {
		const struct range *r = &s->ranges[lo - 1 - k];
		if (addr < r->end && dwarf_offdie(s->dw, r->die, cu)) {
			if (unit)
				*unit = r->unit;
			return true;
		}
	}
	return false;
}

/* Adds the functions with code among parent's children, and those of the
 * scopes that can hold functions (namespaces, classes, and functions and
 * blocks for nested ones), but not of inlined calls: those are the bulk of
 * a unit and hold no function of their own. */
static void
list_fns_under(struct unit *u, size_t *cap, Dwarf_Die *parent)
{
	Dwarf_Die d;
	if (dwarf_child(parent, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;
			while ((off = dwarf_ranges(&d, off, &base, &start,
						   &end)) > 0) {
				if (end <= start)
					continue;
				xgrow(&u->fns, cap, u->nfns + 1,
				      sizeof(*u->fns));
				u->fns[u->nfns++] = (struct range){
					.start = start, .end = end,
					.die = dwarf_dieoffset(&d),
				};
			}
		}
		switch (tag) {
		case DW_TAG_subprogram:
		case DW_TAG_lexical_block:
		case DW_TAG_namespace:
		case DW_TAG_module:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			if (dwarf_haschildren(&d) > 0)
				list_fns_under(u, cap, &d);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&d, &d) == 0);
}

/* The innermost function whose code holds addr (*fn) and its unit
 * (*cu). */
static bool
find_fn(struct srcline *s, uint64_t addr, Dwarf_Die *cu, Dwarf_Die *fn)
{
	size_t ui;
	if (!find_unit(s, addr, cu, &ui))
		return false;
	struct unit *u = &s->units[ui];
	if (!u->listed) {
		size_t cap = 0;
		list_fns_under(u, &cap, cu);
		if (u->nfns)
			qsort(u->fns, u->nfns, sizeof(*u->fns), cmp_range);
		u->listed = true;
	}
	size_t lo = first_above(u->fns, u->nfns, addr);
	/* The last function starting at or below addr is the innermost
	 * that may hold it (a nested function starts inside its parent);
	 * a few steps down cover ranges that overlap otherwise. */
	for (size_t k = 0; k < 8 && lo > k; k++) {
		const struct range *r = &u->fns[lo - 1 - k];
		if (addr < r->end)
			return dwarf_offdie(s->dw, r->die, fn) != NULL;
	}
	return false;
}

static unsigned
attr_udata(Dwarf_Die *die, int name)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	if (!dwarf_attr(die, name, &a) || dwarf_formudata(&a, &w) != 0)
		return 0;
	return (unsigned)w;
}

/* The name of a scope, through its abstract origin for an inlined
 * instance (which has none of its own). */
static const char *
scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n ? n : "?";
}

/* The symbol name of a scope, as scope_name(), or NULL (C has none). */
static const char *
scope_linkage(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		return dwarf_formstring(&a);
	return NULL;
}

/* Deepest inlined calls are rarely more than a dozen; a chain deeper than
 * this keeps its outermost calls. */
#define INLINE_DEPTH_MAX 64

size_t
srcline_inlines(struct srcline *s, uint64_t addr, struct srcline_inline *out,
		size_t max)
{
	Dwarf_Die cu, die, child, path[INLINE_DEPTH_MAX];
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, np = 0, n = 0;

	if (!find_fn(s, addr, &cu, &die))
		return 0;
	/* Down from the function through the blocks and inlined calls that
	 * hold addr: the inlined calls met are the chain, outermost first. */
	for (bool down = true; down;) {
		down = false;
		if (dwarf_child(&die, &child) != 0)
			break;
		do {
			int tag = dwarf_tag(&child);
			if ((tag == DW_TAG_inlined_subroutine ||
			     tag == DW_TAG_lexical_block) &&
			    dwarf_haspc(&child, addr) > 0) {
				if (tag == DW_TAG_inlined_subroutine &&
				    np < INLINE_DEPTH_MAX)
					path[np++] = child;
				die = child;
				down = true;
				break;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (np && dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
		files = NULL;
	while (np && n < max) {
		Dwarf_Die *d = &path[--np];
		unsigned fi = attr_udata(d, DW_AT_call_file);
		const char *cf = files && fi < nfiles ?
					 dwarf_filesrc(files, fi, NULL, NULL) :
					 NULL;
		out[n++] = (struct srcline_inline){
			.name = scope_name(d),
			.linkage = scope_linkage(d),
			.call_file = cf ? cf : "?",
			.call_line = attr_udata(d, DW_AT_call_line),
		};
	}
	return n;
}

const char *
srcline_comp_dir(struct srcline *s, uint64_t addr)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	if (!find_unit(s, addr, &cu, NULL) || !dwarf_attr(&cu, DW_AT_comp_dir, &a))
		return NULL;
	return dwarf_formstring(&a);
}

bool
srcline_function(struct srcline *s, uint64_t addr, const char **file,
		 unsigned *line)
{
	Dwarf_Die cu, fn;
	const char *f;
	int l;

	if (!find_fn(s, addr, &cu, &fn) || !(f = dwarf_decl_file(&fn)) ||
	    dwarf_decl_line(&fn, &l) != 0 || l <= 0)
		return false;
	*file = f;
	*line = (unsigned)l;
	return true;
}

#else /* !HAVE_LIBDW */

bool
srcline_available(void)
{
	return false;
}

struct srcline *
srcline_open(const char *path, char *why, size_t whylen)
{
	(void)path;
	snprintf(why, whylen, "this profanalyze was built without libdw");
	return NULL;
}

void
srcline_free(struct srcline *s)
{
	(void)s;
}

bool
srcline_lookup(struct srcline *s, uint64_t addr, const char **file,
	       unsigned *line)
{
	(void)s;
	(void)addr;
	(void)file;
	(void)line;
	return false;
}

size_t
srcline_inlines(struct srcline *s, uint64_t addr, struct srcline_inline *out,
		size_t max)
{
	(void)s;
	(void)addr;
	(void)out;
	(void)max;
	return 0;
}

const char *
srcline_comp_dir(struct srcline *s, uint64_t addr)
{
	(void)s;
	(void)addr;
	return NULL;
}

bool
srcline_function(struct srcline *s, uint64_t addr, const char **file,
		 unsigned *line)
{
	(void)s;
	(void)addr;
	(void)file;
	(void)line;
	return false;
}

#endif

/* file made absolute against dir (the unit's compilation directory) and
 * "x/../" and "./" taken out, as pprof -list opens the path it is given;
 * NULL stays NULL. Returns a new string or NULL. */
char *
srcline_path(const char *dir, const char *file)
{
	if (!file)
		return NULL;
	char *p = file[0] == '/' || !dir ? xstrdup(file) :
					   xasprintf("%s/%s", dir, file);
	if (p[0] != '/')
		return p;
	/* Components kept so far end at out; each "x/.." drops one. */
	size_t out = 0;
	for (char *c = p + 1; *c;) {
		char *end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);
		if ((n == 1 && c[0] == '.') || n == 0) {
			/* skip */
		} else if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (out > 0 && p[--out] != '/')
				;
		} else {
			p[out++] = '/';
			memmove(p + out, c, n);
			out += n;
		}
		c = *end ? end + 1 : end;
	}
	if (!out)
		p[out++] = '/';
	p[out] = '\0';
	return p;
}
