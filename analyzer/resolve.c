/*
 * resolve: PCs to functions, with the per-file symbol tables and the
 * caches (see resolve.h).
 *
 * Function identity is (module file, symbol address) for named code and
 * (module file, offset) for unnamed code, kept in one map per file with
 * the unnamed keys tagged by the top bit. Two instances of one file (a
 * library loaded, unloaded and loaded again elsewhere) therefore share
 * their functions, as they should.
 */
#include "resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "elfsym.h"
#include "hmap.h"
#include "xmalloc.h"

#define UNNAMED_KEY (1ull << 63)

struct rfile {
	bool opened;
	const char *path;    /* the file read: the module's, or the exe */
	bool no_file;        /* [vdso] and such: nothing to read */
	struct elfsym *syms; /* NULL when unusable */
	uint32_t pmodule;    /* profile module index */
	struct hmap funcs;   /* symbol address or offset|UNNAMED_KEY -> func */
};

struct resolver {
	const struct modmap *map;
	struct profile *prof;
	const char *debug_root;
	struct rfile *files;     /* parallel to map->files */
	struct hmap *pc_cache;   /* 2 per instance: [2i] leaf, [2i+1] return */
	struct hmap no_module;   /* pc -> func for PCs in no module */
};

struct resolver *
resolver_new(const struct modmap *m, struct profile *p,
	     const char *debug_root)
{
	struct resolver *r = xcalloc(1, sizeof(*r));
	r->map = m;
	r->prof = p;
	r->debug_root = debug_root;
	r->files = xcalloc(m->nfiles, sizeof(*r->files));
	r->pc_cache = xcalloc(2 * m->ninst, sizeof(*r->pc_cache));
	return r;
}

void
resolver_free(struct resolver *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->map->nfiles; i++) {
		elfsym_free(r->files[i].syms);
		hmap_free(&r->files[i].funcs);
	}
	for (size_t i = 0; i < 2 * r->map->ninst; i++)
		hmap_free(&r->pc_cache[i]);
	hmap_free(&r->no_module);
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

/* The spool format lets a writer leave the executable's path empty; so
 * may be the vdso's. An empty-path module whose build-id is the one of
 * the process's executable is the executable; anything else stays a
 * module without a file (and without a warning). */
static struct elfsym *
load_exe_for_empty_path(struct resolver *r, const struct modmap_file *mf,
			const struct elfsym_opts *o)
{
	const char *exe = r->prof->hdr.exe;
	char why[256];
	if (!exe || exe[0] != '/' || !mf->build_id_len)
		return NULL;
	return elfsym_load(exe, o, why, sizeof(why));
}

static struct rfile *
open_file(struct resolver *r, uint32_t idx)
{
	struct rfile *f = &r->files[idx];
	const struct modmap_file *mf = &r->map->files[idx];
	struct elfsym_opts o = {
		.build_id = mf->build_id,
		.build_id_len = mf->build_id_len,
		.debug_root = r->debug_root,
	};
	char why[256];

	if (f->opened)
		return f;
	f->opened = true;
	f->path = mf->path;
	if (!mf->path[0] && (f->syms = load_exe_for_empty_path(r, mf, &o)))
		f->path = r->prof->hdr.exe;
	f->pmodule = profile_module(r->prof, f->path);
	f->no_file = f->path[0] == '\0' || f->path[0] == '[';
	if (f->no_file || f->syms)
		return f;
	f->syms = elfsym_load(f->path, &o, why, sizeof(why));
	if (!f->syms)
		diag_warn("%s: %s; its frames show as %s+0xOFFSET", f->path,
			  why, display_base(f->path));
	return f;
}

static uint32_t
file_func(struct resolver *r, struct rfile *f, uint64_t key, const char *name,
	  uint64_t addr, uint32_t flags)
{
	uint64_t id;
	if (hmap_get(&f->funcs, key, &id))
		return (uint32_t)id;
	uint32_t fn = profile_add_func(r->prof, f->pmodule, name, addr, flags);
	hmap_put(&f->funcs, key, fn);
	return fn;
}

/* Resolves a PC known to be in instance ii (no caching here). */
static uint32_t
resolve_in_module(struct resolver *r, long ii, uint64_t pc, uint64_t addr)
{
	const struct modmap_instance *in = &r->map->inst[ii];
	struct rfile *f = open_file(r, in->file);
	if (f->syms) {
		const struct elfsym_sym *s =
			elfsym_lookup(f->syms, addr - in->base);
		if (s)
			return file_func(r, f, s->addr, s->name, s->addr, 0);
	}
	uint64_t off = pc - in->base;
	char *name = xasprintf("%s+0x%llx", display_base(f->path),
			       (unsigned long long)off);
	uint32_t fn = file_func(r, f, off | UNNAMED_KEY, name, off,
				PROFILE_FUNC_UNNAMED);
	free(name);
	return fn;
}

static uint32_t
resolve_no_module(struct resolver *r, uint64_t pc)
{
	uint64_t id;
	if (hmap_get(&r->no_module, pc, &id))
		return (uint32_t)id;
	char name[32];
	snprintf(name, sizeof(name), "0x%llx", (unsigned long long)pc);
	uint32_t fn = profile_add_func(r->prof, PROFILE_NONE, name, pc,
				       PROFILE_FUNC_UNNAMED);
	hmap_put(&r->no_module, pc, fn);
	return fn;
}

uint32_t
resolver_pc(struct resolver *r, uint64_t pc, uint64_t t_ns, bool is_return)
{
	uint64_t addr = is_return && pc ? pc - 1 : pc;
	long ii = modmap_lookup(r->map, addr, t_ns);
	if (ii < 0)
		return resolve_no_module(r, pc);
	struct hmap *cache = &r->pc_cache[2 * ii + (is_return ? 1 : 0)];
	uint64_t id;
	if (hmap_get(cache, pc, &id))
		return (uint32_t)id;
	uint32_t fn = resolve_in_module(r, ii, pc, addr);
	hmap_put(cache, pc, fn);
	return fn;
}
