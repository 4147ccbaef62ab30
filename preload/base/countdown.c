/*
 * countdown: exponential draws and sample weights (see countdown.h).
 *
 * Layer: base; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "countdown.h"

#include <math.h>

/* async-signal-safe */
uint64_t
countdown_seed(uint64_t tid, uint64_t now_ns)
{
	/* splitmix64 of the two, so that threads started in the same
	 * nanosecond, or with neighbouring ids, get unrelated streams. */
	uint64_t z = tid * 0x9e3779b97f4a7c15ull + now_ns;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return z ? z : 0x2545f4914f6cdd1dull;
}

/* async-signal-safe */
uint64_t
countdown_next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* async-signal-safe */
double
countdown_uniform(uint64_t *state)
{
	/* 53 random bits, shifted up by one so that 0 never comes out and
	 * log() stays finite. */
	return (double)((countdown_next(state) >> 11) + 1) * 0x1p-53;
}

/* async-signal-safe */
uint64_t
countdown_draw(uint64_t *state, uint64_t interval)
{
	double d = -log(countdown_uniform(state)) * (double)interval;
	/* The largest draw (u = 2^-53) is 36.7 intervals: no overflow for
	 * any interval below 2^58. */
	if (!(d < 0x1p62))
		return UINT64_C(1) << 62;
	uint64_t c = (uint64_t)ceil(d);
	return c ? c : 1;
}

/* async-signal-safe */
double
countdown_probability(uint64_t n, uint64_t interval)
{
	/* -expm1 keeps the precision that 1 - exp loses for n << T. */
	return -expm1(-(double)n / (double)interval);
}

/* async-signal-safe */
uint64_t
countdown_weight(uint64_t n, uint64_t interval)
{
	if (n == 0 || interval == 0)
		return n;
	double w = (double)n / countdown_probability(n, interval);
	if (!(w < 0x1p63))
		return n;
	return (uint64_t)llround(w);
}

/* async-signal-safe */
int
countdown_expired(struct countdown *c, uint64_t n, uint64_t interval)
{
	if (!c->armed) {
		/* The bytes before this request were not at risk: the first
		 * point is drawn from here. */
		c->armed = 1;
		uint64_t first = countdown_draw(&c->rng, interval);
		if (n < first) {
			c->left = first - n;
			return 0;
		}
	}
	c->left = countdown_draw(&c->rng, interval);
	return 1;
}
