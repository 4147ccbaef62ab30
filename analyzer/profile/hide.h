/*
 * hide: which functions the reports leave out (Allegro's
 * *hidden-functions* and *hidden-packages*), and the profile they then
 * read.
 *
 * A function is hidden when its name matches a function pattern or the
 * module it lives in matches a module pattern (shell globs, fnmatch(3)).
 * A module pattern without a '/' is matched against the file name of the
 * module, one with a '/' against its whole path. The markers of cut
 * stacks ("[truncated stack]") are never hidden.
 */
#ifndef PROFANALYZE_HIDE_H
#define PROFANALYZE_HIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

struct hide_rules {
	const char **funcs;   /* function name patterns */
	size_t nfuncs, funcs_cap;
	const char **modules; /* module patterns */
	size_t nmodules, modules_cap;
	/* In space profiles, C++'s operator new and delete too (their
	 * names, and their mangled names for --no-demangle). */
	bool allocator;
};

/* The rules in force when no option changes them: the profiler's own
 * library (libprofrun.so*) and the kernel's signal return trampoline
 * (__restore_rt), which sit in the target's stacks without being its
 * code; and in space profiles C++'s ::operator new and ::operator delete,
 * which allocate for their caller as malloc does (whose wrapper is
 * libprofrun's). The patterns are static strings. */
void
hide_rules_defaults(struct hide_rules *r);

/* Adds a pattern; the string must outlive the rules (argv does). */
void
hide_rules_add_func(struct hide_rules *r, const char *pattern);
void
hide_rules_add_module(struct hide_rules *r, const char *pattern);

/* Removes every pattern (what --show-all does). */
void
hide_rules_clear(struct hide_rules *r);

void
hide_rules_free(struct hide_rules *r);

/* One flag per function of p: true when the rules hide it. Returns a new
 * array the caller frees; *nhidden counts the true ones. */
bool *
hide_mask(const struct profile *p, const struct hide_rules *r,
	  size_t *nhidden);

/* Whether the rules hide function f of p (as hide_mask() decides). */
bool
hide_func(const struct profile *p, const struct hide_rules *r, uint32_t f);

/* The profile the reports should read: p itself when the rules hide
 * none of its functions, otherwise a new one from profile_collapse()
 * that the caller frees (after which p may be freed too). */
struct profile *
hide_apply(struct profile *p, const struct hide_rules *r);

/* As hide_apply(), but takes p: returns p itself when nothing is hidden,
 * otherwise the collapsed profile (profile_collapse_take()), p having
 * been freed. Whoever reads only the collapsed profile saves holding
 * two profiles at once, which doubled the peak memory of real runs
 * (libprofrun's own frames are always hidden). */
struct profile *
hide_apply_take(struct profile *p, const struct hide_rules *r);

/* The share of edge e's line in a's entry of the Racket report: a caller
 * line (e ends in a) shows the callee time, a callee line (e starts at
 * a) the caller time, as percentages of a's total. */
double
hide_edge_pct(const struct profile *p, uint32_t a,
	      const struct profile_edge *e, bool caller_line);

/* Racket's thresholds (#:hide-self, #:hide-subs): f is left out when its
 * self time is below self_pct percent of all time and every line that
 * would name it, in its callers' and callees' entries, is below subs_pct
 * percent. The Racket report and the dot export apply it. */
bool
hide_below(const struct profile *p, uint32_t f, double self_pct,
	   double subs_pct);

#endif
