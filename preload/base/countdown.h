/*
 * countdown: the arithmetic of sampling the allocation byte stream.
 *
 * Each thread's allocated bytes are sampled as a Poisson process of rate
 * 1/T (T the mean interval, --space-interval): the distance from one
 * sample point to the next is exponentially distributed with mean T. A
 * thread keeps the bytes left to the next point in a countdown; an
 * allocation of n bytes that reaches it (n >= countdown) contains a point
 * and is sampled, and the countdown is drawn afresh (the process is
 * memoryless, so the points further inside the same allocation need not
 * be drawn). Whatever order and sizes the allocations come in, one of n
 * bytes is therefore sampled with probability
 *
 *	p(n) = 1 - exp(-n / T),
 *
 * independently of every other allocation, and each byte allocated is
 * equally likely to be the one charged.
 *
 * A sampled allocation stands for w(n) = n / p(n) bytes (Horvitz-Thompson):
 * the sum of w over the sampled allocations has expectation equal to the
 * bytes allocated, E[sum_i n_i/p_i * [i sampled]] = sum_i n_i. Small blocks
 * weigh about T + n/2, blocks much larger than T weigh n (they are always
 * sampled). The variance of that sum is sum_i n_i^2 (1 - p_i) / p_i over
 * all allocations; weighting each sampled term by 1/p_i again gives its
 * unbiased estimate from the samples alone:
 *
 *	Var ~= sum_sampled n^2 (1 - p) / p^2 = sum_sampled w (w - n),
 *
 * which profanalyze prints as the expected error of its total.
 *
 * The random numbers come from a per-thread xorshift64* generator: fast,
 * no locks, no system calls after seeding. Nothing here is on the
 * allocation fast path (which only subtracts and compares); these run
 * once per sample. async-signal-safe (no allocation, no locks; libm only).
 *
 * Layer: base. Every function is async-signal-safe (pure arithmetic).
 */
#ifndef PROFRUN_COUNTDOWN_H
#define PROFRUN_COUNTDOWN_H

#include <stdint.h>

/* A thread's sampling state. The allocation fast path compares a request
 * of n bytes with left and, when n < left, subtracts: nothing else. */
struct countdown {
	uint64_t left;  /* bytes to the next sample point; 0 before the first */
	uint64_t rng;   /* generator state, 0 until seeded */
	int armed;      /* left was drawn (not the start-up 0) */
};

/* A request of n bytes reached the sample point (n >= c->left): returns
 * whether it is sampled, and draws the next point. The first call only
 * starts the process (draws the first point, from this request on).
 * interval > 0. */
int
countdown_expired(struct countdown *c, uint64_t n, uint64_t interval);

/* A seed for a thread's generator from its id and the time (never 0). */
uint64_t
countdown_seed(uint64_t tid, uint64_t now_ns);

/* Next raw 64-bit number; *state must not be 0. */
uint64_t
countdown_next(uint64_t *state);

/* A uniform number in (0, 1]. */
double
countdown_uniform(uint64_t *state);

/* Bytes to the next sample point: an exponential draw of mean interval,
 * rounded up, at least 1. */
uint64_t
countdown_draw(uint64_t *state, uint64_t interval);

/* The probability that an allocation of n bytes is sampled at mean
 * interval: 1 - exp(-n / interval). */
double
countdown_probability(uint64_t n, uint64_t interval);

/* The bytes a sampled allocation of n bytes stands for: n / p(n),
 * rounded to the nearest byte (n itself for n = 0). */
uint64_t
countdown_weight(uint64_t n, uint64_t interval);

#endif
