/*
 * profile: the one model every report and exporter reads.
 *
 * A profile holds
 *   - functions, interned by the resolver (one per symbol, or per
 *     unresolved offset), each with the module it lives in;
 *   - the calling-context tree: every sample's stack inserted root first
 *     (outermost caller at the top), so a node is one distinct call path
 *     and carries the weight of the samples that ended there (self) and
 *     of all samples whose path passes through it (total);
 *   - the samples themselves, as (leaf node, thread, time, weight), so
 *     later views (thread or time filters, timelines) can re-aggregate
 *     without reading the spool again;
 *   - threads, and the header figures the reports print.
 *
 * Weights are abstract units: nanoseconds of CPU time for time profiles
 * (and bytes for the space profiles to come). Per-function figures are
 * derived from the tree by profile_finish(): self is the sum of the self
 * weight of the function's nodes; total adds each sample once to every
 * distinct function on its path, so a recursive function is not counted
 * once per activation.
 */
#ifndef PROFANALYZE_PROFILE_H
#define PROFANALYZE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmap.h"
#include "spool.h"

#define PROFILE_NONE UINT32_MAX
#define PROFILE_ROOT 0u /* node index of the tree's root */

enum profile_kind {
	PROFILE_KIND_TIME = 1,
};

/* profile_func.flags */
#define PROFILE_FUNC_UNNAMED 0x1u /* no symbol: module+offset or address */
#define PROFILE_FUNC_PSEUDO 0x2u  /* a marker in the tree, not code */

struct profile_func {
	char *name;
	uint32_t module; /* index into modules, PROFILE_NONE when none */
	uint32_t flags;  /* PROFILE_FUNC_* */
	uint64_t addr;   /* ELF address of the symbol (or the offset) */
	/* Filled by profile_finish(): */
	char *label;     /* name made unique among all functions */
	uint64_t self, total;
	uint64_t self_samples, total_samples;
};

struct profile_node {
	uint32_t func;   /* PROFILE_NONE for the root */
	uint32_t parent; /* PROFILE_NONE for the root */
	uint32_t first_child;  /* PROFILE_NONE when a leaf */
	uint32_t last_child;   /* PROFILE_NONE when a leaf */
	uint32_t next_sibling; /* in insertion order */
	uint64_t self, total;
	uint64_t self_samples, total_samples;
};

struct profile_thread {
	uint32_t tid;
	char *name; /* NULL until a THREAD name record is seen */
	uint64_t samples;
	uint64_t weight;
};

struct profile_sample {
	uint64_t time_ns;
	uint64_t weight;
	uint32_t node;   /* leaf of the sample's path */
	uint32_t thread; /* index into threads */
	uint16_t flags;  /* SPOOL_SAMPLE_* */
};

/* What the reports print above the tables. Fields the loader could not
 * learn keep the "unknown" value named in their comment. */
struct profile_header {
	enum profile_kind kind;
	bool has_process;      /* false: the fields below up to exe are 0 */
	uint32_t pid;
	uint32_t timer;        /* enum spool_timer */
	uint32_t clock;        /* enum spool_clock */
	uint64_t period_ns;
	uint32_t requested_hz;
	uint32_t max_depth;
	char *exe;             /* NULL when unknown */
	bool complete;         /* a FOOTER was read: the run ended cleanly */
	uint64_t cpu_ns;       /* utime + stime from the footer (complete) */
	uint32_t footer_threads;
	uint64_t drops[SPOOL_DROP_MAX_]; /* by enum spool_drop (complete) */
	/* Counted while samples are added: */
	uint64_t samples;
	uint64_t weight;       /* sum of all sample weights */
	uint64_t truncated_stacks;
	uint64_t unwind_errors;
	uint64_t unnamed_samples; /* samples with at least one unnamed frame */
};

struct profile {
	struct profile_header hdr;
	char **modules;
	size_t nmodules, modules_cap;
	struct profile_func *funcs;
	size_t nfuncs, funcs_cap;
	struct profile_node *nodes;
	size_t nnodes, nodes_cap;
	struct profile_thread *threads;
	size_t nthreads, threads_cap;
	struct profile_sample *samples;
	size_t nsamples, samples_cap;
	/* private */
	struct hmap children; /* (parent << 32 | func) -> node */
	struct hmap tids;     /* tid -> thread index */
	bool finished;
};

/* A new empty profile of the given kind; free with profile_free(). */
struct profile *
profile_new(enum profile_kind kind);

void
profile_free(struct profile *p);

/* Index of the module with this path, added when new. path is copied. */
uint32_t
profile_module(struct profile *p, const char *path);

/* Adds a function (no interning: the caller knows what is the same
 * function). name is copied. Returns the function id. */
uint32_t
profile_add_func(struct profile *p, uint32_t module, const char *name,
		 uint64_t addr, uint32_t flags);

/* Index of the thread with this tid, added when new. */
uint32_t
profile_thread(struct profile *p, uint32_t tid);

/* Sets (replaces) a thread's name; name need not be NUL-terminated. */
void
profile_thread_set_name(struct profile *p, uint32_t thread, const char *name,
			size_t len);

/* Adds one sample whose stack is funcs[0..n), outermost caller first.
 * flags are SPOOL_SAMPLE_*. n may be 0 (the sample then counts in the
 * header and the root only). Returns the leaf node. */
uint32_t
profile_add_sample(struct profile *p, const uint32_t *funcs, size_t n,
		   uint32_t thread, uint64_t weight, uint64_t time_ns,
		   uint16_t flags);

/* Derives the per-function figures and labels. Call once, after the last
 * sample; the profile is read-only afterwards. */
void
profile_finish(struct profile *p);

/* Ids of all functions except pseudo ones, sorted by self weight
 * descending, then total descending, then label. Returns a new array the
 * caller frees; *n is its length. Needs profile_finish(). */
uint32_t *
profile_funcs_by_self(const struct profile *p, size_t *n);

/* The module path of a function, or NULL when it has none. Valid as long
 * as the profile. */
const char *
profile_func_module(const struct profile *p, uint32_t func);

#endif
