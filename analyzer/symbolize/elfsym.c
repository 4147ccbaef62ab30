/*
 * elfsym: function symbol tables read with libelf (see elfsym.h).
 *
 * A table keeps one copy of the string table its symbols came from and
 * names point into it, so a library with a hundred thousand symbols costs
 * two allocations, not a hundred thousand. The file itself is closed once
 * the table is built.
 */
#include "elfsym.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo.h"
#include "xmalloc.h"

/* Symbols looked at below the nearest one when it does not cover an
 * address: enough for a function that has a label-like function symbol
 * (size 0) or a nested alias inside it, without a scan of the table. */
#define LOOKUP_BACKTRACK 8

/* Bytes of an x86-64 PLT entry, in .plt and in .plt.sec. */
#define PLT_ENTRY 16

struct raw_sym {
	struct elfsym_sym sym;
	unsigned char bind;
};

struct elfsym {
	struct elfsym_sym *syms;
	size_t n;
	char *strs;       /* the string table the names point into */
	char *plt_names;  /* the names of the PLT's entries (add_plt) */
	char *source;
	char *dwarf_path; /* NULL when none (or not asked for) */
	char *note;
};

/* A copy of a string table, NUL-terminated even when the file's is not;
 * *len is the table's size. NULL when its data cannot be read. */
static char *
copy_strtab(const struct elffile *f, size_t link, size_t *len)
{
	Elf_Data *d = elf_getdata(elf_getscn(f->elf, link), NULL);
	if (!d || (d->d_size && !d->d_buf))
		return NULL;
	char *s = xmalloc(d->d_size + 1);
	if (d->d_size)
		memcpy(s, d->d_buf, d->d_size);
	s[d->d_size] = '\0';
	*len = d->d_size;
	return s;
}

static void
push_sym(struct raw_sym **v, size_t *n, size_t *cap, const GElf_Sym *s,
	 const char *name, bool is_arm)
{
	xgrow(v, cap, *n + 1, sizeof(**v));
	struct raw_sym *r = &(*v)[(*n)++];
	/* ARM marks Thumb code with bit 0 of the symbol value. */
	r->sym.addr = is_arm ? (s->st_value & ~(GElf_Addr)1) : s->st_value;
	r->sym.size = s->st_size;
	r->sym.name = name;
	r->bind = GELF_ST_BIND(s->st_info);
}

/* The defined function symbols of one symbol section, into *v; *strs gets
 * the string table they point into. Returns the number found, or -1 when
 * the section's data cannot be read. */
static long
read_symbols(const struct elffile *f, Elf_Scn *scn, struct raw_sym **v,
	     size_t *n, char **strs)
{
	GElf_Shdr shdr;
	Elf_Data *data;
	size_t cap = 0, strs_len = 0;

	*v = NULL;
	*n = 0;
	if (!gelf_getshdr(scn, &shdr) || !(data = elf_getdata(scn, NULL)) ||
	    !(*strs = copy_strtab(f, shdr.sh_link, &strs_len)))
		return -1;
	size_t count = data->d_size / shdr.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			break;
		int type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF || s.st_name == 0 ||
		    s.st_name >= strs_len)
			continue;
		push_sym(v, n, &cap, &s, *strs + s.st_name, f->is_arm);
	}
	return (long)*n;
}

static int
bind_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	case STB_LOCAL:
		return 2;
	default:
		return 3;
	}
}

size_t
elfsym_split_version(const char *name, const char **version,
		     bool *is_default)
{
	const char *at = strchr(name, '@');
	size_t len = strlen(name);

	*version = NULL;
	*is_default = false;
	if (!at || at == name)
		return len;
	bool dflt = at[1] == '@';
	const char *v = at + (dflt ? 2 : 1);
	if (!*v)
		return len;
	*version = v;
	*is_default = dflt;
	return (size_t)(at - name);
}

bool
elfsym_version_is_plt(const char *version)
{
	return version && strcmp(version, "plt") == 0;
}

/* 0 for a name as a report shows it plain (no version, or the default
 * one), 1 for one that keeps another version; *len gets the length the
 * report shows, less such a version. */
static int
version_rank(const char *name, size_t *len)
{
	const char *v;
	bool dflt;
	size_t plain = elfsym_split_version(name, &v, &dflt);
	*len = v && dflt ? plain : strlen(name);
	return v && !dflt;
}

/* Address order; within one address the preferred alias first. */
static int
cmp_raw(const void *pa, const void *pb)
{
	const struct raw_sym *a = pa, *b = pb;
	if (a->sym.addr != b->sym.addr)
		return a->sym.addr < b->sym.addr ? -1 : 1;
	int ra = bind_rank(a->bind), rb = bind_rank(b->bind);
	if (ra != rb)
		return ra - rb;
	size_t la, lb;
	ra = version_rank(a->sym.name, &la);
	rb = version_rank(b->sym.name, &lb);
	if (ra != rb)
		return ra - rb;
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->sym.name, b->sym.name);
}

/* Sorts v and collapses aliases into t's symbols. */
static void
build_table(struct elfsym *t, struct raw_sym *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_raw);
	t->syms = xcalloc(n, sizeof(*t->syms));
	t->n = 0;
	for (size_t i = 0; i < n; i++) {
		struct elfsym_sym *last = t->n ? &t->syms[t->n - 1] : NULL;
		if (last && last->addr == v[i].sym.addr) {
			if (v[i].sym.size > last->size)
				last->size = v[i].sym.size;
			continue;
		}
		t->syms[t->n++] = v[i].sym;
	}
}

/* Fills t from one symbol section. Returns the number of symbols, 0 when
 * it has no function symbols, -1 when it cannot be read (t unchanged). */
static long
take_section(struct elfsym *t, const struct elffile *f, Elf_Scn *scn,
	     const char *source)
{
	struct raw_sym *v;
	size_t n;
	char *strs = NULL;
	long got = read_symbols(f, scn, &v, &n, &strs);

	if (got > 0) {
		build_table(t, v, n);
		t->strs = strs;
		t->source = xstrdup(source);
	} else {
		free(strs);
	}
	free(v);
	return got;
}

static bool
build_id_differs(const struct elffile *f, const struct elfsym_opts *o)
{
	if (!o->build_id_len)
		return false;
	return f->build_id_len != o->build_id_len ||
	       memcmp(f->build_id, o->build_id, o->build_id_len) != 0;
}

/* The separate debug file: its symbols when the file has none in
 * .symtab, and the path of its DWARF when that is wanted. */
static void
use_debug_file(struct elfsym *t, const struct elffile *f, const char *path,
	       const struct elfsym_opts *o)
{
	struct elffile dbg;
	char *dbg_path;

	if (debuginfo_open(f, path, o->debug_root, &dbg, &dbg_path,
			   &t->note) != 0)
		return;
	/* A debug file whose .symtab cannot be read is passed over. */
	if (!t->syms && dbg.symtab)
		take_section(t, &dbg, dbg.symtab, dbg_path);
	if (o->want_dwarf && !t->dwarf_path && dbg.has_dwarf)
		t->dwarf_path = xstrdup(dbg_path);
	elffile_close(&dbg);
	free(dbg_path);
}

/* The slot an x86-64 PLT entry of len bytes at addr jumps through: its
 * "jmp *disp(%rip)" (ff 25), after an endbr64 and with a bnd prefix in
 * an IBT entry. False when the entry holds no such jump (the lazy
 * stubs of .plt next to a .plt.sec). */
static bool
plt_entry_slot(const uint8_t *b, size_t len, uint64_t addr, uint64_t *got)
{
	for (size_t j = 0; j + 6 <= len; j++) {
		if (b[j] != 0xff || b[j + 1] != 0x25)
			continue;
		int32_t disp = (int32_t)((uint32_t)b[j + 2] |
					 (uint32_t)b[j + 3] << 8 |
					 (uint32_t)b[j + 4] << 16 |
					 (uint32_t)b[j + 5] << 24);
		*got = addr + j + 6 + (uint64_t)(int64_t)disp;
		return true;
	}
	return false;
}

/* A PLT entry: where it is, and the slot it jumps through; name and len
 * its function's, once a relocation of the slot names it. */
struct plt_entry {
	uint64_t addr, size, got;
	const char *name;
	size_t len;
};

static int
cmp_entry_got(const void *pa, const void *pb)
{
	const struct plt_entry *a = pa, *b = pb;
	return a->got < b->got ? -1 : a->got > b->got;
}

/* The entries of f's .plt, .plt.sec (IBT) and .plt.got that jump
 * through a slot, sorted by slot; *n gets their number. */
static struct plt_entry *
plt_entries(const struct elffile *f, size_t shstrndx, size_t *n)
{
	static const char *const plts[] = { ".plt", ".plt.sec", ".plt.got" };
	struct plt_entry *v = NULL;
	size_t cap = 0;

	*n = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn));) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;
		bool plt = false;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(f->elf, shstrndx, sh.sh_name)))
			continue;
		for (size_t i = 0; i < sizeof(plts) / sizeof(plts[0]); i++)
			plt |= strcmp(name, plts[i]) == 0;
		/* (.plt.got's entries are 8 bytes, or 16 with IBT.) */
		size_t size = sh.sh_entsize ? sh.sh_entsize : PLT_ENTRY;
		if (!plt || size > 64 || !(d = elf_getdata(scn, NULL)) ||
		    !d->d_buf)
			continue;
		for (size_t at = 0; at + size <= d->d_size; at += size) {
			uint64_t got;
			if (!plt_entry_slot((const uint8_t *)d->d_buf + at, size,
					    sh.sh_addr + at, &got))
				continue;
			xgrow(&v, &cap, *n + 1, sizeof(*v));
			v[(*n)++] = (struct plt_entry){
				.addr = sh.sh_addr + at, .size = size, .got = got,
			};
		}
	}
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_entry_got);
	return v;
}

/* Names the entries (sorted by slot) from the relocations of their
 * slots that name a symbol, in every SHT_RELA section (.rela.plt's jump
 * slots, .rela.dyn's GLOB_DAT of .plt.got); returns the bytes their
 * names need, "@plt" and NULs included. */
static size_t
name_entries(const struct elffile *f, struct plt_entry *v, size_t n)
{
	size_t bytes = 0;

	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn));) {
		GElf_Shdr sh, symsh;
		Elf_Scn *symscn;
		Elf_Data *d, *syms, *strs;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize || !(symscn = elf_getscn(f->elf, sh.sh_link)) ||
		    !gelf_getshdr(symscn, &symsh) ||
		    !(d = elf_getdata(scn, NULL)) ||
		    !(syms = elf_getdata(symscn, NULL)) ||
		    !(strs = elf_getdata(elf_getscn(f->elf, symsh.sh_link),
					 NULL)) || !strs->d_buf)
			continue;
		for (size_t i = 0; i < d->d_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			struct plt_entry key, *hit;
			int si;
			if (!gelf_getrela(d, (int)i, &r) ||
			    !(si = (int)GELF_R_SYM(r.r_info)))
				continue;
			key.got = r.r_offset;
			if (!(hit = bsearch(&key, v, n, sizeof(*v),
					    cmp_entry_got)) ||
			    hit->name || !gelf_getsym(syms, si, &sym) ||
			    !sym.st_name || sym.st_name >= strs->d_size)
				continue;
			/* (Entries sharing a slot: the first of them.) */
			hit->name = (const char *)strs->d_buf + sym.st_name;
			hit->len = strnlen(hit->name,
					   strs->d_size - sym.st_name);
			bytes += hit->len + sizeof("@plt");
		}
	}
	return bytes;
}

static int
cmp_sym_addr(const void *pa, const void *pb)
{
	const struct elfsym_sym *a = pa, *b = pb;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The x86-64 PLT's entries, which no symbol table names: a sample in one
 * (the indirect jump of a call to a library function) is NAME@plt, as
 * objdump and perf call it, rather than the +0xSTART of the whole .plt,
 * which its unwind tables describe as one function. Each entry of .plt,
 * .plt.sec (IBT) and .plt.got is named by the slot its jump goes through,
 * as objdump finds it: the relocation of that slot names the function.
 * (Not by position in .rela.plt: a linker sorts IRELATIVE relocations
 * last, whatever their slots.) The lazy binder's entry, the lazy stubs
 * beside a .plt.sec and the entries of IRELATIVE slots (no symbol) stay
 * unnamed. Merges them into t's symbols (sorted, one per address; a
 * real symbol at the same address stays), from f, the profiled file (a
 * debug file's .plt is empty). */
static void
add_plt(struct elfsym *t, const struct elffile *f)
{
	GElf_Ehdr eh;
	size_t shstrndx, n;

	if (!t->syms || !gelf_getehdr(f->elf, &eh) ||
	    eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		return;
	struct plt_entry *v = plt_entries(f, shstrndx, &n);
	size_t bytes = n ? name_entries(f, v, n) : 0, k = 0;
	if (bytes) {
		/* The named ones, their names in one buffer, by address. */
		struct elfsym_sym *e = xcalloc(n, sizeof(*e));
		char *at = t->plt_names = xmalloc(bytes);
		for (size_t i = 0; i < n; i++) {
			if (!v[i].name)
				continue;
			memcpy(at, v[i].name, v[i].len);
			memcpy(at + v[i].len, "@plt", sizeof("@plt"));
			e[k++] = (struct elfsym_sym){ .addr = v[i].addr,
						      .size = v[i].size,
						      .name = at };
			at += v[i].len + sizeof("@plt");
		}
		qsort(e, k, sizeof(*e), cmp_sym_addr);
		/* Merged into the table; at an address that has a symbol,
		 * the symbol stays. */
		struct elfsym_sym *m = xcalloc(t->n + k, sizeof(*m));
		size_t i = 0, j = 0, out = 0;
		while (i < t->n || j < k) {
			if (j == k || (i < t->n && t->syms[i].addr <= e[j].addr)) {
				if (j < k && t->syms[i].addr == e[j].addr)
					j++;
				m[out++] = t->syms[i++];
			} else {
				m[out++] = e[j++];
			}
		}
		free(t->syms);
		t->syms = m;
		t->n = out;
		free(e);
	}
	free(v);
}

/* Reads the symbols of an open file into a new table, or NULL with why. */
static struct elfsym *
load_symbols(struct elffile *f, const char *path, const struct elfsym_opts *o,
	     struct elffile_why *why)
{
	struct elfsym *t = xcalloc(1, sizeof(*t));

	if (build_id_differs(f, o)) {
		elffile_why_set(why, ELFFILE_BUILD_ID, "build-id differs from "
				"the profiled file (changed since)");
		goto out_free;
	}
	if (!f->has_text) {
		elffile_why_set(why, ELFFILE_NO_TEXT,
				"couldn't find .text section");
		goto out_free;
	}
	if (f->symtab && take_section(t, f, f->symtab, ".symtab") < 0) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(.symtab cannot be read)");
		goto out_free;
	}
	if (o->want_dwarf && f->has_dwarf && path)
		t->dwarf_path = xstrdup(path);
	if (!t->syms || (o->want_dwarf && !t->dwarf_path))
		use_debug_file(t, f, path, o);
	if (!t->syms && f->dynsym &&
	    take_section(t, f, f->dynsym, ".dynsym") < 0) {
		elffile_why_set(why, ELFFILE_CORRUPT, "corrupt ELF file "
				"(.dynsym cannot be read)");
		goto out_free;
	}
	if (!t->syms && t->note && !o->allow_empty) {
		elffile_why_set(why, ELFFILE_NO_SYMBOLS, "no function symbols "
				"in .symtab or .dynsym; %s", t->note);
		goto out_free;
	}
	if (!t->syms && !o->allow_empty) {
		elffile_why_set(why, ELFFILE_NO_SYMBOLS, "no function symbols "
				"in .symtab, .dynsym or a separate debug "
				"file");
		goto out_free;
	}
	add_plt(t, f);
	return t;

out_free:
	elfsym_free(t);
	return NULL;
}

static const struct elfsym_opts no_opts;

struct elfsym *
elfsym_load(const char *path, const struct elfsym_opts *opts,
	    struct elffile_why *why)
{
	struct elffile f;
	if (elffile_open(&f, path, why) != 0)
		return NULL;
	struct elfsym *t = load_symbols(&f, path, opts ? opts : &no_opts, why);
	elffile_close(&f);
	return t;
}

struct elfsym *
elfsym_load_image(const void *data, size_t len,
		  const struct elfsym_opts *opts, struct elffile_why *why)
{
	struct elffile f;
	if (elffile_open_image(&f, data, len, why) != 0)
		return NULL;
	struct elfsym *t = load_symbols(&f, NULL, opts ? opts : &no_opts, why);
	elffile_close(&f);
	return t;
}

void
elfsym_free(struct elfsym *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->strs);
	free(t->plt_names);
	free(t->source);
	free(t->dwarf_path);
	free(t->note);
	free(t);
}

static bool
covers(const struct elfsym_sym *s, uint64_t addr)
{
	if (s->size == 0)
		return addr == s->addr;
	return addr - s->addr < s->size;
}

const struct elfsym_sym *
elfsym_lookup(const struct elfsym *t, uint64_t addr)
{
	/* Index of the first symbol above addr. */
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < LOOKUP_BACKTRACK && lo > k; k++) {
		const struct elfsym_sym *s = &t->syms[lo - 1 - k];
		if (covers(s, addr))
			return s;
	}
	return NULL;
}

size_t
elfsym_count(const struct elfsym *t)
{
	return t->n;
}

const struct elfsym_sym *
elfsym_get(const struct elfsym *t, size_t i)
{
	return &t->syms[i];
}

const char *
elfsym_source(const struct elfsym *t)
{
	return t->source;
}

const char *
elfsym_dwarf_path(const struct elfsym *t)
{
	return t->dwarf_path;
}

const char *
elfsym_note(const struct elfsym *t)
{
	return t->note;
}
