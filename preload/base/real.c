/*
 * real: the real functions behind the library's wrappers (see real.h).
 * Layer: base. Lookups call dlsym and are not async-signal-safe; a hook
 * already looked up is returned with one atomic load.
 */
#include "real.h"

#include "sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *
next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

#define REAL_DEFINE(name, ret, params)                                         \
	real_##name##_fn real_##name(void)                                     \
	{                                                                      \
		static _Atomic(real_##name##_fn) cached;                       \
		real_##name##_fn fn = atomic_load_explicit(                    \
			&cached, memory_order_relaxed);                        \
		if (!fn) {                                                     \
			fn = (real_##name##_fn)next(#name);                    \
			atomic_store_explicit(&cached, fn,                     \
					      memory_order_relaxed);           \
		}                                                              \
		return fn;                                                     \
	}
REAL_HOOKS(REAL_DEFINE)
#undef REAL_DEFINE

/* async-signal-safe */
int
real_mask(int how, const sigset_t *set, sigset_t *old)
{
	/* The kernel's sigset is 64 bits; glibc's sigset_t starts with it. */
	return (int)sys_call(SYS_rt_sigprocmask, how, set, old, _NSIG / 8);
}

int
real_resolve_early(void)
{
	return real_sigaction() && real_sigprocmask() &&
			       real_pthread_sigmask() && real_pthread_create() ?
		       0 :
		       -ENOSYS;
}

/* ---- the malloc family ---- */

/* The table real_alloc_lookup filled, for the emulations. */
static struct real_alloc *alloc_table;

#define CALL(fn) __atomic_load_n(&alloc_table->fn, __ATOMIC_RELAXED)

/* glibc's own entry points: the fallback when dlsym finds nothing. */
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* Fallbacks for entry points the next allocator does not have. */
static int
emulate_posix_memalign(void **out, size_t align, size_t n)
{
	void *p = CALL(memalign)(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static void *
emulate_valloc(size_t n)
{
	return CALL(memalign)((size_t)sysconf(_SC_PAGESIZE), n);
}

static void
emulate_free_sized(void *p, size_t n)
{
	CALL(free)(p);
}

static void
emulate_free_aligned_sized(void *p, size_t align, size_t n)
{
	CALL(free)(p);
}

/* jemalloc's extensions when no jemalloc is loaded: a program can only get
 * here through dlsym, and is told there is no memory. */
static void *
missing_mallocx(size_t n, int flags)
{
	errno = ENOMEM;
	return NULL;
}

static void *
missing_rallocx(void *p, size_t n, int flags)
{
	errno = ENOMEM;
	return NULL;
}

static size_t
missing_xallocx(void *p, size_t n, size_t extra, int flags)
{
	return 0;
}

static void
missing_sdallocx(void *p, size_t n, int flags)
{
	CALL(free)(p);
}

static void
missing_dallocx(void *p, int flags)
{
	CALL(free)(p);
}

static void *
next_or(const char *name, void *fallback)
{
	void *p = next(name);
	return p ? p : fallback;
}

#define LOOKUP(fn, type, fallback)                                             \
	__atomic_store_n(&t->fn, (type)next_or(#fn, (void *)(fallback)),       \
			 __ATOMIC_RELAXED)

void
real_alloc_lookup(struct real_alloc *t)
{
	alloc_table = t;
	/* The four everyone needs first: dlsym's own error path allocates
	 * when an optional name below is missing. */
	LOOKUP(malloc, real_malloc_fn, __libc_malloc);
	LOOKUP(free, real_free_fn, __libc_free);
	LOOKUP(calloc, real_calloc_fn, __libc_calloc);
	LOOKUP(realloc, real_realloc_fn, __libc_realloc);
	LOOKUP(memalign, real_memalign_fn, __libc_memalign);
	LOOKUP(aligned_alloc, real_memalign_fn, CALL(memalign));
	LOOKUP(posix_memalign, real_posix_memalign_fn, emulate_posix_memalign);
	LOOKUP(valloc, real_malloc_fn, emulate_valloc);
	LOOKUP(pvalloc, real_malloc_fn, emulate_valloc);
	LOOKUP(free_sized, real_free_sized_fn, emulate_free_sized);
	LOOKUP(free_aligned_sized, real_free_aligned_sized_fn,
	       emulate_free_aligned_sized);
	LOOKUP(mallocx, real_mallocx_fn, missing_mallocx);
	LOOKUP(rallocx, real_rallocx_fn, missing_rallocx);
	LOOKUP(xallocx, real_xallocx_fn, missing_xallocx);
	LOOKUP(sdallocx, real_sdallocx_fn, missing_sdallocx);
	LOOKUP(dallocx, real_dallocx_fn, missing_dallocx);
	LOOKUP(malloc_usable_size, real_usable_size_fn, NULL);
}

/* ---- C++'s operator new and delete ---- */

struct cxx_search {
	const char *name;
	void *self_new;
	void *handle;
};

/* dl_iterate_phdr's callback: the first loaded object (but this library)
 * whose scope defines operator new; its handle goes to the search. */
static int
cxx_find_runtime(struct dl_phdr_info *info, size_t size, void *data)
{
	struct cxx_search *s = data;
	if (!info->dlpi_name || !info->dlpi_name[0])
		return 0; /* the executable, the vdso */
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (!h)
		return 0;
	void *f = dlsym(h, s->name);
	if (f && f != s->self_new) {
		s->handle = h;
		return 1;
	}
	real_dlclose()(h);
	return 0;
}

uintptr_t
real_cxx_lookup(void **fn, const char *const *names, int n, void *self_new)
{
	/* dlsym(RTLD_NEXT) sees only the objects of the global scope: a
	 * C++ library a C program loaded with RTLD_LOCAL (Python extensions
	 * are) brings a runtime it cannot see, which is then found by
	 * walking the loaded objects. Handles opened here are closed with
	 * the real dlclose, without the wrapper's work. */
	void *h = RTLD_NEXT;
	if (!real_dlclose()) {
		h = NULL; /* cannot happen: the C library has it */
	} else if (!next(names[0])) {
		struct cxx_search s = { names[0], self_new, NULL };
		dl_iterate_phdr(cxx_find_runtime, &s);
		h = s.handle;
	}
	for (int i = 0; i < n; i++)
		fn[i] = h ? dlsym(h, names[i]) : NULL;
	/* The handle is not kept: the library must unload when the program
	 * closes it, as without the profiler. */
	if (h && h != RTLD_NEXT)
		real_dlclose()(h);
	Dl_info info;
	return fn[0] && dladdr(fn[0], &info) ? (uintptr_t)info.dli_fbase : 0;
}
