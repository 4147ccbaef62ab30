#ifndef PROFRUN_TARGETS_LIBCALLCOUNT_H
#define PROFRUN_TARGETS_LIBCALLCOUNT_H

/* Adds x to *acc through lib_inner(): two instrumented calls, one from
 * the executable into the library and one inside it. */
void
lib_call(volatile unsigned long *acc, unsigned long x);

#endif
