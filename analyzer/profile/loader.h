/*
 * loader: a spool file into a profile.
 *
 * The whole file is read (mapped) and walked twice with the common
 * decoder: the first pass collects the process header, the module map
 * history, threads and the footer; the second resolves and adds the
 * samples, so a sample can be resolved against modules whose records
 * were written after it. Each pass drops the pages it has passed
 * (blob_drop), so the file is never resident whole: memory grows with
 * the distinct stacks, functions and threads, not with the samples.
 * Samples of SAMPLES records (format 2.3) that refer to a stack are
 * summed per stack and thread and added once, when no module was
 * unloaded; a sample_hook still gets each sample, with the stack's
 * functions resolved once, or the sums (sample_hook_sums). Module images
 * (the vdso's bytes) are attached to their modules between the passes
 * and read from the mapped spool. Damage is reported, never fatal: a
 * file cut inside a record, an impossible length, a malformed record or
 * a missing footer each give one warning and the report covers what was
 * read.
 */
#ifndef PROFANALYZE_LOADER_H
#define PROFANALYZE_LOADER_H

#include "profile.h"
#include "resolve.h"

struct modmap;
struct space_log;

/* One sample as the profile takes it, for the views that need its PCs
 * (annotate.h), or with loader_opts.sample_hook_sums count samples of
 * one stack and thread, summed (s->time_ns is the first one's time).
 * With resolve.no_inline, PC i of s (spool_sample_pc, 0 the leaf) is
 * function stack[n - 1 - i] of prof, for i < s->depth; without, a PC in
 * inlined code has several frames (resolver_frames).
 * stack is root first and may start with a marker of a cut stack. map
 * places the PCs in module instances at s->time_ns. All valid during
 * the call only. */
struct loader_sample {
	const struct profile *prof;
	const struct modmap *map;
	const struct spool_sample *s;
	const uint32_t *stack;
	size_t n;
	uint64_t weight; /* of the count samples */
	uint64_t count;  /* 1 unless the hook takes sums */
	/* Which stack of the spool the sample has, + 1: samples with the
	 * same key in one read have the same stack and functions (a hook
	 * may keep what it made of them by key); 0 for a stack of its
	 * own, or when a module was unloaded. Keys are below the number of
	 * the spool's stack definitions + 1. */
	uint64_t stack_key;
};

/* Which samples become the profile. */
enum loader_kind {
	/* Time, unless the spool has allocation samples and no time
	 * samples (Allegro shows the kind of data that was collected). */
	LOADER_KIND_AUTO = 0,
	LOADER_KIND_TIME,
	LOADER_KIND_SPACE,
};

struct loader_opts {
	/* How PCs become functions (debug root, demangling, lines). */
	struct resolve_opts resolve;
	enum loader_kind kind;
	enum profile_space_view space_view; /* for a space profile */
	/* --thread: only samples of these threads (a tid, or a name or glob
	 * matched against every name the thread had); none: all threads. */
	const char *const *threads;
	size_t nthreads;
	/* Called for every sample the profile takes, after the filters
	 * above, or NULL. */
	void (*sample_hook)(void *arg, const struct loader_sample *ls);
	void *sample_hook_arg;
	/* Whether the hook may be called once for the samples of one stack
	 * and thread, summed, as the profile adds them: for hooks that do
	 * not look at each sample's time. Then the samples are read as fast
	 * as without a hook. */
	bool sample_hook_sums;
	/* Called once with the spool's allocation records (space.h: every
	 * sampled allocation and every FREE, whatever the profile's kind and
	 * view), before the samples are added; or NULL. selected[i] says
	 * whether log->allocs[i] is of the threads and the window that
	 * nthreads and window select (NULL: there is no such choice, all
	 * are). Both are valid during the call only. */
	void (*space_hook)(void *arg, const struct space_log *log,
			   const bool *selected);
	void *space_hook_arg;
	/* --from/--to: only samples taken from from_ns to to_ns (UINT64_MAX:
	 * the end) after the start of the spool's program (PROCESS
	 * start_mono_ns); window false: all. */
	bool window;
	uint64_t from_ns, to_ns;
	/* Whether a progress line may go to stderr (a terminal) when
	 * reading takes more than a second. */
	bool progress;
};

/* Reads the spool at path into a new, finished profile the caller frees
 * with profile_free(). Warnings go to stderr. Returns NULL after printing
 * one error line when path cannot be read or is not a spool. */
struct profile *
loader_read(const char *path, const struct loader_opts *opts);

/* Whether the --thread pattern (a tid, or a glob for the name, which may
 * be NULL) picks the thread tid. */
bool
loader_thread_matches(const char *pattern, uint32_t tid, const char *name);

#endif
