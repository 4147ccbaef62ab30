/*
 * real: every function the library wraps or calls around the loader,
 * found in one place with one idiom, dlsym(RTLD_NEXT): the next
 * definition after this library's, the one the program would have called
 * without it. Layer: base.
 *
 * Each hook is one line of REAL_HOOKS; real_NAME() returns the real
 * function, looked up at its first call and cached (relaxed atomics). The
 * first call of each must not be made in a signal handler (dlsym is not
 * async-signal-safe); the library makes it at start-up for those a
 * handler uses (real_resolve_early), after which each call is
 * async-signal-safe. The malloc family is found by real_alloc_lookup, on
 * behalf of alloc.c, which owns the table and its bootstrap (before the
 * look-up, and while dlsym allocates, requests are served elsewhere).
 */
#ifndef PROFRUN_REAL_H
#define PROFRUN_REAL_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

/* X(name, return type, parameter list) */
#define REAL_HOOKS(X)                                                          \
	X(sigaction, int, (int, const struct sigaction *, struct sigaction *))  \
	X(sigprocmask, int, (int, const sigset_t *, sigset_t *))                \
	X(pthread_sigmask, int, (int, const sigset_t *, sigset_t *))            \
	X(sigpending, int, (sigset_t *))                                        \
	X(pipe2, int, (int[2], int))                                            \
	X(setitimer, int, (int, const struct itimerval *, struct itimerval *))  \
	X(getitimer, int, (int, struct itimerval *))                            \
	X(clone, int, (int (*)(void *), void *, int, void *, ...))              \
	X(pthread_create, int, (pthread_t *, const pthread_attr_t *,           \
				void *(*)(void *), void *))                    \
	X(pthread_setname_np, int, (pthread_t, const char *))                   \
	X(prctl, int, (int, unsigned long, unsigned long, unsigned long,        \
		       unsigned long))                                          \
	X(dlclose, int, (void *))                                               \
	X(execve, int, (const char *, char *const[], char *const[]))            \
	X(execv, int, (const char *, char *const[]))                            \
	X(execvp, int, (const char *, char *const[]))                           \
	X(execvpe, int, (const char *, char *const[], char *const[]))           \
	X(execveat, int, (int, const char *, char *const[], char *const[], int)) \
	X(fexecve, int, (int, char *const[], char *const[]))                    \
	X(exit, void, (int))                                                    \
	X(_exit, void, (int))                                                   \
	X(_Exit, void, (int))                                                   \
	X(unlink, int, (const char *))                                          \
	X(unlinkat, int, (int, const char *, int))                              \
	X(remove, int, (const char *))

#define REAL_DECLARE(name, ret, params)                                        \
	typedef ret(*real_##name##_fn) params;                                 \
	real_##name##_fn real_##name(void);
REAL_HOOKS(REAL_DECLARE)
#undef REAL_DECLARE

/* Sets the calling thread's signal mask with the system call, bypassing
 * the wrappers (masks.c): for the library's own masking, which must
 * really block. Returns 0 or -1 with errno. async-signal-safe */
int
real_mask(int how, const sigset_t *set, sigset_t *old);

/* Looks up, now, the hooks a signal handler may call (sigaction,
 * pthread_sigmask). Returns 0, or -ENOSYS when one is missing. */
int
real_resolve_early(void);

/* The malloc family, as alloc.c calls it. */
typedef void *(*real_malloc_fn)(size_t);
typedef void (*real_free_fn)(void *);
typedef void *(*real_calloc_fn)(size_t, size_t);
typedef void *(*real_realloc_fn)(void *, size_t);
typedef int (*real_posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*real_memalign_fn)(size_t, size_t);
typedef void (*real_free_sized_fn)(void *, size_t);
typedef void (*real_free_aligned_sized_fn)(void *, size_t, size_t);
typedef void *(*real_mallocx_fn)(size_t, int);
typedef void *(*real_rallocx_fn)(void *, size_t, int);
typedef size_t (*real_xallocx_fn)(void *, size_t, size_t, int);
typedef void (*real_sdallocx_fn)(void *, size_t, int);
typedef void (*real_dallocx_fn)(void *, int);
typedef size_t (*real_usable_size_fn)(void *);

struct real_alloc {
	real_malloc_fn malloc;
	real_free_fn free;
	real_calloc_fn calloc;
	real_realloc_fn realloc;
	real_posix_memalign_fn posix_memalign;
	real_memalign_fn aligned_alloc;
	real_memalign_fn memalign;
	real_malloc_fn valloc;
	real_malloc_fn pvalloc;
	real_free_sized_fn free_sized;
	real_free_aligned_sized_fn free_aligned_sized;
	real_mallocx_fn mallocx;
	real_rallocx_fn rallocx;
	real_xallocx_fn xallocx;
	real_sdallocx_fn sdallocx;
	real_dallocx_fn dallocx;
	real_usable_size_fn malloc_usable_size;
};

/* Fills t with the next allocator's functions: the C library's own entry
 * points where dlsym finds none of the basic four, emulations for the
 * optional ones it lacks (posix_memalign, valloc, C23's sized frees),
 * and for jemalloc's extensions when no jemalloc is loaded, versions that
 * fail (a program only gets there through dlsym). Each entry is stored
 * with a relaxed atomic store as soon as it is found, the basic four
 * first: dlsym's own error path allocates when an optional name is
 * missing. The emulations call t's entries. The caller keeps its own
 * allocations (dlsym's) away from the table meanwhile. */
void
real_alloc_lookup(struct real_alloc *t);

/* The C++ runtime's replaceable forms of operator new and delete: fills
 * fn[i] with the definition of names[i] in the first object after this
 * library that defines names[0] (self_new, this library's own, excluded),
 * searched in the global scope first and then among every loaded object
 * (a C++ runtime loaded with RTLD_LOCAL by a library a C program opened),
 * NULL where it has none. No handle is kept. Returns the base address of
 * the object that defines names[0], or 0 when none does. */
uintptr_t
real_cxx_lookup(void **fn, const char *const *names, int n, void *self_new);

#endif
