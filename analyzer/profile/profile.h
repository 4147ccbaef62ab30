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
 * (and bytes for the space profiles to come). Each sample also carries
 * its contribution to the variance of any sum of weights it is part of
 * (the square of its weight for a time sample, w (w - n) for a sampled
 * allocation of n bytes standing for w: see countdown.h); nodes,
 * functions and the header add them up as they add weights, for the
 * error bars of the shares (report_pct_err). Per-function figures are
 * derived from the tree by profile_finish(): self is the sum of the self
 * weight of the function's nodes; total adds each sample once to every
 * distinct function on its path, so a recursive function is not counted
 * once per activation. profile_finish() also derives the call graph from
 * the tree: one edge per (caller, callee) pair seen in a stack, with the
 * weights both the Allegro and the Racket call-graph reports need.
 *
 * Hidden functions (Allegro's *hidden-functions*) are a transformation of
 * the model, not of a report: profile_collapse() builds a second profile
 * whose tree has the hidden frames removed, their cost charged to the
 * nearest displayed caller. Every report then reads that one profile, so
 * flat, call graph, outline and JSON agree on what was hidden.
 */
#ifndef PROFANALYZE_PROFILE_H
#define PROFANALYZE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hmap.h"
#include "spool.h"

#define PROFILE_NONE UINT32_MAX
/* What the labels of inlined functions end with. */
#define PROFILE_INLINED_MARK " [inlined]"
#define PROFILE_ROOT 0u /* node index of the tree's root */

enum profile_kind {
	PROFILE_KIND_TIME = 1,
	PROFILE_KIND_SPACE = 2, /* weights are bytes (see space.h) */
};

/* Which sampled allocations a space profile shows (space.h). */
enum profile_space_view {
	PROFILE_SPACE_ALLOC = 0, /* all bytes allocated */
	PROFILE_SPACE_INUSE = 1, /* never freed */
	PROFILE_SPACE_PEAK = 2,  /* live when the heap was largest */
};

/* What a space profile's header says beyond samples and weight. The
 * estimates are sums of sample weights (bytes) and their variances. */
struct profile_space {
	enum profile_space_view view;
	uint64_t interval;       /* mean bytes between samples, 0 unknown */
	uint64_t alloc_records;  /* sampled allocations in the spool */
	uint64_t free_records;
	uint64_t matched_frees;  /* FREEs of a sampled block */
	uint64_t untracked;      /* samples whose free was not recorded */
	double alloc_bytes;      /* estimate of all bytes allocated */
	double alloc_var;        /* and its variance */
	double view_var;         /* variance of the view's weight */
	double peak_bytes;       /* the estimated heap at its peak */
	uint64_t peak_time_ns;   /* CLOCK_MONOTONIC of the estimated peak */
	bool has_calls;          /* CALL_COUNTS records were read */
	uint64_t calls[SPOOL_ALLOC_FN_MAX_]; /* exact, all threads */
};

/* profile_func.flags */
#define PROFILE_FUNC_UNNAMED 0x1u /* no symbol: module+offset or address */
#define PROFILE_FUNC_PSEUDO 0x2u  /* a marker in the tree, not code */
#define PROFILE_FUNC_INLINED 0x80u /* code inlined into its caller, a frame
				    * of its own by the DWARF (resolve.h);
				    * its label ends in " [inlined]" */
/* Set by profile_collapse(): */
#define PROFILE_FUNC_HIDDEN 0x4u   /* removed from the tree */
#define PROFILE_FUNC_ELLIPSIS 0x8u /* "...": hidden code no displayed
				    * function called (outermost frames) */
/* Set by profile_finish(): */
#define PROFILE_FUNC_ELIDED 0x10u    /* absorbed hidden callees: "... f" */
#define PROFILE_FUNC_RECURSIVE 0x20u /* twice on some sample's stack */
#define PROFILE_FUNC_COUNTED 0x40u   /* its calls were counted (arcs) */

/* profile_node.flags */
#define PROFILE_NODE_ELIDED 0x1u /* hidden frames were collapsed into it */

struct profile_func {
	char *name;
	uint32_t module; /* index into modules, PROFILE_NONE when none */
	uint32_t flags;  /* PROFILE_FUNC_* */
	uint64_t addr;   /* ELF address of the symbol (or the offset) */
	/* Source position of a function split by line (profanalyze
	 * --lines; see profile_func_set_source), else NULL and 0. */
	char *file;
	uint32_t line;
	/* The version of the symbol, without '@' ("GLIBC_2.14"), or NULL
	 * when it has none (see profile_func_set_version). */
	char *version;
	/* Filled by profile_finish(): */
	char *label;     /* name made unique among all functions (name
			  * itself when it is; owned by the profile), with
			  * PROFILE_INLINED_MARK after it when inlined */
	/* The label as the text reports print it, control characters as
	 * \xNN (textesc.h); the label itself when it has none. */
	char *text;
	uint64_t self, total;
	uint64_t self_samples, total_samples;
	double self_var, total_var; /* variance contributions (see above) */
	/* Part of self that hidden callees with nothing displayable below
	 * them spent (already included in self). */
	uint64_t elided;
	/* Exact calls (the sum of the arcs into it), when
	 * PROFILE_FUNC_COUNTED; else 0 and not known. */
	uint64_t calls;
};

struct profile_node {
	uint32_t func;   /* PROFILE_NONE for the root */
	uint32_t parent; /* PROFILE_NONE for the root */
	uint32_t first_child;  /* PROFILE_NONE when a leaf */
	uint32_t last_child;   /* PROFILE_NONE when a leaf */
	uint32_t next_sibling; /* in insertion order */
	uint32_t flags;        /* PROFILE_NODE_* */
	uint64_t self, total;
	uint64_t self_samples, total_samples;
	double self_var, total_var;
	uint64_t elided; /* as in profile_func */
	double elided_var;
};

/*
 * A call-graph edge: caller called callee in at least one sample. The
 * root end of a stack has an edge from PROFILE_NONE (Racket's *-node) to
 * its outermost frame, the leaf an edge to PROFILE_NONE.
 *
 * weight counts each sample once however often the call occurs on its
 * stack (Allegro: "only the oldest instance is recorded"), so it is both
 * the time callee spent called by caller and the time caller spent
 * calling callee. caller_time and callee_time divide each occurrence by
 * the number of occurrences of the caller, resp. the callee, on that
 * stack (Racket's edge-caller-time and edge-callee-time): the callee
 * times of a function's incoming edges sum to its total, and so do the
 * caller times of its outgoing ones.
 */
struct profile_edge {
	uint32_t caller, callee;
	uint64_t weight, samples;
	double caller_time, callee_time;
	/* Exact calls of callee by caller (an arc), when counted. */
	bool counted;
	uint64_t calls;
};

/* Exact calls of callee made from caller (CALL_ARCS records of code
 * compiled with -finstrument-functions), all wanted threads together.
 * Independent of the samples: an arc need not be on any sampled stack. */
struct profile_arc {
	uint32_t caller, callee;
	uint64_t count;
};

struct profile_thread {
	uint32_t tid;
	char *name; /* NULL until a THREAD name record is seen */
	uint64_t name_time_ns; /* when it got that name (the latest wins) */
	uint64_t samples;
	uint64_t weight;
	/* The thread's CPU time in the image (THREAD exit or CPU records,
	 * summed over the threads that had this id), and its user-mode part
	 * (user_known false when some record did not say). */
	bool has_cpu, user_known;
	uint64_t cpu_ns, user_ns;
	/* --thread left it out of the profile. */
	bool excluded;
	/* Exact calls of the malloc family (space profiling), and whether
	 * the spool had a CALL_COUNTS record for this thread. */
	bool has_calls;
	uint64_t calls[SPOOL_ALLOC_FN_MAX_];
};

/* The samples of one leaf node, thread and flags, added up: memory grows
 * with distinct stacks, not with samples (a sample's time is not kept; no
 * report reads it). */
struct profile_sample {
	uint64_t weight; /* of all count samples */
	double var;      /* their variance contributions */
	uint64_t count;
	uint32_t node;   /* leaf of the samples' path */
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
	/* The part of cpu_ns the time source samples: utime alone for a
	 * source of user-mode time only (SPOOL_PROCESS_USER_ONLY, the perf
	 * source), cpu_ns otherwise; merged, the sum of each spool's. */
	uint64_t sampled_cpu_ns;
	/* The footer's peak resident set and resident anonymous and file
	 * pages at the end (spool_footer), 0 when not known. */
	uint64_t rss_peak, rss_anon, rss_file;
	/* Children the program started with clone() itself (footer). */
	uint64_t clone_processes, clone_threads;
	/* The spool's size limit (0: none) and when it stopped sampling
	 * (CLOCK_MONOTONIC; 0: it did not), from the footer. Merged: the
	 * largest limit and the earliest stop. */
	uint64_t size_limit, size_limit_ns;
	uint64_t footer_threads; /* the footer's count, 0 when corrupt */
	uint64_t drops[SPOOL_DROP_MAX_]; /* by enum spool_drop (complete) */
	uint32_t drops_corrupt; /* bit c: the footer's drops[c] made no
				 * sense; it is unknown and counted as 0 */
	/* Time samples the spools hold, of every thread and time (the
	 * samples added are those --thread and --from/--to select). */
	uint64_t run_samples;
	/* Counted while samples are added: */
	uint64_t samples;
	uint64_t weight;       /* sum of all sample weights */
	double var;            /* sum of their variance contributions */
	uint64_t offcpu_samples; /* wall clock: records of blocked time */
	uint64_t offcpu_weight;  /* and their weight */
	uint64_t truncated_stacks;
	uint64_t unwind_errors;
	uint64_t unnamed_samples; /* samples with at least one unnamed frame */
	uint64_t start_mono_ns;   /* PROCESS.start_mono_ns, 0 when unknown */
	uint64_t start_realtime_ns; /* PROCESS.start_realtime_ns, 0 unknown */
	uint64_t end_mono_ns;     /* FOOTER.end_mono_ns (complete), or 0 */
	uint32_t process_flags;   /* PROCESS.flags: SPOOL_PROCESS_* */
	uint32_t end_reason;      /* FOOTER.end_reason: enum spool_end */
	uint32_t end_signal;      /* FOOTER.end_signal */
	uint32_t spools;          /* spools (process images) merged, 1 or
				   * more (0: not set by a loader) */
	/* CALL_ARCS: calls the counters could not count (wanted threads). */
	uint64_t calls_missed;
	/* --from/--to: only the samples taken from window_from_ns to
	 * window_to_ns (UINT64_MAX: the end) after start_mono_ns. */
	bool window;
	uint64_t window_from_ns, window_to_ns;
	/* A space profile's sampled allocations in the window and the
	 * --thread threads (all of them when neither is given). */
	uint64_t window_allocs;
	struct profile_space space; /* kind PROFILE_KIND_SPACE */
};

/* A module (executable, shared library, vdso) some function lives in. */
struct profile_module {
	char *path;        /* as the spool names it ("" when unknown) */
	uint8_t *build_id; /* NULL when the spool recorded none */
	size_t build_id_len;
	/* The file was read and has no function symbols (nor debug file):
	 * its functions are named by address (resolve.h). */
	bool no_symbols;
	/* The file was read and its only function symbols are the dynamic
	 * ones (.dynsym; no .symtab, no debug file), as a stripped shared
	 * library keeps its exported functions: the others are named by
	 * address. */
	bool dynsym_only;
};

struct profile {
	struct profile_header hdr;
	struct profile_module *modules;
	size_t nmodules, modules_cap;
	struct profile_func *funcs;
	size_t nfuncs, funcs_cap;
	struct profile_node *nodes;
	size_t nnodes, nodes_cap;
	struct profile_thread *threads;
	size_t nthreads, threads_cap;
	struct profile_sample *samples;
	size_t nsamples, samples_cap;
	/* The call graph, filled by profile_finish(); read it through
	 * profile_callers() and profile_callees(). */
	struct profile_edge *edges;
	size_t nedges;
	/* Exact call counts, by (caller, callee); see profile_add_calls(). */
	struct profile_arc *arcs;
	size_t narcs, arcs_cap;
	struct hmap arc_ids; /* caller << 32 | callee -> index in arcs */
	/* private */
	uint32_t *edges_out, *edges_in; /* edge ids grouped by caller/callee */
	uint32_t *out_start, *in_start; /* nfuncs + 2 offsets each */
	uint32_t *label_rank; /* per function: its place in label order */
	struct hmap_ids children; /* nodes by (parent, func); freed by
				   * profile_finish() */
	struct hmap tids;     /* tid -> thread index */
	struct hmap classes;  /* (node, thread, flags) -> sample index */
	/* Function names, packed in chunks (a malloc'd string each was a
	 * tenth of the memory of a profile of many distinct PCs). */
	char **name_chunks;
	size_t nname_chunks, name_chunks_cap;
	char *name_next;      /* free space in the last chunk */
	size_t name_left;
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

/* Sets a module's build-id (copied) unless it has one already. */
void
profile_module_set_build_id(struct profile *p, uint32_t module,
			    const uint8_t *id, size_t len);

/* Adds a function (no interning: the caller knows what is the same
 * function). name is copied. Returns the function id. */
uint32_t
profile_add_func(struct profile *p, uint32_t module, const char *name,
		 uint64_t addr, uint32_t flags);

/* Sets a function's source position (file is copied). */
void
profile_func_set_source(struct profile *p, uint32_t func, const char *file,
			uint32_t line);

/* Sets a function's symbol version (copied; NULL for none). A symbol of
 * the default version (memcpy@@GLIBC_2.14) is named without it (memcpy),
 * so that patterns and readers see the name a program calls; one of
 * another version keeps it in its name (memcpy@GLIBC_2.2.5), since it is
 * another function of the same name. Either way the version is kept
 * here, for the JSON output. */
void
profile_func_set_version(struct profile *p, uint32_t func,
			 const char *version);

/* Index of the thread with this tid, added when new. */
uint32_t
profile_thread(struct profile *p, uint32_t tid);

/* Sets (replaces) a thread's name; name need not be NUL-terminated. */
void
profile_thread_set_name(struct profile *p, uint32_t thread, const char *name,
			size_t len);

/* Adds CPU time of the thread from a THREAD exit or CPU record (user_ns
 * SPOOL_CPU_UNKNOWN when the record did not know it). */
void
profile_thread_add_cpu(struct profile *p, uint32_t thread, uint64_t cpu_ns,
		       uint64_t user_ns);

/* Adds one sample whose stack is funcs[0..n), outermost caller first.
 * flags are SPOOL_SAMPLE_*. n may be 0 (the sample then counts in the
 * header and the root only). Its variance contribution is weight squared,
 * that of a sample taken at a random time. Returns the leaf node. Only
 * before profile_finish(), which drops the index of the tree. */
uint32_t
profile_add_sample(struct profile *p, const uint32_t *funcs, size_t n,
		   uint32_t thread, uint64_t weight, uint16_t flags);

/* As profile_add_sample, for count samples of that stack, thread and
 * flags, of weight in all and variance contributions var in all (one
 * sampled allocation; merging profiles). */
uint32_t
profile_add_samples(struct profile *p, const uint32_t *funcs, size_t n,
		    uint32_t thread, uint64_t weight, double var,
		    uint64_t count, uint16_t flags);

/* Adds count exact calls of callee from caller (function ids; caller
 * PROFILE_NONE when the call site is not known). Before
 * profile_finish(), which adds them up per function
 * (PROFILE_FUNC_COUNTED, calls) and per call-graph edge. */
void
profile_add_calls(struct profile *p, uint32_t caller, uint32_t callee,
		  uint64_t count);

/* Whether any function's calls were counted. Needs profile_finish(). */
bool
profile_has_calls(const struct profile *p);

/* Derives the per-function figures and labels. Call once, after the last
 * sample; the profile is read-only afterwards. */
void
profile_finish(struct profile *p);

/* Ids of all functions except pseudo and hidden ones, sorted by self
 * weight descending, then total descending, then label. Returns a new
 * array the caller frees; *n is its length. Needs profile_finish(). */
uint32_t *
profile_funcs_by_self(const struct profile *p, size_t *n);

/* The functions a full listing shows (the JSON report, mlmon's split
 * functions), in its order: profile_funcs_by_self's, then the markers of
 * cut stacks that occur. Returns a new array; *n is its length. */
uint32_t *
profile_funcs_listed(const struct profile *p, size_t *n);

/* qsort_r orders of tree nodes (uint32_t node ids; arg: the finished
 * profile), for the reports and exports that walk the tree: siblings
 * heaviest first (total weight), then by label; or by label alone. The
 * root is never among them. */
int
profile_cmp_nodes_heaviest(const void *a, const void *b, void *profile);
int
profile_cmp_nodes_by_label(const void *a, const void *b, void *profile);

/* The module path of a function, or NULL when it has none. Valid as long
 * as the profile. */
const char *
profile_func_module(const struct profile *p, uint32_t func);

/* The edges whose caller (profile_callees) or callee (profile_callers) is
 * func, PROFILE_NONE standing for the root of all stacks, sorted by
 * weight descending, then by the other end's label (PROFILE_NONE last).
 * Returns edge ids (indexes into p->edges) valid as long as the profile;
 * *n is their number. Needs profile_finish(). */
const uint32_t *
profile_callees(const struct profile *p, uint32_t func, size_t *n);
const uint32_t *
profile_callers(const struct profile *p, uint32_t func, size_t *n);

/* A new, finished profile with the functions flagged in hidden[] (one
 * flag per function id of src, which must be finished) removed from every
 * stack: a hidden frame's self weight goes to the nearest displayed
 * caller, which is marked PROFILE_NODE_ELIDED / PROFILE_FUNC_ELIDED, and
 * its displayed callees become that caller's callees. Weight without any
 * displayed caller goes to a function "..." (PROFILE_FUNC_ELLIPSIS)
 * called from the root. Function ids stay those of src; hidden functions
 * keep their entry, flagged PROFILE_FUNC_HIDDEN, and appear nowhere.
 * The caller frees the result with profile_free(). */
struct profile *
profile_collapse(const struct profile *src, const bool *hidden);

/* As profile_collapse(), but takes src, which it frees: its call graph
 * before the copy is made and the rest before the copy's graph is built,
 * so that the two profiles' graphs never take memory at the same time.
 * The copy takes over src's function names instead of copying them. */
struct profile *
profile_collapse_take(struct profile *src, const bool *hidden);

#endif
