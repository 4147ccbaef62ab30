/*
 * range: whether an address range lies within another.
 *
 * The unwinder asks this of every word libunwind reads (the stack, a copy
 * of it, a module's segments), with addresses taken from registers and
 * memory of a program that owes us nothing: a frame whose CFA is computed
 * from a register holding 0 makes libunwind read the return address at
 * 0xfffffffffffffff8. So no sum of an address and a length appears here:
 * `addr + len <= hi` wraps to 0 for addr = -8 and says yes.
 *
 * Layer: base. Header only: the checks are inlined into the handler's
 * read path.
 */
#ifndef PROFRUN_RANGE_H
#define PROFRUN_RANGE_H

#include <stdint.h>

/* Whether [addr, addr + len) lies within the size bytes from lo, for any
 * values of the four (of a range that would reach past the top of the
 * address space, what lies below the top). async-signal-safe */
static inline int
range_within(uint64_t lo, uint64_t size, uint64_t addr, uint64_t len)
{
	return addr >= lo && len <= size && addr - lo <= size - len;
}

/* Whether [addr, addr + len) lies within [lo, hi), for any values of the
 * four (an empty or inverted [lo, hi) holds nothing). async-signal-safe */
static inline int
range_holds(uint64_t lo, uint64_t hi, uint64_t addr, uint64_t len)
{
	return hi >= lo && range_within(lo, hi - lo, addr, len);
}

#endif
