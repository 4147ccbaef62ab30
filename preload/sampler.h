/*
 * sampler: the sampling signal's handler. It takes one CPU-time sample of
 * the interrupted thread: unwinds from the signal context and appends a
 * SAMPLE record to the thread's ring. No malloc, no lock, no stdio.
 */
#ifndef PROFRUN_SAMPLER_H
#define PROFRUN_SAMPLER_H

/* Installs the handler for the configured signal, keeping the previous
 * disposition for signals that are not ours. Returns 0 or -errno. */
int
sampler_install(void);

#endif
