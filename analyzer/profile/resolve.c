/*
 * resolve: PCs to functions, with the per-file symbol tables and the
 * caches (see resolve.h).
 *
 * Function identity is (module file, symbol address) for named code and
 * (module file, offset) for unnamed code, kept in one map per file with
 * the unnamed keys tagged by the top bit. Two instances of one file (a
 * library loaded, unloaded and loaded again elsewhere) therefore share
 * their functions, as they should. With lines, named code is identified
 * by (symbol address, source file, line) instead, in a second map keyed
 * by a hash of the three and checked against them.
 *
 * An unnamed PC of a file whose symbols were read is keyed (and named)
 * by the start of the function that holds it, as the file's unwind
 * tables give it (ehframe.h), so a stripped binary's static functions
 * are one row each, "module+0xSTART"; only a PC no FDE covers keeps its
 * own offset.
 *
 * A PC in inlined code resolves to several frames (resolve.h): the
 * cache then holds, in place of a function id, FRAMES_TAG with the
 * place of the frames in one pool of function ids. The inlined
 * functions of a file are found by their DWARF name (the linkage name
 * when there is one), with lines by (name, file, line), in a third map
 * like the one of the functions split by line.
 */
#include "resolve.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "diag.h"
#include "ehframe.h"
#include "elfsym.h"
#include "hmap.h"
#include "perfmap.h"
#include "srcline.h"
#include "xmalloc.h"

#define UNNAMED_KEY (1ull << 63)

/* A cached PC whose value is not a function id but frames in the pool:
 * FRAMES_TAG | offset << 8 | count. */
#define FRAMES_TAG (1ull << 63)
/* Inlined calls kept per PC, the innermost ones (deeper nests lose
 * their outermost inlined calls). */
#define MAX_INLINE 32

/* One function of a file split by line (see the top of the file). */
struct linefunc {
	uint64_t sym;
	const char *file; /* owned by the file's srcline */
	unsigned line;
	uint32_t func;
};

/* One inlined function of a file (see the top of the file). */
struct inlfunc {
	const char *key;  /* its DWARF name (owned by the file's srcline) */
	const char *file; /* with lines, else NULL */
	unsigned line;
	uint32_t func;
};

struct rfile {
	bool opened;
	const char *path;    /* the file read: the module's, or the exe */
	bool no_file;        /* [vdso] without image and such: nothing read */
	bool gone;           /* the file no longer exists */
	struct elfsym *syms; /* NULL when unusable */
	struct srcline *lines;
	struct ehframe *fdes; /* its unwind tables' functions, or NULL */
	bool fdes_read;
	bool no_symbols;     /* the profiled file, without function symbols */
	uint32_t pmodule;    /* profile module index */
	struct hmap_ids funcs; /* by symbol address, or offset|UNNAMED_KEY */
	struct hmap line_index; /* hash -> index into linefuncs */
	struct linefunc *linefuncs;
	size_t nlinefuncs, linefuncs_cap;
	struct hmap inl_index; /* hash -> index into inlfuncs */
	struct inlfunc *inlfuncs;
	size_t ninlfuncs, inlfuncs_cap;
};

struct resolver {
	const struct modmap *map;
	struct profile *prof;
	struct resolve_opts opts;
	struct rfile *files;     /* parallel to map->files */
	struct hmap *pc_cache;   /* 2 per instance: [2i] leaf, [2i+1] return */
	struct hmap_ids no_module; /* functions of PCs in no module, by PC */
	const struct perfmap *perfmap; /* JIT code's symbols, or NULL */
	uint32_t *jit_funcs;       /* by perf map symbol id, PROFILE_NONE
				    * until made */
	uint32_t jit_module;       /* "[jit]", PROFILE_NONE until needed */
	/* Files without DWARF (with lines): one warning names them all,
	 * since most system libraries have none. */
	const char **no_dwarf;
	size_t nno_dwarf, no_dwarf_cap;
	/* The frames of PCs in inlined code, outermost first (FRAMES_TAG),
	 * and the one frame resolver_frames() returns for the others. */
	uint32_t *pool;
	size_t npool, pool_cap;
	uint32_t one;
};

struct resolver *
resolver_new(const struct modmap *m, struct profile *p,
	     const struct resolve_opts *opts)
{
	struct resolver *r = xcalloc(1, sizeof(*r));
	r->map = m;
	r->prof = p;
	if (opts)
		r->opts = *opts;
	r->files = xcalloc(m->nfiles, sizeof(*r->files));
	r->pc_cache = xcalloc(2 * m->ninst, sizeof(*r->pc_cache));
	r->jit_module = PROFILE_NONE;
	return r;
}

void
resolver_free(struct resolver *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->map->nfiles; i++) {
		struct rfile *f = &r->files[i];
		elfsym_free(f->syms);
		srcline_free(f->lines);
		ehframe_free(f->fdes);
		hmap_ids_free(&f->funcs);
		hmap_free(&f->line_index);
		free(f->linefuncs);
		hmap_free(&f->inl_index);
		free(f->inlfuncs);
	}
	for (size_t i = 0; i < 2 * r->map->ninst; i++)
		hmap_free(&r->pc_cache[i]);
	hmap_ids_free(&r->no_module);
	free(r->jit_funcs);
	free(r->no_dwarf);
	free(r->pool);
	free(r->files);
	free(r->pc_cache);
	free(r);
}

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* The name unnamed frames of a file get: its base name, or a bracketed
 * pseudo path as it is. */
static const char *
display_base(const char *path)
{
	if (!*path)
		return "[anon]";
	return path[0] == '[' ? path : base_name(path);
}

/* The form unnamed frames of f take, for the warning: in a file read
 * without symbols, the start of the function the unwind tables give
 * (unnamed_start), where they have one. */
static char *
unnamed_form(const struct rfile *f)
{
	if (f->gone)
		return xasprintf("<unloaded %s+0xOFFSET>", display_base(f->path));
	if (f->no_symbols)
		return xasprintf("%s+0xSTART (a function's start in its "
				 "unwind tables; +0xOFFSET where they have "
				 "none)", display_base(f->path));
	return xasprintf("%s+0xOFFSET", display_base(f->path));
}

static void
warn_file(const struct rfile *f, const char *what, const char *consequence)
{
	char *form = unnamed_form(f);
	diag_warn("%s: %s; %s%s", f->path[0] ? f->path : "[anon]", what,
		  consequence ? consequence : "its frames show as ",
		  consequence ? "" : form);
	free(form);
}

/* The spool format lets a writer leave the executable's path empty; so
 * may be the vdso's. An empty-path module whose build-id is the one of
 * the process's executable is the executable; anything else stays a
 * module without a file (and without a warning). */
static struct elfsym *
load_exe_for_empty_path(struct resolver *r, const struct modmap_file *mf,
			const struct elfsym_opts *o)
{
	const char *exe = r->prof->hdr.exe;
	struct elffile_why why;
	if (!exe || exe[0] != '/' || !mf->build_id_len)
		return NULL;
	return elfsym_load(exe, o, &why);
}

/* Whether the files' DWARF is read: for lines, or for inlined frames
 * (which a build without libdw cannot give: no debug file is looked
 * for then). */
static bool
want_dwarf(const struct resolver *r)
{
	return r->opts.lines || (!r->opts.no_inline && srcline_available());
}

/* The DWARF of f, when want_dwarf(). Only lines are promised: a file
 * without DWARF, or whose DWARF cannot be read, is warned about only
 * when they were asked for. */
static void
open_lines(struct resolver *r, struct rfile *f)
{
	const char *dw = elfsym_dwarf_path(f->syms);
	char why[256];

	if (!dw) {
		if (!r->opts.lines)
			return;
		xgrow(&r->no_dwarf, &r->no_dwarf_cap, r->nno_dwarf + 1,
		      sizeof(*r->no_dwarf));
		r->no_dwarf[r->nno_dwarf++] = f->path;
		return;
	}
	f->lines = srcline_open(dw, why, sizeof(why));
	if (!f->lines && r->opts.lines) {
		char *what = xasprintf("no line information (%s: %s)", dw, why);
		warn_file(f, what, "its frames show function names only");
		free(what);
	}
}

/* Reads the symbols of a file: from the spool's image of it, or from the
 * file at its path. */
static void
load_file(struct resolver *r, struct rfile *f, const struct modmap_file *mf,
	  const struct elfsym_opts *o)
{
	struct elffile_why why;

	if (mf->image)
		f->syms = elfsym_load_image(mf->image, mf->image_len, o, &why);
	else
		f->syms = elfsym_load(f->path, o, &why);
	if (!f->syms) {
		f->gone = why.fail == ELFFILE_GONE;
		f->no_symbols = why.fail == ELFFILE_NO_SYMBOLS && !mf->image;
		r->prof->modules[f->pmodule].no_symbols = f->no_symbols;
		warn_file(f, why.text, NULL);
		return;
	}
	r->prof->modules[f->pmodule].dynsym_only =
		!mf->image && strcmp(elfsym_source(f->syms), ".dynsym") == 0;
	if (elfsym_note(f->syms))
		diag_warn("%s: %s", f->path, elfsym_note(f->syms));
	/* An image (the vdso) has DWARF only when a debug file was found
	 * for it by build-id; it is not listed as lacking it otherwise. */
	if (want_dwarf(r) && (!mf->image || elfsym_dwarf_path(f->syms)))
		open_lines(r, f);
}

static struct rfile *
open_file(struct resolver *r, uint32_t idx)
{
	struct rfile *f = &r->files[idx];
	const struct modmap_file *mf = &r->map->files[idx];
	struct elfsym_opts o = {
		.build_id = mf->build_id,
		.build_id_len = mf->build_id_len,
		.debug_root = r->opts.debug_root,
		.want_dwarf = want_dwarf(r),
	};

	if (f->opened)
		return f;
	f->opened = true;
	f->path = mf->path;
	if (!mf->path[0] && (f->syms = load_exe_for_empty_path(r, mf, &o)))
		f->path = r->prof->hdr.exe;
	f->pmodule = profile_module(r->prof, f->path);
	profile_module_set_build_id(r->prof, f->pmodule, mf->build_id,
				    mf->build_id_len);
	f->no_file = !mf->image && (f->path[0] == '\0' || f->path[0] == '[');
	if (f->syms && want_dwarf(r))
		open_lines(r, f);
	else if (!f->no_file && !f->syms)
		load_file(r, f, mf, &o);
	return f;
}

/* The name a symbol is shown by: the symbol table's name demangled,
 * without its version when that is the default one (memcpy@@GLIBC_2.14
 * is memcpy), with it when it is another (memcpy@GLIBC_2.2.5 stays, the
 * name demangled before it). *version gets the version, or NULL. A new
 * string the caller frees. */
static char *
symbol_name(const struct resolver *r, const char *sym, const char **version)
{
	bool dflt;
	size_t len = elfsym_split_version(sym, version, &dflt);
	char *plain = xstrndup(sym, len);
	char *nice = r->opts.no_demangle ? NULL : demangle_name(plain);
	char *name;

	if (*version && !dflt)
		name = xasprintf("%s@%s", nice ? nice : plain, *version);
	else
		name = xstrdup(nice ? nice : plain);
	if (elfsym_version_is_plt(*version))
		*version = NULL; /* (NAME@plt: a PLT entry, no version) */
	free(nice);
	free(plain);
	return name;
}

/* A named function of f (unnamed ones are made by the callers). */
static uint32_t
add_func(struct resolver *r, struct rfile *f, const char *sym, uint64_t addr)
{
	const char *version;
	char *name = symbol_name(r, sym, &version);
	uint32_t fn = profile_add_func(r->prof, f->pmodule, name, addr, 0);
	profile_func_set_version(r->prof, fn, version);
	free(name);
	return fn;
}

/* The keys of the function sets, read from the profile's functions:
 * the maps hold an entry per distinct unnamed PC, too many for keys of
 * their own. */
static uint64_t
file_func_key(const void *funcs, uint32_t id)
{
	const struct profile_func *fn = (const struct profile_func *)funcs + id;
	return fn->addr | (fn->flags & PROFILE_FUNC_UNNAMED ? UNNAMED_KEY : 0);
}

static uint64_t
no_module_key(const void *funcs, uint32_t id)
{
	return ((const struct profile_func *)funcs)[id].addr;
}

static uint32_t
file_func(struct resolver *r, struct rfile *f, uint64_t key, const char *sym,
	  uint64_t addr)
{
	uint32_t *id = hmap_ids_ref(&f->funcs, r->prof->funcs, file_func_key,
				    key);
	if (*id == HMAP_NO_ID) {
		*id = add_func(r, f, sym, addr);
		f->funcs.count++;
	}
	return *id;
}

/* "libx.so+0x1f0" or "<unloaded libx.so+0x1f0>" into buf. Written by
 * hand: with many unnamed addresses, printf is a good part of the time. */
static void
unnamed_name(char *buf, size_t len, const char *base, uint64_t off, bool gone)
{
	char hex[17];
	int n = 0;
	do {
		hex[n++] = "0123456789abcdef"[off & 0xf];
		off >>= 4;
	} while (off);
	static const char open[] = "<unloaded ";
	size_t bl = strlen(base);
	if (bl > len - 40)
		bl = len - 40; /* room for "<unloaded ", "+0x1234...", ">" */
	char *p = buf;
	if (gone) {
		memcpy(p, open, sizeof(open) - 1);
		p += sizeof(open) - 1;
	}
	memcpy(p, base, bl);
	p += bl;
	memcpy(p, "+0x", 3);
	p += 3;
	while (n)
		*p++ = hex[--n];
	if (gone)
		*p++ = '>';
	*p = '\0';
}

static uint64_t
line_hash(uint64_t sym, const char *file, unsigned line)
{
	return hmap_hash_str(HMAP_HASH_INIT ^ sym ^ ((uint64_t)line << 40),
			     file);
}

/* Gives function fn its source position: file (as the DWARF of the unit
 * holding elf_addr names it) made absolute, as the exports that read
 * the PCs again (pcprof.h) give it. */
static void
set_source(struct resolver *r, struct rfile *f, uint32_t fn,
	   uint64_t elf_addr, const char *file, unsigned line)
{
	char *path = srcline_path(srcline_comp_dir(f->lines, elf_addr), file);
	profile_func_set_source(r->prof, fn, path, line);
	free(path);
}

/* The function "name (file:line)" of symbol s, made once per file, line
 * and symbol. Colliding hashes probe the next key. */
static uint32_t
line_func(struct resolver *r, struct rfile *f, const struct elfsym_sym *s,
	  const char *file, unsigned line)
{
	uint64_t idx;
	for (uint64_t h = line_hash(s->addr, file, line);; h++) {
		if (!hmap_get(&f->line_index, h, &idx))
			break;
		const struct linefunc *lf = &f->linefuncs[idx];
		if (lf->sym == s->addr && lf->line == line &&
		    strcmp(lf->file, file) == 0)
			return lf->func;
	}
	const char *version;
	char *sym = symbol_name(r, s->name, &version);
	char *name = xasprintf("%s (%s:%u)", sym, base_name(file), line);
	uint32_t fn = profile_add_func(r->prof, f->pmodule, name, s->addr, 0);
	set_source(r, f, fn, s->addr, file, line);
	profile_func_set_version(r->prof, fn, version);
	free(name);
	free(sym);
	xgrow(&f->linefuncs, &f->linefuncs_cap, f->nlinefuncs + 1,
	      sizeof(*f->linefuncs));
	f->linefuncs[f->nlinefuncs] = (struct linefunc){
		.sym = s->addr, .file = file, .line = line, .func = fn,
	};
	uint64_t h = line_hash(s->addr, file, line);
	while (hmap_get(&f->line_index, h, &idx))
		h++;
	hmap_put(&f->line_index, h, f->nlinefuncs++);
	return fn;
}

static uint64_t
inl_hash(const char *key, const char *file, unsigned line)
{
	uint64_t h = hmap_hash_str(HMAP_HASH_INIT ^ ((uint64_t)line << 40),
				   key);
	return file ? hmap_hash_str(h ^ 1, file) : h;
}

/* The name an inlined function is shown by: its linkage name demangled
 * (C++: the qualified name with its parameters, as its symbol's would
 * be), else its DWARF name. A new string the caller frees. */
static char *
inline_name(const struct resolver *r, const struct srcline_inline *in)
{
	char *nice = NULL;
	if (in->linkage && !r->opts.no_demangle)
		nice = demangle_name(in->linkage);
	if (nice)
		return nice;
	return xstrdup(in->linkage ? in->linkage : in->name);
}

/* The function of an inlined call, made once per file and name, and
 * with lines once per (name, file, line): "name" or "name (file:line)",
 * flagged PROFILE_FUNC_INLINED. file is NULL without lines. */
static uint32_t
inline_func(struct resolver *r, struct rfile *f, uint64_t elf_addr,
	    const struct srcline_inline *in, const char *file, unsigned line)
{
	const char *key = in->linkage ? in->linkage : in->name;
	uint64_t idx, h0 = inl_hash(key, file, line);
	for (uint64_t h = h0; hmap_get(&f->inl_index, h, &idx); h++) {
		const struct inlfunc *e = &f->inlfuncs[idx];
		if (e->line == line && strcmp(e->key, key) == 0 &&
		    (file ? e->file && strcmp(e->file, file) == 0 : !e->file))
			return e->func;
	}
	char *plain = inline_name(r, in);
	char *name = file ? xasprintf("%s (%s:%u)", plain, base_name(file),
				      line)
			  : plain;
	uint32_t fn = profile_add_func(r->prof, f->pmodule, name, 0,
				       PROFILE_FUNC_INLINED);
	if (file)
		set_source(r, f, fn, elf_addr, file, line);
	if (name != plain)
		free(name);
	free(plain);
	xgrow(&f->inlfuncs, &f->inlfuncs_cap, f->ninlfuncs + 1,
	      sizeof(*f->inlfuncs));
	f->inlfuncs[f->ninlfuncs] = (struct inlfunc){
		.key = key, .file = file, .line = line, .func = fn,
	};
	uint64_t h = h0;
	while (hmap_get(&f->inl_index, h, &idx))
		h++;
	hmap_put(&f->inl_index, h, f->ninlfuncs++);
	return fn;
}

/* Whether the DWARF says where an inlined call was made. */
static bool
call_known(const struct srcline_inline *in)
{
	return in->call_line && strcmp(in->call_file, "?") != 0;
}

/* The frames of a PC of symbol s at elf_addr in f: a function id, or
 * FRAMES_TAG and the frames in the pool when the PC is in inlined code.
 * With lines, each frame is split at the line it is at (resolve.h). */
static uint64_t
named_frames(struct resolver *r, struct rfile *f, const struct elfsym_sym *s,
	     uint64_t elf_addr)
{
	struct srcline_inline inl[MAX_INLINE];
	const char *file = NULL;
	unsigned line = 0;
	size_t nin = 0;

	if (r->opts.lines && f->lines &&
	    !srcline_lookup(f->lines, elf_addr, &file, &line))
		file = NULL;
	if (!r->opts.no_inline && f->lines)
		nin = srcline_inlines(f->lines, elf_addr, inl, MAX_INLINE);
	if (!nin)
		return file ? line_func(r, f, s, file, line)
			    : file_func(r, f, s->addr, s->name, s->addr);
	/* The function of the symbol, at its call of the outermost. */
	const struct srcline_inline *out = &inl[nin - 1];
	uint32_t outer = r->opts.lines && call_known(out)
				 ? line_func(r, f, s, out->call_file,
					     out->call_line)
				 : file_func(r, f, s->addr, s->name, s->addr);
	size_t at = r->npool;
	xgrow(&r->pool, &r->pool_cap, at + nin + 1, sizeof(*r->pool));
	r->pool[at] = outer;
	for (size_t j = nin; j-- > 0;) {
		const char *lf = NULL;
		unsigned ll = 0;
		if (r->opts.lines && j > 0 && call_known(&inl[j - 1])) {
			lf = inl[j - 1].call_file;
			ll = inl[j - 1].call_line;
		} else if (r->opts.lines && j == 0 && file) {
			lf = file;
			ll = line;
		}
		r->pool[at + nin - j] = inline_func(r, f, elf_addr, &inl[j],
						    lf, ll);
	}
	r->npool += nin + 1;
	return FRAMES_TAG | (uint64_t)at << 8 | (uint64_t)(nin + 1);
}

/* Whether f's unwind tables (read on first use) have a function holding
 * elf_addr; sets *start to its start. Only for a file whose symbols were
 * read, or that has none (either way, the file profiled: its build-id
 * was checked first). */
static bool
unnamed_start(struct rfile *f, uint64_t elf_addr, uint64_t *start)
{
	if (!f->fdes_read && (f->syms || f->no_symbols) &&
	    f->path[0] == '/') {
		struct elffile ef;
		struct elffile_why why;
		f->fdes_read = true;
		if (elffile_open(&ef, f->path, &why) == 0) {
			f->fdes = ehframe_load(&ef);
			elffile_close(&ef);
		}
	}
	return f->fdes && ehframe_lookup(f->fdes, elf_addr, start);
}

/* Resolves a PC known to be in instance ii (no caching here): a
 * function id, or frames (FRAMES_TAG). */
static uint64_t
resolve_in_module(struct resolver *r, long ii, uint64_t pc, uint64_t addr)
{
	const struct modmap_instance *in = &r->map->inst[ii];
	struct rfile *f = open_file(r, in->file);
	if (f->syms) {
		uint64_t elf_addr = addr - in->base;
		const struct elfsym_sym *s = elfsym_lookup(f->syms, elf_addr);
		if (s)
			return named_frames(r, f, s, elf_addr);
	}
	uint64_t off = pc - in->base, start;
	if (unnamed_start(f, addr - in->base, &start))
		off = start;
	uint32_t *id = hmap_ids_ref(&f->funcs, r->prof->funcs, file_func_key,
				    off | UNNAMED_KEY);
	if (*id == HMAP_NO_ID) {
		char name[PATH_MAX + 32];
		unnamed_name(name, sizeof(name), display_base(f->path), off,
			     f->gone);
		*id = profile_add_func(r->prof, f->pmodule, name, off,
				       PROFILE_FUNC_UNNAMED);
		f->funcs.count++;
	}
	return *id;
}

void
resolver_set_perfmap(struct resolver *r, const struct perfmap *pm)
{
	size_t n = pm ? perfmap_count(pm) : 0;
	free(r->jit_funcs);
	r->jit_funcs = NULL;
	r->perfmap = n ? pm : NULL;
	if (!n)
		return;
	r->jit_funcs = xmalloc(n * sizeof(*r->jit_funcs));
	for (size_t i = 0; i < n; i++)
		r->jit_funcs[i] = PROFILE_NONE;
}

/* The function of a perf map symbol, made on first use: one per line
 * of the map, at the symbol's start address. */
static uint32_t
jit_func(struct resolver *r, const struct perfmap_sym *s)
{
	uint32_t *id = &r->jit_funcs[s->id];
	if (*id != PROFILE_NONE)
		return *id;
	if (r->jit_module == PROFILE_NONE)
		r->jit_module = profile_module(r->prof, RESOLVE_JIT_MODULE);
	char *nice = r->opts.no_demangle ? NULL : demangle_name(s->name);
	*id = profile_add_func(r->prof, r->jit_module, nice ? nice : s->name,
			       s->start, 0);
	free(nice);
	return *id;
}

static uint32_t
resolve_no_module(struct resolver *r, uint64_t pc, uint64_t addr)
{
	const struct perfmap_sym *s;
	if (r->perfmap && (s = perfmap_lookup(r->perfmap, addr)))
		return jit_func(r, s);
	uint32_t *id = hmap_ids_ref(&r->no_module, r->prof->funcs,
				    no_module_key, pc);
	if (*id != HMAP_NO_ID)
		return *id;
	char name[32];
	snprintf(name, sizeof(name), "0x%llx", (unsigned long long)pc);
	*id = profile_add_func(r->prof, PROFILE_NONE, name, pc,
			       PROFILE_FUNC_UNNAMED);
	r->no_module.count++;
	return *id;
}

#define NO_DWARF_LISTED 8

void
resolver_finish(struct resolver *r)
{
	size_t n = r->nno_dwarf;
	if (!n)
		return;
	char *list = xstrdup("");
	for (size_t i = 0; i < n && i < NO_DWARF_LISTED; i++) {
		char *l = xasprintf("%s%s%s", list, i ? ", " : "",
				    base_name(r->no_dwarf[i]));
		free(list);
		list = l;
	}
	diag_warn("no line information (no DWARF) in %zu module%s: %s%s; "
		  "%s frames show function names only", n, n == 1 ? "" : "s",
		  list, n > NO_DWARF_LISTED ? ", and others" : "",
		  n == 1 ? "its" : "their");
	free(list);
}

/* A function id, or frames (FRAMES_TAG), cached. */
static uint64_t
resolve_cached(struct resolver *r, uint64_t pc, uint64_t t_ns, bool is_return)
{
	uint64_t addr = is_return && pc ? pc - 1 : pc;
	long ii = modmap_lookup(r->map, addr, t_ns);
	if (ii < 0)
		return resolve_no_module(r, pc, addr);
	struct hmap *cache = &r->pc_cache[2 * ii + (is_return ? 1 : 0)];
	bool found;
	uint64_t *id = hmap_ref(cache, pc, &found);
	/* resolve_in_module() touches other maps only: id stays valid. */
	if (!found)
		*id = resolve_in_module(r, ii, pc, addr);
	return *id;
}

const uint32_t *
resolver_frames(struct resolver *r, uint64_t pc, uint64_t t_ns,
		bool is_return, size_t *n)
{
	uint64_t v = resolve_cached(r, pc, t_ns, is_return);
	if (!(v & FRAMES_TAG)) {
		r->one = (uint32_t)v;
		*n = 1;
		return &r->one;
	}
	*n = (size_t)(v & 0xff);
	return r->pool + ((v & ~FRAMES_TAG) >> 8);
}

uint32_t
resolver_pc(struct resolver *r, uint64_t pc, uint64_t t_ns, bool is_return)
{
	size_t n;
	return resolver_frames(r, pc, t_ns, is_return, &n)[0];
}
