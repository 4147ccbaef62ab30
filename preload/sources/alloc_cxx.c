/*
 * alloc_cxx: C++'s operator new and delete, in all twenty replaceable
 * forms (see below). Layer: sources; the wrappers' fast paths are
 * async-signal-safe, the look-up of the real forms is not.
 */
#include "alloc.h"

#include "alloc_int.h"
#include "arena.h"
#include "real.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- C++'s operator new and delete ----
 *
 * C++ allocates through operator new and releases through operator
 * delete. Where they come from the C++ runtime (libstdc++, libc++), they
 * call malloc and free through their public names, which count and sample
 * them; but an allocator that defines them itself (jemalloc, tcmalloc,
 * mimalloc, preloaded or linked) may serve them from its own heap
 * without a call to malloc, or only some of them (jemalloc's aligned new
 * calls aligned_alloc, its unsized delete free). So the twenty replaceable
 * forms are wrapped too. Each counts its call (one counter for the new
 * forms, one for the delete forms), and learns from its first call
 * whether the real one calls one of the C wrappers: the call is made
 * with nothing taken or checked, and the thread's C counters compared
 * before and after. A form that does ("passes") goes straight to the real
 * one from then on, whose malloc or free samples and records; one that
 * does not ("owns") samples and releases as malloc and free do, the
 * first call's bytes taken once it returned.
 *
 * The real ones are looked up at the first call of any form, when a C++
 * runtime is loaded. dlsym(RTLD_NEXT) sees only the objects of the
 * global scope: a C++ library a C program loaded with RTLD_LOCAL (Python
 * extensions are) brings a runtime it cannot see, which is then found by
 * walking the loaded objects. An exception thrown by the real operator
 * new passes through the wrappers (their unwind tables describe them).
 */

/* The wrappers, by their mangled names (the Itanium C++ ABI's, size_t
 * being unsigned long): std::align_val_t is passed as a size_t and a
 * std::nothrow_t const& as a pointer. */
void *_Znwm(size_t n);
void *_Znam(size_t n);
void *_ZnwmRKSt9nothrow_t(size_t n, const void *nt);
void *_ZnamRKSt9nothrow_t(size_t n, const void *nt);
void *_ZnwmSt11align_val_t(size_t n, size_t align);
void *_ZnamSt11align_val_t(size_t n, size_t align);
void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t align,
					 const void *nt);
void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t align,
					 const void *nt);
void _ZdlPv(void *p);
void _ZdaPv(void *p);
void _ZdlPvm(void *p, size_t n);
void _ZdaPvm(void *p, size_t n);
void _ZdlPvRKSt9nothrow_t(void *p, const void *nt);
void _ZdaPvRKSt9nothrow_t(void *p, const void *nt);
void _ZdlPvSt11align_val_t(void *p, size_t align);
void _ZdaPvSt11align_val_t(void *p, size_t align);
void _ZdlPvmSt11align_val_t(void *p, size_t n, size_t align);
void _ZdaPvmSt11align_val_t(void *p, size_t n, size_t align);
void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t align,
					 const void *nt);
void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t align,
					 const void *nt);

enum cxx_op {
	CXX_NEW,                  /* operator new(size_t) */
	CXX_NEW_ARRAY,            /* operator new[](size_t) */
	CXX_NEW_NOTHROW,          /* operator new(size_t, nothrow_t const&) */
	CXX_NEW_ARRAY_NOTHROW,
	CXX_NEW_ALIGNED,          /* operator new(size_t, align_val_t) */
	CXX_NEW_ARRAY_ALIGNED,
	CXX_NEW_ALIGNED_NOTHROW,  /* (size_t, align_val_t, nothrow_t const&) */
	CXX_NEW_ARRAY_ALIGNED_NOTHROW,
	CXX_DELETE,               /* operator delete(void *) */
	CXX_DELETE_ARRAY,
	CXX_DELETE_SIZED,         /* operator delete(void *, size_t) */
	CXX_DELETE_ARRAY_SIZED,
	CXX_DELETE_NOTHROW,       /* operator delete(void *, nothrow_t const&) */
	CXX_DELETE_ARRAY_NOTHROW,
	CXX_DELETE_ALIGNED,       /* operator delete(void *, align_val_t) */
	CXX_DELETE_ARRAY_ALIGNED,
	CXX_DELETE_SIZED_ALIGNED, /* (void *, size_t, align_val_t) */
	CXX_DELETE_ARRAY_SIZED_ALIGNED,
	CXX_DELETE_ALIGNED_NOTHROW, /* (void *, align_val_t, nothrow_t const&) */
	CXX_DELETE_ARRAY_ALIGNED_NOTHROW,
	CXX_OPS
};

static const char *const cxx_names[CXX_OPS] = {
	[CXX_NEW] = "_Znwm",
	[CXX_NEW_ARRAY] = "_Znam",
	[CXX_NEW_NOTHROW] = "_ZnwmRKSt9nothrow_t",
	[CXX_NEW_ARRAY_NOTHROW] = "_ZnamRKSt9nothrow_t",
	[CXX_NEW_ALIGNED] = "_ZnwmSt11align_val_t",
	[CXX_NEW_ARRAY_ALIGNED] = "_ZnamSt11align_val_t",
	[CXX_NEW_ALIGNED_NOTHROW] = "_ZnwmSt11align_val_tRKSt9nothrow_t",
	[CXX_NEW_ARRAY_ALIGNED_NOTHROW] = "_ZnamSt11align_val_tRKSt9nothrow_t",
	[CXX_DELETE] = "_ZdlPv",
	[CXX_DELETE_ARRAY] = "_ZdaPv",
	[CXX_DELETE_SIZED] = "_ZdlPvm",
	[CXX_DELETE_ARRAY_SIZED] = "_ZdaPvm",
	[CXX_DELETE_NOTHROW] = "_ZdlPvRKSt9nothrow_t",
	[CXX_DELETE_ARRAY_NOTHROW] = "_ZdaPvRKSt9nothrow_t",
	[CXX_DELETE_ALIGNED] = "_ZdlPvSt11align_val_t",
	[CXX_DELETE_ARRAY_ALIGNED] = "_ZdaPvSt11align_val_t",
	[CXX_DELETE_SIZED_ALIGNED] = "_ZdlPvmSt11align_val_t",
	[CXX_DELETE_ARRAY_SIZED_ALIGNED] = "_ZdaPvmSt11align_val_t",
	[CXX_DELETE_ALIGNED_NOTHROW] = "_ZdlPvSt11align_val_tRKSt9nothrow_t",
	[CXX_DELETE_ARRAY_ALIGNED_NOTHROW] =
		"_ZdaPvSt11align_val_tRKSt9nothrow_t",
};

/* What a form's first call taught (see above). */
enum cxx_mode { CXX_UNKNOWN, CXX_OWNS, CXX_PASSES };

/* The real forms (NULL until looked up), and what each does. Each mode
 * is stored (release) after its form was, so that a thread that loads a
 * known mode (acquire) finds the form there. */
static struct {
	void *fn[CXX_OPS];
	uint8_t mode[CXX_OPS];
	_Atomic int state; /* 0 unknown, 1 being looked up, 2 known */
	uintptr_t base;    /* of the object that defines operator new */
} cxx;

/* Stand-ins for forms no loaded object defines (a C++ runtime older than
 * C++17 lacks the aligned ones, and a program may get here through
 * dlsym alone), and for every form while another thread looks them up.
 * They allocate and release through this library's malloc, memalign and
 * free, which sample and count as for C. A throwing form that cannot
 * throw ends the program, as an uncaught std::bad_alloc would. */
static void *
cxx_fail(size_t n)
{
	static const char msg[] =
		"profrun: operator new failed and no C++ runtime is loaded "
		"to throw std::bad_alloc\n";
	ssize_t w = write(2, msg, sizeof(msg) - 1);
	(void)w;
	abort();
}

static void *
cxx_missing_new(size_t n)
{
	void *p = malloc(n);
	return p ? p : cxx_fail(n);
}

static void *
cxx_missing_new_nothrow(size_t n, const void *nt)
{
	return malloc(n);
}

static void *
cxx_missing_new_aligned(size_t n, size_t align)
{
	void *p = memalign(align, n);
	return p ? p : cxx_fail(n);
}

static void *
cxx_missing_new_aligned_nothrow(size_t n, size_t align, const void *nt)
{
	return memalign(align, n);
}

static void
cxx_missing_delete(void *p)
{
	free(p);
}

static void *const cxx_missing[CXX_OPS] = {
	[CXX_NEW] = cxx_missing_new,
	[CXX_NEW_ARRAY] = cxx_missing_new,
	[CXX_NEW_NOTHROW] = cxx_missing_new_nothrow,
	[CXX_NEW_ARRAY_NOTHROW] = cxx_missing_new_nothrow,
	[CXX_NEW_ALIGNED] = cxx_missing_new_aligned,
	[CXX_NEW_ARRAY_ALIGNED] = cxx_missing_new_aligned,
	[CXX_NEW_ALIGNED_NOTHROW] = cxx_missing_new_aligned_nothrow,
	[CXX_NEW_ARRAY_ALIGNED_NOTHROW] = cxx_missing_new_aligned_nothrow,
	/* Every delete form takes the pointer first; the x86-64 calling
	 * convention lets a one-argument function take the others' calls. */
	[CXX_DELETE ... CXX_DELETE_ARRAY_ALIGNED_NOTHROW] = cxx_missing_delete,
};

/* Looks the real forms up (once) and returns form op's, or its stand-in
 * while the look-up is under way. */
static void * __attribute__((noinline))
cxx_resolve(enum cxx_op op)
{
	int expect = 0;
	void *fn[CXX_OPS];

	/* A thread that finds the look-up under way does not wait for it:
	 * it may hold the loader's lock (a library's constructor, inside
	 * dlopen) that the look-up's dlsym needs. It makes do with the
	 * stand-ins meanwhile, which allocate through malloc. */
	if (alloc_resolve() != 0 || alloc_self.resolving ||
	    !atomic_compare_exchange_strong(&cxx.state, &expect, 1))
		return cxx_missing[op];
	alloc_self.resolving = 1;
	alloc_guard_enter();
	/* If the C++ runtime goes with a library the program closes,
	 * alloc_dlclosed() forgets the forms. */
	uintptr_t base = real_cxx_lookup(fn, cxx_names, CXX_OPS, (void *)_Znwm);
	for (int i = 0; i < CXX_OPS; i++) {
		if (!fn[i])
			fn[i] = cxx_missing[i];
		__atomic_store_n(&cxx.fn[i], fn[i], __ATOMIC_RELEASE);
	}
	cxx.base = base;
	/* A stand-in calls malloc or free: it passes. */
	for (int i = 0; i < CXX_OPS; i++)
		if (fn[i] == cxx_missing[i])
			__atomic_store_n(&cxx.mode[i], CXX_PASSES,
					 __ATOMIC_RELEASE);
	alloc_guard_leave();
	alloc_self.resolving = 0;
	atomic_store(&cxx.state, 2);
	return fn[op];
}

void
alloc_dlclosed(void)
{
	Dl_info info;
	if (atomic_load(&cxx.state) != 2 || !cxx.base)
		return;
	alloc_guard_enter();
	int gone = !dladdr(cxx.fn[CXX_NEW], &info) ||
		   (uintptr_t)info.dli_fbase != cxx.base;
	alloc_guard_leave();
	if (!gone)
		return;
	/* The modes first: a thread that finds one unknown looks the forms
	 * up again (once the state is 0). No C++ code that could call them
	 * is left anyway: the runtime went with the last of it. */
	for (int i = 0; i < CXX_OPS; i++)
		__atomic_store_n(&cxx.mode[i], CXX_UNKNOWN, __ATOMIC_RELEASE);
	for (int i = 0; i < CXX_OPS; i++)
		__atomic_store_n(&cxx.fn[i], NULL, __ATOMIC_RELEASE);
	cxx.base = 0;
	atomic_store(&cxx.state, 0);
}

/* Form op's real function. async-signal-safe */
static inline void *
cxx_real(enum cxx_op op)
{
	void *f = __atomic_load_n(&cxx.fn[op], __ATOMIC_ACQUIRE);
	return likely(f != NULL) ? f : cxx_resolve(op);
}

/* async-signal-safe */
static inline enum cxx_mode
cxx_mode(enum cxx_op op)
{
	return (enum cxx_mode)__atomic_load_n(&cxx.mode[op], __ATOMIC_ACQUIRE);
}

/* Form op's real function once its mode is known. async-signal-safe */
static inline void *
cxx_known(enum cxx_op op)
{
	return __atomic_load_n(&cxx.fn[op], __ATOMIC_RELAXED);
}

/* Whether form op's call to f, a first one, is to teach its mode: not
 * while another thread looks the real ones up (f is a stand-in), nor
 * inside the guard. async-signal-safe */
static inline int
cxx_probing(enum cxx_op op, void *f)
{
	return cxx_mode(op) == CXX_UNKNOWN && !alloc_self.guard &&
	       f == __atomic_load_n(&cxx.fn[op], __ATOMIC_ACQUIRE);
}

/* The calling thread's calls of the C wrappers so far. async-signal-safe */
static uint64_t
c_calls(void)
{
	uint64_t sum = 0;
	for (int i = 0; i < SPOOL_ALLOC_FN_OPERATOR_NEW; i++)
		sum += alloc_self.calls[i];
	return sum;
}

/* async-signal-safe */
static void
cxx_learn(enum cxx_op op, uint64_t c_calls_before)
{
	__atomic_store_n(&cxx.mode[op],
			 c_calls() != c_calls_before ? CXX_PASSES : CXX_OWNS,
			 __ATOMIC_RELEASE);
}

typedef void *(*new_fn)(size_t);
typedef void *(*new_nothrow_fn)(size_t, const void *);
typedef void *(*new_aligned_fn)(size_t, size_t);
typedef void *(*new_aligned_nothrow_fn)(size_t, size_t, const void *);
typedef void (*delete_fn)(void *);
typedef void (*delete_1_fn)(void *, size_t); /* sized, or aligned */
typedef void (*delete_nothrow_fn)(void *, const void *);
typedef void (*delete_sized_aligned_fn)(void *, size_t, size_t);
typedef void (*delete_aligned_nothrow_fn)(void *, size_t, const void *);

/* Calls the real new form op (f) for n bytes aligned to align (0: the
 * default) with the caller's nothrow tag nt. async-signal-safe */
static inline void *
cxx_call_new(enum cxx_op op, void *f, size_t n, size_t align, const void *nt)
{
	switch (op) {
	case CXX_NEW:
	case CXX_NEW_ARRAY:
		return ((new_fn)f)(n);
	case CXX_NEW_NOTHROW:
	case CXX_NEW_ARRAY_NOTHROW:
		return ((new_nothrow_fn)f)(n, nt);
	case CXX_NEW_ALIGNED:
	case CXX_NEW_ARRAY_ALIGNED:
		return ((new_aligned_fn)f)(n, align);
	default:
		return ((new_aligned_nothrow_fn)f)(n, align, nt);
	}
}

/* The slow path of a new form: a sample point reached, the form's mode
 * not known yet (a first call, or a stand-in's call), or the guard set.
 * async-signal-safe */
static void * __attribute__((noinline))
cxx_new_slow(enum cxx_op op, size_t n, size_t align, const void *nt)
{
	struct alloc_tls *a = &alloc_self;
	void *f = cxx_real(op);
	if (a->guard) { /* a target's signal handler, while we record */
		void *p = alloc_own(n, align ? align : ARENA_ALIGN);
		return p ? p : cxx_call_new(op, f, n, align, nt);
	}
	if (cxx_mode(op) != CXX_OWNS) {
		if (!cxx_probing(op, f))
			return cxx_call_new(op, f, n, align, nt);
		uint64_t before = c_calls();
		void *p = cxx_call_new(op, f, n, align, nt); /* may throw */
		cxx_learn(op, before);
		if (cxx_mode(op) == CXX_PASSES || !p || !reaches(a, n))
			return p;
		if (alloc_expired(a, n))
			SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_OPERATOR_NEW);
		return p;
	}
	int sample = alloc_expired(a, n);
	void *p = cxx_call_new(op, f, n, align, nt); /* may throw */
	if (sample && p)
		SAMPLE_ALLOC(p, n, SPOOL_ALLOC_FN_OPERATOR_NEW);
	return p;
}

/* The body of the new form op: a count, then straight to the real form
 * when it passes, or the room taken when it owns; the rest out of line,
 * so that the fast path needs no frame of its own. */
#define CXX_NEW_BODY(op, n, align, nt, tail_call)                            \
	do {                                                                 \
		struct alloc_tls *a_ = &alloc_self;                                \
		count(a_, SPOOL_ALLOC_FN_OPERATOR_NEW);                      \
		enum cxx_mode m_ = cxx_mode(op);                             \
		void *f_ = cxx_known(op);                                    \
		if (likely(m_ == CXX_PASSES) ||                              \
		    (likely(m_ == CXX_OWNS) && likely(!reaches(a_, (n)))))   \
			return tail_call;                                    \
		void *p_ = cxx_new_slow((op), (n), (align), (nt));           \
		KEEP_FRAME();                                                \
		return p_;                                                   \
	} while (0)

WRAPPER void *
_Znwm(size_t n)
{
	CXX_NEW_BODY(CXX_NEW, n, 0, NULL, ((new_fn)f_)(n));
}

WRAPPER void *
_Znam(size_t n)
{
	CXX_NEW_BODY(CXX_NEW_ARRAY, n, 0, NULL, ((new_fn)f_)(n));
}

WRAPPER void *
_ZnwmRKSt9nothrow_t(size_t n, const void *nt)
{
	CXX_NEW_BODY(CXX_NEW_NOTHROW, n, 0, nt,
		     ((new_nothrow_fn)f_)(n, nt));
}

WRAPPER void *
_ZnamRKSt9nothrow_t(size_t n, const void *nt)
{
	CXX_NEW_BODY(CXX_NEW_ARRAY_NOTHROW, n, 0, nt,
		     ((new_nothrow_fn)f_)(n, nt));
}

WRAPPER void *
_ZnwmSt11align_val_t(size_t n, size_t align)
{
	CXX_NEW_BODY(CXX_NEW_ALIGNED, n, align, NULL,
		     ((new_aligned_fn)f_)(n, align));
}

WRAPPER void *
_ZnamSt11align_val_t(size_t n, size_t align)
{
	CXX_NEW_BODY(CXX_NEW_ARRAY_ALIGNED, n, align, NULL,
		     ((new_aligned_fn)f_)(n, align));
}

WRAPPER void *
_ZnwmSt11align_val_tRKSt9nothrow_t(size_t n, size_t align, const void *nt)
{
	CXX_NEW_BODY(CXX_NEW_ALIGNED_NOTHROW, n, align, nt,
		     ((new_aligned_nothrow_fn)f_)(n, align, nt));
}

WRAPPER void *
_ZnamSt11align_val_tRKSt9nothrow_t(size_t n, size_t align, const void *nt)
{
	CXX_NEW_BODY(CXX_NEW_ARRAY_ALIGNED_NOTHROW, n, align, nt,
		     ((new_aligned_nothrow_fn)f_)(n, align, nt));
}

/* Calls the real delete form op (f) of p with the form's other
 * arguments x and y (a size, an alignment, a nothrow tag). async-signal-safe */
static void
cxx_call_delete(enum cxx_op op, void *f, void *p, uintptr_t x, uintptr_t y)
{
	switch (op) {
	case CXX_DELETE:
	case CXX_DELETE_ARRAY:
		((delete_fn)f)(p);
		break;
	case CXX_DELETE_SIZED:
	case CXX_DELETE_ARRAY_SIZED:
	case CXX_DELETE_ALIGNED:
	case CXX_DELETE_ARRAY_ALIGNED:
		((delete_1_fn)f)(p, (size_t)x);
		break;
	case CXX_DELETE_NOTHROW:
	case CXX_DELETE_ARRAY_NOTHROW:
		((delete_nothrow_fn)f)(p, (const void *)x);
		break;
	case CXX_DELETE_SIZED_ALIGNED:
	case CXX_DELETE_ARRAY_SIZED_ALIGNED:
		((delete_sized_aligned_fn)f)(p, (size_t)x, (size_t)y);
		break;
	default:
		((delete_aligned_nothrow_fn)f)(p, (size_t)x, (const void *)y);
		break;
	}
}

/* The slow path of a delete form: p may be sampled or the arena's, or
 * the form's mode is not known yet (a first call of a non-null pointer
 * teaches it). async-signal-safe */
static void __attribute__((noinline))
cxx_delete_slow(enum cxx_op op, void *p, uintptr_t x, uintptr_t y)
{
	void *f = cxx_real(op);
	enum cxx_mode m = cxx_mode(op);
	if (m != CXX_PASSES) {
		if (release(p))
			return;
		if (m == CXX_UNKNOWN && p && cxx_probing(op, f)) {
			uint64_t before = c_calls();
			cxx_call_delete(op, f, p, x, y);
			cxx_learn(op, before);
			return;
		}
	}
	cxx_call_delete(op, f, p, x, y);
}

/* The body of the delete form op: a count, then straight to the real
 * form when it passes, or when it owns and p is not in the sampled set's
 * filter; the rest out of line. */
#define CXX_DELETE_BODY(op, p, x, y, call)                                   \
	do {                                                                 \
		count(&alloc_self, SPOOL_ALLOC_FN_OPERATOR_DELETE);                \
		enum cxx_mode m_ = cxx_mode(op);                             \
		void *f_ = cxx_known(op);                                    \
		if (likely(m_ == CXX_PASSES) ||                              \
		    (likely(m_ == CXX_OWNS) &&                               \
		     likely(!addrset_maybe(&alloc_sampled,                         \
					   (uint64_t)(uintptr_t)(p))))) {    \
			call;                                                \
			return;                                              \
		}                                                            \
		cxx_delete_slow((op), (p), (uintptr_t)(x), (uintptr_t)(y));  \
	} while (0)

WRAPPER void
_ZdlPv(void *p)
{
	CXX_DELETE_BODY(CXX_DELETE, p, 0, 0, ((delete_fn)f_)(p));
}

WRAPPER void
_ZdaPv(void *p)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY, p, 0, 0, ((delete_fn)f_)(p));
}

WRAPPER void
_ZdlPvm(void *p, size_t n)
{
	CXX_DELETE_BODY(CXX_DELETE_SIZED, p, n, 0, ((delete_1_fn)f_)(p, n));
}

WRAPPER void
_ZdaPvm(void *p, size_t n)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_SIZED, p, n, 0,
			((delete_1_fn)f_)(p, n));
}

WRAPPER void
_ZdlPvRKSt9nothrow_t(void *p, const void *nt)
{
	CXX_DELETE_BODY(CXX_DELETE_NOTHROW, p, nt, 0,
			((delete_nothrow_fn)f_)(p, nt));
}

WRAPPER void
_ZdaPvRKSt9nothrow_t(void *p, const void *nt)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_NOTHROW, p, nt, 0,
			((delete_nothrow_fn)f_)(p, nt));
}

WRAPPER void
_ZdlPvSt11align_val_t(void *p, size_t align)
{
	CXX_DELETE_BODY(CXX_DELETE_ALIGNED, p, align, 0,
			((delete_1_fn)f_)(p, align));
}

WRAPPER void
_ZdaPvSt11align_val_t(void *p, size_t align)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_ALIGNED, p, align, 0,
			((delete_1_fn)f_)(p, align));
}

WRAPPER void
_ZdlPvmSt11align_val_t(void *p, size_t n, size_t align)
{
	CXX_DELETE_BODY(CXX_DELETE_SIZED_ALIGNED, p, n, align,
			((delete_sized_aligned_fn)f_)(p, n, align));
}

WRAPPER void
_ZdaPvmSt11align_val_t(void *p, size_t n, size_t align)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_SIZED_ALIGNED, p, n, align,
			((delete_sized_aligned_fn)f_)(p, n, align));
}

WRAPPER void
_ZdlPvSt11align_val_tRKSt9nothrow_t(void *p, size_t align, const void *nt)
{
	CXX_DELETE_BODY(CXX_DELETE_ALIGNED_NOTHROW, p, align, nt,
			((delete_aligned_nothrow_fn)f_)(p, align, nt));
}

WRAPPER void
_ZdaPvSt11align_val_tRKSt9nothrow_t(void *p, size_t align, const void *nt)
{
	CXX_DELETE_BODY(CXX_DELETE_ARRAY_ALIGNED_NOTHROW, p, align, nt,
			((delete_aligned_nothrow_fn)f_)(p, align, nt));
}

