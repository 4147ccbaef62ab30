/*
 * space: the allocation records of a spool and the space profiles made of
 * them.
 *
 * The loader hands every ALLOC, FREE and CALL_COUNTS record to a space
 * log. The log then decides which sampled allocations a view shows:
 *
 *   alloc  every sampled allocation: where the bytes were allocated;
 *   inuse  the sampled blocks never freed (leaks, for a spool of a
 *          program that ran to its end);
 *   peak   the sampled blocks live when the estimated heap was largest.
 *
 * In-use and peak replay the allocations and frees in time order (records
 * of different threads are not in time order in the file). The estimated
 * heap at any time is the sum of the weights of the sampled blocks then
 * live, an unbiased estimate of the bytes allocated and not yet freed.
 *
 * Each sample of an allocation of n bytes weighs w = n / p, p = 1 -
 * exp(-n / T) its probability of being sampled (see preload/base/countdown.h),
 * so a sum of weights is an unbiased estimate of the bytes it stands for,
 * with variance estimated by sum w (w - n) over the same samples.
 */
#ifndef PROFANALYZE_SPACE_H
#define PROFANALYZE_SPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"
#include "spool.h"

struct space_alloc_ev {
	uint64_t time_ns;
	uint64_t address;
	uint64_t size;
	uint64_t weight;
	uint32_t flags;
	uint32_t tid;
};

struct space_free_ev {
	uint64_t time_ns;
	uint64_t address;
};

struct space_thread_calls {
	uint32_t tid;
	uint64_t calls[SPOOL_ALLOC_FN_MAX_];
};

struct space_log {
	struct space_alloc_ev *allocs; /* in file order */
	size_t nallocs, allocs_cap;
	struct space_free_ev *frees;
	size_t nfrees, frees_cap;
	struct space_thread_calls *threads;
	size_t nthreads, threads_cap;
	bool has_calls;
};

void
space_log_init(struct space_log *log);

void
space_log_free(struct space_log *log);

/* Each takes one decoded record. */
void
space_log_alloc(struct space_log *log, const struct spool_alloc *a);
void
space_log_free_rec(struct space_log *log, const struct spool_free *f);
void
space_log_calls(struct space_log *log, const struct spool_call_counts *c);

/* Marks in selected[i] (one flag per ALLOC record, in file order) the
 * samples view shows, and fills the figures of *out that come from the
 * records: view, counts, estimates and their variances, peak time (its
 * interval and call counts are left to the caller). Returns a new array
 * the caller frees. */
bool *
space_log_select(const struct space_log *log, enum profile_space_view view,
		 struct profile_space *out);

/* When each sampled allocation of log (file order) stopped counting in
 * the estimated heap, as the in-use and peak views replay them: the time
 * of the FREE (or of the next allocation at its address) that retired
 * it, UINT64_MAX when it was live at the end, its own time when it was
 * untracked (never counted). Returns a new array the caller frees. */
uint64_t *
space_log_lifetimes(const struct space_log *log);

/* The variance estimate sum w (w - n) of one sample. */
double
space_sample_var(uint64_t weight, uint64_t size);

/* Parses "alloc", "inuse" or "peak". Returns 0 or -1. */
int
space_view_parse(const char *s, enum profile_space_view *out);

/* "alloc", "inuse" or "peak". A static string. */
const char *
space_view_name(enum profile_space_view view);

/* For a function that is one of the profiler's wrappers of the malloc
 * family (named like one, in libprofrun.so): its id (enum
 * spool_alloc_fn). Returns -1 for any other function. */
int
space_wrapper_fn(const struct profile *p, uint32_t func);

#endif
