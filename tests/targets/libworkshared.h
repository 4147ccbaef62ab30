#ifndef PROFRUN_TARGETS_LIBWORKSHARED_H
#define PROFRUN_TARGETS_LIBWORKSHARED_H

/* Spins for iters iterations of the work loop (work.h). */
void
shared_work(unsigned long iters);

#endif
