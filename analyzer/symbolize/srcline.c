/*
 * srcline: DWARF line lookups with libdw (see srcline.h). Without libdw
 * the build keeps the interface and every open fails.
 */
#include "srcline.h"

#include <stdio.h>
#include <stdlib.h>

#include "xmalloc.h"

#ifdef HAVE_LIBDW

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <unistd.h>

#include "regfile.h"

struct cu_range {
	uint64_t start, end; /* [start, end) */
	Dwarf_Off die;       /* offset of the unit's DIE */
};

/* The file is mapped and its descriptor closed at once: a program with
 * hundreds of libraries would otherwise keep hundreds of them open. */
struct srcline {
	Elf *elf;
	Dwarf *dw;
	struct cu_range *ranges;
	size_t n;
};

static void
add_cu_ranges(struct srcline *s, size_t *cap, Dwarf_Die *cu)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(cu, off, &base, &start, &end)) > 0) {
		if (end <= start)
			continue;
		xgrow(&s->ranges, cap, s->n + 1, sizeof(*s->ranges));
		s->ranges[s->n++] = (struct cu_range){
			.start = start, .end = end, .die = dwarf_dieoffset(cu),
		};
	}
}

static int
cmp_range(const void *pa, const void *pb)
{
	const struct cu_range *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static void
index_units(struct srcline *s)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	while (dwarf_nextcu(s->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(s->dw, off + hsize, &cu))
			add_cu_ranges(s, &cap, &cu);
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

/* Index of the first unit range starting above addr: the ones that may
 * hold it come just before. */
static size_t
first_above(const struct srcline *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->ranges[mid].start <= addr)
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
	size_t lo = first_above(s, addr);
	/* Units rarely overlap; a few steps down cover those that do. */
	for (size_t k = 0; k < 4 && lo > k; k++) {
		const struct cu_range *r = &s->ranges[lo - 1 - k];
		if (addr < r->end && lookup_in_unit(s, r->die, addr, file, line))
			return true;
	}
	return false;
}

/* The unit whose address range holds addr. */
static bool
find_unit(struct srcline *s, uint64_t addr, Dwarf_Die *cu)
{
	size_t lo = first_above(s, addr);
	for (size_t k = 0; k < 4 && lo > k; k++) {
		const struct cu_range *r = &s->ranges[lo - 1 - k];
		if (addr < r->end && dwarf_offdie(s->dw, r->die, cu))
			return true;
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

size_t
srcline_inlines(struct srcline *s, uint64_t addr, struct srcline_inline *out,
		size_t max)
{
	Dwarf_Die cu, *scopes = NULL;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, n = 0;

	if (!find_unit(s, addr, &cu))
		return 0;
	int ns = dwarf_getscopes(&cu, addr, &scopes);
	if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0)
		files = NULL;
	for (int i = 0; i < ns && n < max; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram)
			break;
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		unsigned fi = attr_udata(&scopes[i], DW_AT_call_file);
		const char *cf = files && fi < nfiles ?
					 dwarf_filesrc(files, fi, NULL, NULL) :
					 NULL;
		out[n++] = (struct srcline_inline){
			.name = scope_name(&scopes[i]),
			.linkage = scope_linkage(&scopes[i]),
			.call_file = cf ? cf : "?",
			.call_line = attr_udata(&scopes[i], DW_AT_call_line),
		};
		/* dwarf_getscopes() goes on with the scopes of the inlined
		 * function's abstract definition, not with the code it was
		 * inlined into: the scopes holding this instance (itself
		 * first) are those. */
		Dwarf_Die *up = NULL;
		int nu = dwarf_getscopes_die(&scopes[i], &up);
		free(scopes);
		scopes = up;
		ns = nu;
		i = 0;
	}
	free(scopes);
	return n;
}

const char *
srcline_comp_dir(struct srcline *s, uint64_t addr)
{
	Dwarf_Die cu;
	Dwarf_Attribute a;
	if (!find_unit(s, addr, &cu) || !dwarf_attr(&cu, DW_AT_comp_dir, &a))
		return NULL;
	return dwarf_formstring(&a);
}

bool
srcline_function(struct srcline *s, uint64_t addr, const char **file,
		 unsigned *line)
{
	Dwarf_Die cu, *scopes = NULL;
	bool ok = false;

	if (!find_unit(s, addr, &cu))
		return false;
	int ns = dwarf_getscopes(&cu, addr, &scopes);
	for (int i = 0; i < ns && !ok; i++) {
		int l;
		const char *f;
		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram ||
		    !(f = dwarf_decl_file(&scopes[i])) ||
		    dwarf_decl_line(&scopes[i], &l) != 0 || l <= 0)
			continue;
		*file = f;
		*line = (unsigned)l;
		ok = true;
	}
	free(scopes);
	return ok;
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
