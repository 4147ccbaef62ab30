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

/* 0 for a name as a report shows it plain (no version, or the default
 * one), 1 for one that keeps another version; *len gets the length the
 * report shows, less such a version. */
bool
elfsym_version_is_plt(const char *version)
{
	return version && strcmp(version, "plt") == 0;
}

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

/* A named jump slot of .rela.plt: the GOT slot's address and the name of
 * the function it is bound to. */
struct plt_slot {
	uint64_t got;
	const char *name;
	size_t len;
};

static int
cmp_slot(const void *pa, const void *pb)
{
	const struct plt_slot *a = pa, *b = pb;
	return a->got < b->got ? -1 : a->got > b->got;
}

/* The GOT slot an x86-64 PLT entry of 16 bytes at addr jumps through:
 * its "jmp *disp(%rip)" (ff 25), after an endbr64 and with a bnd prefix
 * in an IBT entry. False when the entry holds no such jump. */
static bool
plt_entry_slot(const uint8_t *b, uint64_t addr, uint64_t *got)
{
	for (size_t j = 0; j + 6 <= PLT_ENTRY; j++) {
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

/* The x86-64 PLT's entries, which no symbol table names: a sample in one
 * (the indirect jump of a call to a library function) is NAME@plt, as
 * objdump and perf call it, rather than the +0xSTART of the whole .plt,
 * which its unwind tables describe as one function. Each entry of
 * .plt.sec when the file has one (IBT), else of .plt, is named by the
 * GOT slot its jump goes through: the R_X86_64_JUMP_SLOT of .rela.plt at
 * that slot names the function, as objdump finds it. (Not by position:
 * a linker sorts IRELATIVE relocations last, whatever their slots.) The
 * lazy binder's entry and those of IRELATIVE slots stay unnamed. A real
 * symbol at the same address wins. Adds them to t's symbols from f, the
 * profiled file (a debug file's .plt is empty). */
static void
add_plt(struct elfsym *t, const struct elffile *f)
{
	GElf_Ehdr eh;
	GElf_Shdr sh, rela_sh = { 0 }, dyn_sh, code_sh = { 0 };
	Elf_Scn *scn = NULL, *rela = NULL, *plt = NULL, *sec = NULL;
	size_t shstrndx;

	if (!t->syms || !gelf_getehdr(f->elf, &eh) ||
	    eh.e_machine != EM_X86_64 ||
	    elf_getshdrstrndx(f->elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *name;
		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(f->elf, shstrndx, sh.sh_name)))
			continue;
		if (strcmp(name, ".rela.plt") == 0 && sh.sh_type == SHT_RELA) {
			rela = scn;
			rela_sh = sh;
		} else if (strcmp(name, ".plt") == 0 &&
			   sh.sh_type == SHT_PROGBITS) {
			plt = scn;
		} else if (strcmp(name, ".plt.sec") == 0 &&
			   sh.sh_type == SHT_PROGBITS) {
			sec = scn;
		}
	}
	Elf_Scn *code = sec ? sec : plt;
	Elf_Data *rd, *dd, *sd, *cd;
	Elf_Scn *dyn;
	if (!rela || !code || !rela_sh.sh_entsize ||
	    !gelf_getshdr(code, &code_sh) ||
	    !(cd = elf_getdata(code, NULL)) || !cd->d_buf ||
	    !(rd = elf_getdata(rela, NULL)) ||
	    !(dyn = elf_getscn(f->elf, rela_sh.sh_link)) ||
	    !gelf_getshdr(dyn, &dyn_sh) || !(dd = elf_getdata(dyn, NULL)) ||
	    !(sd = elf_getdata(elf_getscn(f->elf, dyn_sh.sh_link), NULL)) ||
	    !sd->d_buf)
		return;
	size_t count = rd->d_size / rela_sh.sh_entsize, n = 0;
	struct plt_slot *slot = xcalloc(count ? count : 1, sizeof(*slot));
	for (size_t i = 0; i < count; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &r) ||
		    GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) ||
		    !sym.st_name || sym.st_name >= sd->d_size)
			continue;
		const char *name = (const char *)sd->d_buf + sym.st_name;
		slot[n++] = (struct plt_slot){
			.got = r.r_offset, .name = name,
			.len = strnlen(name, sd->d_size - sym.st_name),
		};
	}
	qsort(slot, n, sizeof(*slot), cmp_slot);
	/* The entries whose slot is named, then their names in one
	 * buffer, with the table again: its symbols are already one per
	 * address, so their binding only has to rank them above these. */
	size_t entries = cd->d_size / PLT_ENTRY, k = 0, bytes = 0;
	struct raw_sym *v = xcalloc(t->n + entries + 1, sizeof(*v));
	const struct plt_slot **of = xcalloc(entries + 1, sizeof(*of));
	for (size_t e = 0; e < entries && n; e++) {
		uint64_t addr = code_sh.sh_addr + e * PLT_ENTRY, got;
		struct plt_slot key;
		if (!plt_entry_slot((const uint8_t *)cd->d_buf + e * PLT_ENTRY,
				    addr, &got))
			continue;
		key.got = got;
		const struct plt_slot *hit =
			bsearch(&key, slot, n, sizeof(*slot), cmp_slot);
		if (!hit)
			continue;
		v[t->n + k] = (struct raw_sym){
			.sym = { .addr = addr, .size = PLT_ENTRY },
			.bind = STB_LOOS,
		};
		of[k++] = hit;
		bytes += hit->len + sizeof("@plt");
	}
	if (k) {
		char *at = t->plt_names = xmalloc(bytes);
		for (size_t i = 0; i < k; i++) {
			memcpy(at, of[i]->name, of[i]->len);
			memcpy(at + of[i]->len, "@plt", sizeof("@plt"));
			v[t->n + i].sym.name = at;
			at += of[i]->len + sizeof("@plt");
		}
		for (size_t i = 0; i < t->n; i++)
			v[i] = (struct raw_sym){ .sym = t->syms[i],
						 .bind = STB_GLOBAL };
		size_t total = t->n + k;
		free(t->syms);
		build_table(t, v, total);
	}
	free(of);
	free(v);
	free(slot);
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
	if (!t->syms && t->note) {
		elffile_why_set(why, ELFFILE_NO_SYMBOLS, "no function symbols "
				"in .symtab or .dynsym; %s", t->note);
		goto out_free;
	}
	if (!t->syms) {
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
