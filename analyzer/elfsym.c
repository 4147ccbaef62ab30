/*
 * elfsym: function symbol tables read with libelf (see elfsym.h).
 *
 * The file is read with ELF_C_READ, not mmap: a library replaced or cut
 * while we read it must give an error, not SIGBUS. Every section header
 * and every data block libelf hands out is checked before use, since the
 * files come from wherever the profiled program found them.
 */
#include "elfsym.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xmalloc.h"

#define BUILD_ID_MAX 64
/* Symbols looked at below the nearest one when it does not cover an
 * address: enough for a function that has a label-like function symbol
 * (size 0) or a nested alias inside it, without a scan of the table. */
#define LOOKUP_BACKTRACK 8

struct raw_sym {
	struct elfsym_sym sym;
	unsigned char bind;
};

struct elfsym {
	struct elfsym_sym *syms;
	size_t n;
	char *source;
};

/* One open ELF file while its symbols are read. */
struct elf_file {
	int fd;
	Elf *elf;
	size_t shstrndx;
	bool is_arm;
	Elf_Scn *symtab;
	Elf_Scn *dynsym;
	bool has_text;
	uint8_t build_id[BUILD_ID_MAX];
	size_t build_id_len;
};

static void __attribute__((format(printf, 3, 4)))
set_why(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;
	if (!whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

static void
read_build_id(struct elf_file *f, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Nhdr nhdr;
	size_t off = 0, name_off, desc_off;

	if (!data || !data->d_buf)
		return;
	while ((off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off))) {
		const char *name = (const char *)data->d_buf + name_off;
		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != 4 ||
		    memcmp(name, "GNU", 4) != 0 || nhdr.n_descsz == 0 ||
		    nhdr.n_descsz > BUILD_ID_MAX)
			continue;
		memcpy(f->build_id, (const uint8_t *)data->d_buf + desc_off,
		       nhdr.n_descsz);
		f->build_id_len = nhdr.n_descsz;
		return;
	}
}

/* Finds the sections we need. Returns 0 or -EBADMSG when the section
 * headers cannot be read. */
static int
scan_sections(struct elf_file *f)
{
	size_t nscn;
	if (elf_getshdrnum(f->elf, &nscn) != 0 ||
	    elf_getshdrstrndx(f->elf, &f->shstrndx) != 0)
		return -EBADMSG;
	for (size_t i = 1; i < nscn; i++) {
		Elf_Scn *scn = elf_getscn(f->elf, i);
		GElf_Shdr shdr;
		if (!scn || !gelf_getshdr(scn, &shdr))
			return -EBADMSG;
		const char *name = elf_strptr(f->elf, f->shstrndx, shdr.sh_name);
		if (name && strcmp(name, ".text") == 0)
			f->has_text = true;
		if (shdr.sh_type == SHT_SYMTAB && !f->symtab)
			f->symtab = scn;
		else if (shdr.sh_type == SHT_DYNSYM && !f->dynsym)
			f->dynsym = scn;
		else if (shdr.sh_type == SHT_NOTE && !f->build_id_len)
			read_build_id(f, scn);
	}
	return 0;
}

/* libelf reads a file cut before its section header table as a file
 * without sections; that deserves its own message, not "no .text". */
static bool
shdrs_past_end(int fd, const GElf_Ehdr *ehdr)
{
	struct stat st;
	if (ehdr->e_shoff == 0 || fstat(fd, &st) != 0)
		return false;
	/* e_shnum 0 means "more than fit here": section 0 must exist. */
	uint64_t n = ehdr->e_shnum ? ehdr->e_shnum : 1;
	uint64_t size = (uint64_t)st.st_size;
	if (ehdr->e_shoff > size)
		return true;
	return n * ehdr->e_shentsize > size - ehdr->e_shoff;
}

static void
elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
}

/* Opens path and scans its sections. Returns 0, or -1 with why set (and
 * nothing left open). */
static int
elf_file_open(struct elf_file *f, const char *path, char *why, size_t whylen)
{
	GElf_Ehdr ehdr;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		set_why(why, whylen, "libelf is too old");
		return -1;
	}
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		set_why(why, whylen, "%s", strerror(errno));
		return -1;
	}
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		set_why(why, whylen, "not an ELF file");
		goto out_close;
	}
	if (!gelf_getehdr(f->elf, &ehdr) || scan_sections(f) != 0) {
		set_why(why, whylen, "corrupt ELF file (%s)", elf_errmsg(-1));
		goto out_close;
	}
	if (shdrs_past_end(f->fd, &ehdr)) {
		set_why(why, whylen, "truncated ELF file (its section headers "
			"lie past its end)");
		goto out_close;
	}
	f->is_arm = ehdr.e_machine == EM_ARM;
	return 0;

out_close:
	elf_file_close(f);
	return -1;
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
	r->sym.name = xstrdup(name);
	r->bind = GELF_ST_BIND(s->st_info);
}

/* Appends the defined function symbols of one symbol section. Returns the
 * number added, or -1 when the section data cannot be read. */
static long
read_symbols(struct elf_file *f, Elf_Scn *scn, struct raw_sym **v, size_t *n,
	     size_t *cap)
{
	GElf_Shdr shdr;
	Elf_Data *data;
	size_t before = *n;

	if (!gelf_getshdr(scn, &shdr) || !(data = elf_getdata(scn, NULL)))
		return -1;
	size_t entsize = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
	size_t count = entsize ? data->d_size / entsize : 0;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			return -1;
		int type = GELF_ST_TYPE(s.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    s.st_shndx == SHN_UNDEF)
			continue;
		const char *name = elf_strptr(f->elf, shdr.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		push_sym(v, n, cap, &s, name, f->is_arm);
	}
	return (long)(*n - before);
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
	size_t la = strlen(a->sym.name), lb = strlen(b->sym.name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->sym.name, b->sym.name);
}

/* Sorts v and collapses aliases into t. Takes ownership of the names. */
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
			free((char *)v[i].sym.name);
			continue;
		}
		t->syms[t->n++] = v[i].sym;
	}
}

static void
free_raw(struct raw_sym *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)v[i].sym.name);
	free(v);
}

static void
hex_string(char *out, const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * len] = '\0';
}

/* The .symtab of the separate debug file for build_id, or NULL. */
static struct elfsym *
load_debug_file(const char *root, const uint8_t *id, size_t len)
{
	char hex[2 * BUILD_ID_MAX + 1], why[64];
	if (!root || len < 2 || len > BUILD_ID_MAX)
		return NULL;
	hex_string(hex, id, len);
	char *path = xasprintf("%s/.build-id/%.2s/%s.debug", root, hex, hex + 2);
	struct elfsym_opts o = { .build_id = id, .build_id_len = len };
	struct elfsym *t = elfsym_load(path, &o, why, sizeof(why));
	if (t && strcmp(t->source, ".symtab") != 0) {
		elfsym_free(t);
		t = NULL;
	}
	if (t) {
		free(t->source);
		t->source = path;
	} else {
		free(path);
	}
	return t;
}

/* Reads the symbols of an open file into a new table, or NULL with why. */
static struct elfsym *
load_symbols(struct elf_file *f, const struct elfsym_opts *o, char *why,
	     size_t whylen)
{
	struct raw_sym *v = NULL;
	size_t n = 0, cap = 0;
	const char *source = ".symtab";
	long got = 0;

	if (f->symtab)
		got = read_symbols(f, f->symtab, &v, &n, &cap);
	if (got == 0) {
		struct elfsym *dbg = load_debug_file(o->debug_root, f->build_id,
						     f->build_id_len);
		if (dbg) {
			free_raw(v, n);
			return dbg;
		}
		source = ".dynsym";
		if (f->dynsym)
			got = read_symbols(f, f->dynsym, &v, &n, &cap);
	}
	if (got < 0) {
		set_why(why, whylen, "corrupt symbol table (%s)", elf_errmsg(-1));
		goto out_free;
	}
	if (n == 0) {
		set_why(why, whylen, "no function symbols in .symtab or .dynsym");
		goto out_free;
	}
	struct elfsym *t = xcalloc(1, sizeof(*t));
	build_table(t, v, n);
	free(v);
	t->source = xstrdup(source);
	return t;

out_free:
	free_raw(v, n);
	return NULL;
}

struct elfsym *
elfsym_load(const char *path, const struct elfsym_opts *opts, char *why,
	    size_t whylen)
{
	static const struct elfsym_opts none;
	const struct elfsym_opts *o = opts ? opts : &none;
	struct elf_file f;
	struct elfsym *t = NULL;

	set_why(why, whylen, "%s", "");
	if (elf_file_open(&f, path, why, whylen) != 0)
		return NULL;
	if (o->build_id_len && f.build_id_len &&
	    (o->build_id_len != f.build_id_len ||
	     memcmp(o->build_id, f.build_id, f.build_id_len) != 0)) {
		set_why(why, whylen,
			"build-id differs from the profiled file (changed since)");
		goto out_close;
	}
	if (!f.has_text) {
		set_why(why, whylen, "couldn't find .text section");
		goto out_close;
	}
	t = load_symbols(&f, o, why, whylen);

out_close:
	elf_file_close(&f);
	return t;
}

void
elfsym_free(struct elfsym *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free((char *)t->syms[i].name);
	free(t->syms);
	free(t->source);
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
