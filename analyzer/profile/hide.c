/*
 * hide: pattern rules to a per-function mask, and the collapsed profile
 * (see hide.h). Matching is done once per function, not per frame: a
 * profile has far fewer functions than frames.
 */
#include "hide.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static void
add(const char ***list, size_t *n, size_t *cap, const char *pattern)
{
	xgrow(list, cap, *n + 1, sizeof(**list));
	(*list)[(*n)++] = pattern;
}

void
hide_rules_add_func(struct hide_rules *r, const char *pattern)
{
	add(&r->funcs, &r->nfuncs, &r->funcs_cap, pattern);
}

void
hide_rules_add_module(struct hide_rules *r, const char *pattern)
{
	add(&r->modules, &r->nmodules, &r->modules_cap, pattern);
}

void
hide_rules_defaults(struct hide_rules *r)
{
	memset(r, 0, sizeof(*r));
	hide_rules_add_module(r, "libprofrun.so*");
	hide_rules_add_func(r, "__restore_rt");
	r->allocator = true;
}

void
hide_rules_clear(struct hide_rules *r)
{
	r->nfuncs = 0;
	r->nmodules = 0;
	r->allocator = false;
}

void
hide_rules_free(struct hide_rules *r)
{
	free(r->funcs);
	free(r->modules);
	memset(r, 0, sizeof(*r));
}

/* C++'s global allocation functions, every form: by name, and mangled
 * (the Itanium ABI's _Znw, _Zna, _Zdl, _Zda; member operators are
 * _ZN...nw and stay shown). */
static const char *const allocator_funcs[] = {
	"operator new(*", "operator new[](*", "operator delete(*",
	"operator delete[](*", "_Znw[jmy]*", "_Zna[jmy]*", "_ZdlPv*",
	"_ZdaPv*",
};

static bool
any_match(const char *const *patterns, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(patterns[i], s, 0) == 0)
			return true;
	return false;
}

/* Whether module path matches a module pattern: by file name, or by the
 * whole path for patterns that name directories. */
static bool
module_hidden(const struct hide_rules *r, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	for (size_t i = 0; i < r->nmodules; i++) {
		const char *pat = r->modules[i];
		const char *s = strchr(pat, '/') ? path : base;
		if (fnmatch(pat, s, 0) == 0)
			return true;
	}
	return false;
}

bool *
hide_mask(const struct profile *p, const struct hide_rules *r,
	  size_t *nhidden)
{
	bool *mask = xcalloc(p->nfuncs ? p->nfuncs : 1, sizeof(*mask));
	bool *mod_hidden = xcalloc(p->nmodules ? p->nmodules : 1, 1);
	size_t n = 0;
	bool allocator = r->allocator && p->hdr.kind == PROFILE_KIND_SPACE;

	for (size_t m = 0; m < p->nmodules; m++)
		mod_hidden[m] = module_hidden(r, p->modules[m].path);
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct profile_func *f = &p->funcs[i];
		if (f->flags & PROFILE_FUNC_PSEUDO)
			continue;
		bool by_module = f->module != PROFILE_NONE &&
				 mod_hidden[f->module];
		mask[i] = by_module || any_match(r->funcs, r->nfuncs, f->name) ||
			  (allocator &&
			   any_match(allocator_funcs,
				     sizeof(allocator_funcs) /
					     sizeof(allocator_funcs[0]),
				     f->name));
		n += mask[i];
	}
	free(mod_hidden);
	*nhidden = n;
	return mask;
}

bool
hide_func(const struct profile *p, const struct hide_rules *r, uint32_t f)
{
	const struct profile_func *fn = &p->funcs[f];
	if (fn->flags & PROFILE_FUNC_PSEUDO)
		return false;
	if (fn->module != PROFILE_NONE &&
	    module_hidden(r, p->modules[fn->module].path))
		return true;
	return any_match(r->funcs, r->nfuncs, fn->name) ||
	       (r->allocator && p->hdr.kind == PROFILE_KIND_SPACE &&
		any_match(allocator_funcs,
			  sizeof(allocator_funcs) / sizeof(allocator_funcs[0]),
			  fn->name));
}

struct profile *
hide_apply(struct profile *p, const struct hide_rules *r)
{
	size_t n;
	bool *mask = hide_mask(p, r, &n);
	struct profile *d = n ? profile_collapse(p, mask) : p;
	free(mask);
	return d;
}

struct profile *
hide_apply_take(struct profile *p, const struct hide_rules *r)
{
	size_t n;
	bool *mask = hide_mask(p, r, &n);
	struct profile *d = n ? profile_collapse_take(p, mask) : p;
	free(mask);
	return d;
}

double
hide_edge_pct(const struct profile *p, uint32_t a,
		       const struct profile_edge *e, bool caller_line)
{
	double t = caller_line ? e->callee_time : e->caller_time;
	uint64_t total = p->funcs[a].total;
	return total ? 100.0 * t / (double)total : 0.0;
}

bool
hide_below(const struct profile *p, uint32_t f, double self_pct,
		     double subs_pct)
{
	const struct profile_func *fn = &p->funcs[f];
	size_t n;
	const uint32_t *e;

	if (p->hdr.weight &&
	    100.0 * (double)fn->self / (double)p->hdr.weight + 1e-9 >= self_pct)
		return false;
	e = profile_callers(p, f, &n);
	for (size_t i = 0; i < n; i++) {
		const struct profile_edge *x = &p->edges[e[i]];
		/* f is a callee line in its caller's entry */
		if (x->caller != PROFILE_NONE && x->caller != f &&
		    hide_edge_pct(p, x->caller, x, false) + 1e-9 >=
			    subs_pct)
			return false;
	}
	e = profile_callees(p, f, &n);
	for (size_t i = 0; i < n; i++) {
		const struct profile_edge *x = &p->edges[e[i]];
		if (x->callee != PROFILE_NONE && x->callee != f &&
		    hide_edge_pct(p, x->callee, x, true) + 1e-9 >=
			    subs_pct)
			return false;
	}
	return true;
}
