/*
 * timeline: when each sample of a finished profile was taken, on which
 * thread, and at which node of its calling-context tree, for the views
 * that draw time (the HTML report's timeline, speedscope's and the
 * Firefox Profiler's sampled profiles).
 *
 * The profile model adds samples up by (leaf node, thread) and keeps no
 * times, so the spools are read again with a sample hook
 * (loader_opts.sample_hook), as annotate.h does. Each sample's stack is
 * then placed in the report's profile the way profile_collapse() placed
 * it: functions are matched by name and module, hidden ones skipped, a
 * stack whose outermost frames are all hidden goes to the "..." node.
 *
 * The same read keeps the sampled allocations of the threads and the
 * window that --thread and --from/--to select (all of them without),
 * with the time each block was freed (for the estimated heap over time,
 * whatever the profile's kind and view) and each spool's process (pid,
 * parent, command line) with its parent among the spools read
 * (family.h).
 */
#ifndef PROFANALYZE_TIMELINE_H
#define PROFANALYZE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "family.h"
#include "loader.h"
#include "profile.h"

struct timeline_sample {
	uint64_t time_ns; /* CLOCK_MONOTONIC, as the spool has it */
	uint64_t weight;  /* as in the profile (ns or bytes) */
	uint32_t node;    /* in the report's profile */
	uint32_t track;   /* index into tracks */
	uint16_t flags;   /* SPOOL_SAMPLE_* (OFF_CPU: blocked) */
};

/* One thread of one spool (a process image). */
struct timeline_track {
	uint32_t spool; /* index into the paths read */
	uint32_t pid;   /* 0 when unknown */
	uint32_t tid;
	char *name;     /* NULL when the thread had none */
};

/* One sampled allocation of any spool, whatever the profile's kind and
 * view (the estimated heap over time), of the threads and window
 * selected. */
struct timeline_alloc {
	uint64_t time_ns;
	uint64_t end_ns; /* when it stopped counting as live (its free):
			  * space_log_lifetimes(); UINT64_MAX: never */
	uint64_t weight; /* bytes it stands for */
	uint64_t size;   /* bytes allocated */
	uint32_t spool;
};

/* One spool read (a process image), as family.h reads it. */
struct timeline_proc {
	struct family_proc info; /* owned */
	uint32_t parent;         /* index among procs, FAMILY_NONE */
};

struct timeline {
	struct timeline_sample *samples; /* by time, then track */
	size_t nsamples, samples_cap;
	struct timeline_track *tracks;   /* by spool, then first sample */
	size_t ntracks, tracks_cap;
	uint64_t start_ns, end_ns; /* first and last sample, 0 when none */
	struct timeline_alloc *allocs;   /* by time */
	size_t nallocs, allocs_cap;
	struct timeline_proc *procs;     /* one per path, in their order */
	size_t nprocs;
};

/* Reads the spools paths[0..n) again with load (the options p was read
 * with) and places every sample in p, the finished profile the reports
 * read (hiding applied). Returns a new timeline to free with
 * timeline_free(), or NULL after an error line when a spool can no longer
 * be read. Samples that p does not have (a stack whose functions changed
 * since) are left out. */
struct timeline *
timeline_collect(const struct profile *p, char *const *paths, size_t n,
		 const struct loader_opts *load);

void
timeline_free(struct timeline *t);

#endif
