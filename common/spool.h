/*
 * spool: the on-disk format written by libprofrun.so and read by profanalyze
 * and profrun. man/profspool.5 is the authoritative description; this header
 * is its C binding.
 *
 * A spool is a 16-byte file header followed by self-delimiting records:
 *
 *   u32 type, u32 length, length bytes of payload
 *
 * From version 2 the header may give a chunk size: the file is then laid
 * out in chunks of that many bytes (the first holds the header), no record
 * crosses a chunk's end, and a type of 0 where a record would start means
 * the rest of that chunk is unused. Each thread of the profiled program
 * fills chunks of its own, mapped into its memory.
 *
 * All integers are little-endian. A string is u32 length + bytes (no NUL).
 * Readers skip record types they do not know, so new record types can be
 * added without a version bump; a file cut at any byte reads up to its last
 * whole record.
 *
 * The encoder writes into caller-provided fixed buffers and never allocates:
 * it runs in the preload library's signal handler and malloc wrappers. The decoder works on a
 * memory image of the file and never allocates either; decoded strings and
 * PC arrays point into that image.
 */
#ifndef PROFRUN_SPOOL_H
#define PROFRUN_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#define SPOOL_MAGIC "PRFSPOOL"
#define SPOOL_MAGIC_LEN 8
#define SPOOL_VERSION 2
#define SPOOL_MINOR 5 /* 1: THREAD cpu_ns and user_ns, per-image footer CPU;
			 * 2: CALL_ARCS; 3: SAMPLES; 4: PERF_MAP and the size
			 * limit; 5: ALLOCS */
#define SPOOL_FILE_HEADER_LEN 16
#define SPOOL_REC_HEADER_LEN 8
/* No record is longer than this; a longer length field means corruption. */
#define SPOOL_REC_MAX_LEN (64u << 20)
/* Frames a sample holds by default; profrun --max-depth allows up to
 * SPOOL_DEPTH_LIMIT. */
#define SPOOL_MAX_DEPTH 128
#define SPOOL_DEPTH_LIMIT 1024

enum spool_rec_type {
	SPOOL_REC_PROCESS = 1,
	SPOOL_REC_MODULE_LOAD = 2,
	SPOOL_REC_MODULE_UNLOAD = 3,
	SPOOL_REC_THREAD = 4,
	SPOOL_REC_SAMPLE = 5,
	SPOOL_REC_FOOTER = 6,
	SPOOL_REC_MODULE_IMAGE = 7,
	SPOOL_REC_ALLOC = 8,
	SPOOL_REC_FREE = 9,
	SPOOL_REC_CALL_COUNTS = 10,
	SPOOL_REC_CALL_ARCS = 11, /* format 2.2 */
	SPOOL_REC_SAMPLES = 12,   /* format 2.3 */
	SPOOL_REC_PERF_MAP = 13,  /* format 2.4 */
	SPOOL_REC_ALLOCS = 14,    /* format 2.5 */
};

/* Time source of CPU-time samples (PROCESS.timer). */
enum spool_timer {
	SPOOL_TIMER_NONE = 0,
	SPOOL_TIMER_PERF = 1,   /* perf_event task-clock, per thread */
	SPOOL_TIMER_POSIX = 2,  /* timer_create(CLOCK_THREAD_CPUTIME_ID) */
	SPOOL_TIMER_ITIMER = 3, /* setitimer(ITIMER_PROF), process-wide */
};

enum spool_clock {
	SPOOL_CLOCK_CPU = 1,
	SPOOL_CLOCK_WALL = 2,
};

/* SAMPLE.kind */
enum spool_sample_kind {
	SPOOL_SAMPLE_TIME = 1,
};

/* SAMPLE.flags */
#define SPOOL_SAMPLE_TRUNCATED 0x1u  /* stack deeper than the maximum depth */
#define SPOOL_SAMPLE_UNWIND_ERR 0x2u /* unwinding stopped on an error */
#define SPOOL_SAMPLE_OFF_CPU 0x4u    /* wall clock: the thread was blocked
				      * for weight ns at this stack */

/* THREAD.event */
enum spool_thread_event {
	SPOOL_THREAD_START = 1,
	SPOOL_THREAD_EXIT = 2,
	SPOOL_THREAD_NAME = 3,
	SPOOL_THREAD_CPU = 4, /* the CPU time of a thread still running at
			       * the image's end */
};

/* Causes of dropped samples, counted in FOOTER. */
enum spool_drop {
	SPOOL_DROP_RING_FULL = 1,   /* the thread's ring was full (samples of
				     * any kind, ALLOC and FREE records) */
	SPOOL_DROP_NO_RING = 2,     /* signal on a thread without a ring */
	SPOOL_DROP_REENTRANT = 3,   /* signal while the profiler itself ran */
	SPOOL_DROP_UNWIND = 4,      /* unwinder produced no frame at all */
	SPOOL_DROP_WRITE = 5,       /* write(2) to the spool failed */
	SPOOL_DROP_BLOCKED = 6,     /* the target blocked the sampling signal
				     * (written before format 2.1 only) */
	SPOOL_DROP_MAX_SIZE = 7,    /* the spool had reached its size limit
				     * (format 2.4) */
	SPOOL_DROP_MAX_ = 8
};

struct spool_str {
	const char *ptr; /* not NUL-terminated */
	uint32_t len;
};

struct spool_process {
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_realtime_ns; /* CLOCK_REALTIME at start */
	uint64_t start_mono_ns;     /* CLOCK_MONOTONIC at start: the time base */
	uint32_t timer;             /* enum spool_timer */
	uint32_t clock;             /* enum spool_clock */
	uint64_t period_ns;         /* effective sampling period */
	uint32_t requested_hz;
	uint32_t max_depth;
	struct spool_str exe;
	struct spool_str cmdline;   /* arguments separated by NUL bytes */
	uint32_t flags;             /* SPOOL_PROCESS_* (format 1.1; 0 before) */
	uint64_t space_interval;    /* mean bytes between allocation samples,
				     * 0 when space sampling was off (format
				     * 1.2; 0 before) */
};

/* PROCESS.flags */
#define SPOOL_PROCESS_USER_ONLY 0x1u /* samples cover user-mode CPU time only */
#define SPOOL_PROCESS_JITTER 0x2u /* perf periods drawn at random around
				   * period_ns (uniform, 0.5 to 1.5 times) */
/* The source was chosen (no --timer) and perf_event_open failed, so a
 * later one was taken; DENIED: with EACCES or EPERM (perf_event_paranoid,
 * a seccomp or container policy), else with another error (no perf
 * events in this kernel or sandbox). */
#define SPOOL_PROCESS_PERF_REFUSED 0x4u
#define SPOOL_PROCESS_PERF_DENIED 0x8u
/* With PERF_REFUSED: no descriptor for the counter out of the program's
 * way (EMFILE, ENFILE: RLIMIT_NOFILE no higher than the numbers the
 * library keeps its own at, or the system's table full). */
#define SPOOL_PROCESS_PERF_NO_FD 0x10u

struct spool_segment {
	uint64_t vaddr;  /* p_vaddr of the PT_LOAD header */
	uint64_t memsz;
	uint64_t offset; /* p_offset */
	uint32_t flags;  /* p_flags (PF_X, PF_W, PF_R) */
};

#define SPOOL_MAX_SEGMENTS 32
#define SPOOL_MAX_BUILD_ID 64

struct spool_module_load {
	uint64_t time_ns;  /* CLOCK_MONOTONIC */
	uint64_t base;     /* load bias: runtime address = base + vaddr */
	struct spool_str path;
	const uint8_t *build_id;
	uint32_t build_id_len;
	uint32_t nsegments;
	/* Segments are decoded on demand: spool_module_segment(). */
	const uint8_t *segments_raw;
};

struct spool_module_unload {
	uint64_t time_ns;
	uint64_t base;
	struct spool_str path;
};

/* The bytes of a module that has no file to read later (the vdso): the
 * file image from file offset 0, as mapped at base + the vaddr of the
 * PT_LOAD segment whose offset is 0. It belongs to the module loaded at
 * base that was live at time_ns. */
struct spool_module_image {
	uint64_t time_ns;
	uint64_t base;     /* load bias, as in the module's MODULE_LOAD */
	const uint8_t *data;
	uint32_t len;
};

struct spool_thread {
	uint64_t time_ns;
	uint32_t tid;
	uint32_t event; /* enum spool_thread_event */
	struct spool_str name;
	/* EXIT and CPU records (format 2.1): the thread's CPU time so far,
	 * and the user-mode part of it (SPOOL_CPU_UNKNOWN when not known). */
	int has_cpu;
	uint64_t cpu_ns;
	uint64_t user_ns;
};

#define SPOOL_CPU_UNKNOWN UINT64_MAX

struct spool_sample {
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint32_t tid;
	uint16_t kind;    /* enum spool_sample_kind */
	uint16_t flags;   /* SPOOL_SAMPLE_* */
	uint64_t weight;  /* nanoseconds of CPU time this sample stands for
			   * (of wall time when SPOOL_SAMPLE_OFF_CPU) */
	uint32_t depth;
	/* pcs[0] is the interrupted PC, pcs[i > 0] are return addresses. */
	const uint8_t *pcs_raw;
};

/* A sampled allocation (space profiling). The allocation byte stream of
 * each thread is sampled as a Poisson process: an allocation of size bytes
 * is sampled with probability 1 - exp(-size / space_interval), and weight
 * is size divided by that probability, so that the weights of all samples
 * add up to an unbiased estimate of the bytes allocated. */
struct spool_alloc {
	uint64_t time_ns; /* CLOCK_MONOTONIC, after the allocation returned */
	uint32_t tid;
	uint32_t flags;   /* SPOOL_SAMPLE_TRUNCATED, SPOOL_SAMPLE_UNWIND_ERR,
			   * SPOOL_ALLOC_* */
	uint64_t size;    /* bytes asked for */
	uint64_t address; /* of the block returned */
	uint64_t weight;  /* bytes of allocation this sample stands for */
	uint32_t fn;      /* enum spool_alloc_fn that allocated */
	uint32_t depth;
	/* pcs[0] is a PC inside the allocating function (a wrapper of the
	 * preload library), pcs[i > 0] are return addresses. */
	const uint8_t *pcs_raw;
};

/* ALLOC.flags, beside the SPOOL_SAMPLE_* bits */
#define SPOOL_ALLOC_UNTRACKED 0x100u /* its free will not be recorded */

/* The flags of an allocation's stack (as a SAMPLE's): its
 * SPOOL_SAMPLE_TRUNCATED and SPOOL_SAMPLE_UNWIND_ERR bits.
 * async-signal-safe */
static inline uint16_t
spool_alloc_stack_flags(uint32_t alloc_flags)
{
	return (uint16_t)(alloc_flags & (SPOOL_SAMPLE_TRUNCATED |
					 SPOOL_SAMPLE_UNWIND_ERR));
}

/* A sampled block was freed (or moved by realloc: FREE of the old address,
 * then an ALLOC if the new block is sampled). */
struct spool_free {
	uint64_t time_ns; /* CLOCK_MONOTONIC, before the block was released */
	uint32_t tid;
	uint64_t address;
};

/* Functions whose calls are counted exactly (CALL_COUNTS); the ids are
 * part of the format. */
enum spool_alloc_fn {
	SPOOL_ALLOC_FN_MALLOC = 0,
	SPOOL_ALLOC_FN_CALLOC = 1,
	SPOOL_ALLOC_FN_REALLOC = 2,
	SPOOL_ALLOC_FN_REALLOCARRAY = 3,
	SPOOL_ALLOC_FN_FREE = 4,
	SPOOL_ALLOC_FN_POSIX_MEMALIGN = 5,
	SPOOL_ALLOC_FN_ALIGNED_ALLOC = 6,
	SPOOL_ALLOC_FN_MEMALIGN = 7,
	SPOOL_ALLOC_FN_VALLOC = 8,
	SPOOL_ALLOC_FN_PVALLOC = 9,
	SPOOL_ALLOC_FN_FREE_SIZED = 10,
	SPOOL_ALLOC_FN_FREE_ALIGNED_SIZED = 11,
	SPOOL_ALLOC_FN_MALLOCX = 12,
	SPOOL_ALLOC_FN_RALLOCX = 13,
	SPOOL_ALLOC_FN_XALLOCX = 14,
	SPOOL_ALLOC_FN_SDALLOCX = 15,
	SPOOL_ALLOC_FN_DALLOCX = 16,
	SPOOL_ALLOC_FN_MALLOC_USABLE_SIZE = 17,
	SPOOL_ALLOC_FN_OPERATOR_NEW = 18,
	SPOOL_ALLOC_FN_OPERATOR_DELETE = 19,
	SPOOL_ALLOC_FN_MAX_ = 20
};

/* Exact counts of calls to the functions of enum spool_alloc_fn made by one
 * thread since its previous CALL_COUNTS record (a reader adds them up). */
struct spool_call_counts {
	uint32_t tid;
	uint32_t n; /* counters in the record: ids 0 to n - 1 */
	const uint8_t *counts_raw;
};

/* Exact counts of the calls of functions compiled with
 * -finstrument-functions (format 2.2), made by one thread since its
 * previous CALL_ARCS record (a reader adds them up): each arc is the
 * entry address of the called function (fn), the return address of the
 * call in its caller (site) and the number of calls. missed counts calls
 * the thread made that could not be counted (the library's counter was
 * busy, or had no room). */
struct spool_call_arcs {
	uint64_t time_ns; /* CLOCK_MONOTONIC when the record was written */
	uint32_t tid;
	uint32_t n;       /* arcs in the record */
	uint64_t missed;
	const uint8_t *arcs_raw;
};

/* One arc of CALL_ARCS, native-endian (the encoder's input). */
struct spool_call_arc {
	uint64_t fn;
	uint64_t site;
	uint64_t count;
};

/* Bytes of one arc in a CALL_ARCS record. */
#define SPOOL_CALL_ARC_LEN 24u
/* Bytes of a CALL_ARCS record of n arcs, header included. */
#define SPOOL_CALL_ARCS_SIZE(n) \
	(SPOOL_REC_HEADER_LEN + 8u + 4u + 4u + 8u + (n) * SPOOL_CALL_ARC_LEN)

/* A part of the perf map the program wrote for its JIT code
 * (/tmp/perf-PID.map: text lines "START SIZE name", START and SIZE in
 * hex), copied by the library when the program deletes it and at the
 * end of the image (format 2.4), since such maps are often deleted at
 * exit. A copy longer than one record is split into parts, numbered
 * from 0 and written in order; each holds whole lines. A reader takes
 * the lines of all parts of all copies in file order (a later line
 * redefines the ranges it overlaps). */
struct spool_perf_map {
	uint32_t pid;   /* the PID of the file's name */
	uint32_t part;  /* 0, 1, ... */
	uint32_t flags; /* SPOOL_PERF_MAP_* */
	struct spool_str text;
};

/* PERF_MAP.flags */
#define SPOOL_PERF_MAP_LAST 0x1u /* the last part: the map was copied whole,
				  * unless CUT */
#define SPOOL_PERF_MAP_CUT 0x2u  /* the map was longer than the library
				  * copies: the lines after this part's are
				  * missing */
/* Bytes of a PERF_MAP payload before the text. */
#define SPOOL_PERF_MAP_FIXED 16u

/* How the process image ended (FOOTER.end_reason). */
enum spool_end {
	SPOOL_END_UNKNOWN = 0, /* a spool written before this field existed */
	SPOOL_END_EXIT = 1,    /* exit(), return from main, exit of the last thread */
	SPOOL_END_EXEC = 2,    /* the image was replaced by execve() */
	SPOOL_END_SIGNAL = 3,  /* killed by end_signal, which was re-raised */
	SPOOL_END__EXIT = 4,   /* _exit() or _Exit() */
	SPOOL_END_SECCOMP = 5, /* the program entered seccomp (strict mode or a
				* filter): profiling ended before it */
};

struct spool_footer {
	uint64_t end_mono_ns;
	uint64_t utime_ns;   /* getrusage(RUSAGE_SELF) at the end */
	uint64_t stime_ns;
	uint64_t samples;    /* SAMPLE records written */
	uint32_t threads;    /* threads seen */
	uint64_t drops[SPOOL_DROP_MAX_]; /* indexed by enum spool_drop */
	uint32_t end_reason; /* enum spool_end */
	uint32_t end_signal; /* the signal, for SPOOL_END_SIGNAL */
	/* Format 2.1, from /proc/self/status at the end (0: not known):
	 * peak resident set (VmHWM), and the resident anonymous and file
	 * pages then (RssAnon, RssFile + RssShmem), in bytes. */
	uint64_t rss_peak;
	uint64_t rss_anon;
	uint64_t rss_file;
	/* Format 2.1: children the program started with clone() itself
	 * (not fork or pthread_create), which ran unprofiled: processes and
	 * threads (CLONE_THREAD). */
	uint32_t clone_processes;
	uint32_t clone_threads;
	/* Format 2.4: the spool's size limit in bytes (profrun --max-size;
	 * 0: none), and when the limit stopped sampling (CLOCK_MONOTONIC;
	 * 0: it did not). */
	uint64_t size_limit;
	uint64_t size_limit_ns;
};

/* ---- encoder (no allocation: safe in a signal handler and inside the
 * library's malloc wrappers) ---- */

/* A fixed-size output buffer. Writers append; overflow sets err. */
struct spool_buf {
	uint8_t *data;
	size_t cap;
	size_t len;
	int err; /* -ENOSPC once anything did not fit */
};

void
spool_buf_init(struct spool_buf *b, void *data, size_t cap);

/* Appends the 16-byte file header; chunk is the chunk size (a multiple
 * of 4096 and at least SPOOL_CHUNK_MIN), or 0 for contiguous records. */
#define SPOOL_CHUNK_MIN 4096u
void
spool_put_file_header(struct spool_buf *b, uint32_t chunk);

/* Each appends one whole record, or nothing and sets b->err when it does
 * not fit in the space left. Return 0 or -ENOSPC (-EINVAL for a module
 * with more than SPOOL_MAX_SEGMENTS segments or a longer build-id than
 * SPOOL_MAX_BUILD_ID). These run in the preload library's signal handler.
 * async-signal-safe */
int
spool_put_process(struct spool_buf *b, const struct spool_process *p);
int
spool_put_module_load(struct spool_buf *b, const struct spool_module_load *m,
		      const struct spool_segment *segs);
int
spool_put_module_unload(struct spool_buf *b,
			const struct spool_module_unload *m);
int
spool_put_thread(struct spool_buf *b, const struct spool_thread *t);
/* pcs: depth native-endian PCs (the sample's pcs_raw is ignored). */
int
spool_put_sample(struct spool_buf *b, const struct spool_sample *s,
		 const uint64_t *pcs);
int
spool_put_footer(struct spool_buf *b, const struct spool_footer *f);
int
spool_put_module_image(struct spool_buf *b,
		       const struct spool_module_image *m);
/* pcs: depth native-endian PCs (pcs_raw is ignored). */
int
spool_put_alloc(struct spool_buf *b, const struct spool_alloc *a,
		const uint64_t *pcs);
int
spool_put_free(struct spool_buf *b, const struct spool_free *f);
/* counts: n counters, indexed by enum spool_alloc_fn. */
int
spool_put_call_counts(struct spool_buf *b, uint32_t tid,
		      const uint64_t *counts, uint32_t n);

/* arcs: c->n arcs (c->arcs_raw is ignored). */
int
spool_put_call_arcs(struct spool_buf *b, const struct spool_call_arcs *c,
		    const struct spool_call_arc *arcs);

/* m->text is copied into the record. */
int
spool_put_perf_map(struct spool_buf *b, const struct spool_perf_map *m);

/* Size in bytes of an ALLOC record (header included) of this depth. */
size_t
spool_alloc_size(uint32_t depth);

/* Size in bytes of a SAMPLE record (header included) of this depth. */
size_t
spool_sample_size(uint32_t depth);

/* ---- decoder ---- */

struct spool_rec {
	uint32_t type;
	uint32_t len;
	const uint8_t *payload;
	uint64_t offset; /* of the record header in the file */
};

struct spool_cursor {
	const uint8_t *data;
	size_t size;
	size_t pos;
	uint16_t version;
	uint32_t chunk; /* chunk size, 0 when records are contiguous */
};

enum spool_status {
	SPOOL_OK = 1,          /* a record was returned */
	SPOOL_END = 0,         /* clean end of file */
	SPOOL_TRUNCATED = -1,  /* the file ends inside a record (at pos) */
	SPOOL_CORRUPT = -2,    /* a length field is impossible (at pos) */
};

/* Checks the file header. Returns 0, -EBADMSG when this is not a spool
 * (wrong magic or shorter than a header), -ENOTSUP for a newer major version.
 * The cursor borrows data, which must outlive it. */
int
spool_cursor_init(struct spool_cursor *c, const void *data, size_t size);

/* Next record, whatever its type. Returns an enum spool_status. */
int
spool_next(struct spool_cursor *c, struct spool_rec *rec);

/* Typed decoders. Each returns 0, or -EBADMSG when the payload is shorter
 * than the fields it must hold (extra trailing bytes are allowed, so fields
 * can be appended in later versions). Pointers in the result point into the
 * record's payload. */
int
spool_get_process(const struct spool_rec *r, struct spool_process *out);
int
spool_get_module_load(const struct spool_rec *r, struct spool_module_load *out);
int
spool_get_module_unload(const struct spool_rec *r,
			struct spool_module_unload *out);
int
spool_get_thread(const struct spool_rec *r, struct spool_thread *out);
int
spool_get_sample(const struct spool_rec *r, struct spool_sample *out);
int
spool_get_footer(const struct spool_rec *r, struct spool_footer *out);
int
spool_get_module_image(const struct spool_rec *r,
		       struct spool_module_image *out);
int
spool_get_alloc(const struct spool_rec *r, struct spool_alloc *out);
int
spool_get_free(const struct spool_rec *r, struct spool_free *out);
int
spool_get_call_counts(const struct spool_rec *r,
		      struct spool_call_counts *out);
int
spool_get_call_arcs(const struct spool_rec *r, struct spool_call_arcs *out);
int
spool_get_perf_map(const struct spool_rec *r, struct spool_perf_map *out);

/* The i-th arc of a decoded CALL_ARCS (i < n). */
struct spool_call_arc
spool_call_arc_at(const struct spool_call_arcs *c, uint32_t i);

/* The i-th PC of a decoded ALLOC (i < depth). */
uint64_t
spool_alloc_pc(const struct spool_alloc *a, uint32_t i);

/* The count of function id in a decoded CALL_COUNTS (0 for an id the
 * record does not hold). */
uint64_t
spool_call_count(const struct spool_call_counts *c, uint32_t id);

/* Name of a counted function ("malloc", ...) or "unknown". Static. */
const char *
spool_alloc_fn_name(uint32_t id);

/* The i-th segment of a decoded MODULE_LOAD (i < nsegments). */
struct spool_segment
spool_module_segment(const struct spool_module_load *m, uint32_t i);

/* The i-th PC of a decoded SAMPLE (i < depth). */
uint64_t
spool_sample_pc(const struct spool_sample *s, uint32_t i);

/* Name of a timer source ("perf", "posix", "itimer") or "none". Static. */
const char *
spool_timer_name(uint32_t timer);

/* Name of a drop cause ("ring-full", ...) or "unknown". Static. */
const char *
spool_drop_name(uint32_t cause);

/* ---- SAMPLES (format 2.3): time samples of one thread, batched ----
 *
 * A SAMPLES record holds a header (u32 tid, u32 stream, u64 time_ns,
 * u64 weight) and entries, one time sample each, encoded as LEB128
 * varints: key = id << 1 | define, zigzag(time - previous time),
 * zigzag(weight - previous weight), and when define is set the stack:
 * flags, depth, pcs[0], then zigzag(pcs[i] - pcs[i - 1]). The first
 * entry's previous time and weight are the header's. id names a stack
 * of the stream (a thread's life in one image), defined once by an
 * entry with define set; id 0 is a stack used by one entry only. A zero
 * byte where an entry would start ends the entries (the writer grows a
 * record in place: the length first, then the entry, its first byte
 * last). profspool(5) has the details. */

/* Bytes of the SAMPLES header (payload, record header excluded). */
#define SPOOL_SAMPLES_FIXED 24u
/* The most bytes one entry of depth frames takes. */
#define SPOOL_ENTRY_MAX(depth) (5u + 10u + 10u + 3u + 5u + 10u * (depth))

/* One entry, decoded. */
struct spool_entry {
	uint32_t id;      /* stack id in the stream; 0: used by this entry only */
	int define;       /* the entry defines the stack (the fields below) */
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint64_t weight;  /* as SAMPLE.weight */
	uint16_t flags;   /* SPOOL_SAMPLE_*, when define */
	uint32_t depth;   /* when define */
	const uint8_t *pcs_enc; /* the stack, encoded: spool_entry_pcs() */
	uint32_t pcs_len;
};

struct spool_samples {
	uint32_t tid;
	uint32_t stream;  /* the thread's stream, unique in the image */
	uint64_t time_ns; /* previous time and weight of the first entry */
	uint64_t weight;
	const uint8_t *entries;
	uint32_t len;
};

/* Walks the entries of a decoded SAMPLES record. */
struct spool_entry_cursor {
	const uint8_t *p;
	uint32_t len, pos;
	uint64_t time_ns, weight;
};

/* Encodes one entry into out (cap bytes; SPOOL_ENTRY_MAX(depth) always
 * suffices) after a sample of time prev_time and weight prev_weight.
 * s gives time_ns, weight, and, when define, flags and depth; pcs the
 * depth PCs. Returns the bytes written, 0 when they do not fit (or the
 * key would be 0: id 0 without define). async-signal-safe */
size_t
spool_encode_entry(uint8_t *out, size_t cap, uint64_t prev_time,
		   uint64_t prev_weight, const struct spool_sample *s,
		   uint32_t id, int define, const uint64_t *pcs);

/* Appends the header of a SAMPLES record whose entries are the len bytes
 * at entries, record header included. Returns 0 or -ENOSPC.
 * async-signal-safe */
int
spool_put_samples(struct spool_buf *b, const struct spool_samples *h,
		  const uint8_t *entries, size_t len);

/* Decodes the header; out->entries points into the payload. Returns 0 or
 * -EBADMSG. */
int
spool_get_samples(const struct spool_rec *r, struct spool_samples *out);

void
spool_entries_begin(struct spool_entry_cursor *c,
		    const struct spool_samples *h);

/* The next entry: 1, 0 at the end of the entries (the payload's end or a
 * zero byte), -EBADMSG when an entry is malformed (the rest of the record
 * is then unreadable). Pointers in e point into the record. */
int
spool_entries_next(struct spool_entry_cursor *c, struct spool_entry *e);

/* Decodes a defining entry's e->depth PCs into out. Returns 0 or
 * -EBADMSG. */
int
spool_entry_pcs(const struct spool_entry *e, uint64_t *out);

/* The time samples a record stands for: 1 for a SAMPLE of kind time, the
 * entries of a SAMPLES that decode, 0 for any other record. */
uint64_t
spool_time_samples(const struct spool_rec *r);

/* The same, of those taken from lo_ns up to, not including, hi_ns
 * (CLOCK_MONOTONIC). */
uint64_t
spool_time_samples_between(const struct spool_rec *r, uint64_t lo_ns,
			   uint64_t hi_ns);

/* ---- ALLOCS (format 2.5): space samples of one thread, batched ----
 *
 * What ALLOC and FREE records say, as entries of a few bytes: an ALLOCS
 * record holds a header (u32 tid, u32 stream, u64 time_ns, u64 address,
 * u64 weight) and entries, each a sampled allocation or the release of a
 * sampled block, as varints: key, zigzag(time - previous time),
 * zigzag(address - previous address), and for an allocation size,
 * zigzag(weight - previous allocation's weight), fn, flags, then, when
 * it defines its stack, the stack as a defining SAMPLES entry has it
 * (flags, depth, PCs). key is 2 for a release, id << 2 | define << 1 | 1
 * for an allocation; stack ids are the stream's, shared with SAMPLES
 * (a stack either record defines may be referred to by both). The
 * header holds the previous values of the first entry; a zero byte where
 * an entry would start ends the entries, and the writer grows a record
 * in place as a SAMPLES record. profspool(5) has the details. */

/* Bytes of the ALLOCS header (payload, record header excluded). */
#define SPOOL_ALLOCS_FIXED 32u
/* The most bytes one entry of depth frames takes. */
#define SPOOL_SPACE_ENTRY_MAX(depth) \
	(5u + 10u + 10u + 10u + 10u + 5u + 5u + 3u + 5u + 10u * (depth))
/* The key of a release entry. */
#define SPOOL_SPACE_KEY_RELEASE 2u

/* The values entries are deltas from: the previous entry's time and
 * address, and the previous allocation's weight. */
struct spool_space_chain {
	uint64_t time_ns;
	uint64_t address;
	uint64_t weight;
};

/* One entry, decoded. An allocation reads as the ALLOC record it stands
 * for with the stack stack.id names (or stack itself, when it defines
 * one); a release as the FREE record. */
struct spool_space_entry {
	int release;      /* 1: a release; 0: an allocation */
	uint64_t time_ns;
	uint64_t address;
	uint64_t size;    /* an allocation's, as ALLOC */
	uint64_t weight;
	uint32_t fn;
	uint32_t flags;
	/* An allocation's stack: id, define and, when define, the stack's
	 * flags, depth and PCs (time_ns and weight are the entry's). */
	struct spool_entry stack;
};

struct spool_allocs {
	uint32_t tid;
	uint32_t stream;
	struct spool_space_chain prev; /* of the first entry */
	const uint8_t *entries;
	uint32_t len;
};

/* Walks the entries of a decoded ALLOCS record. */
struct spool_space_cursor {
	const uint8_t *p;
	uint32_t len, pos;
	struct spool_space_chain at;
};

/* Encodes the allocation a (its time_ns, size, address, weight, fn,
 * flags and depth; tid is the record's) with stack pcs as an entry after
 * prev, into out (cap bytes; SPOOL_SPACE_ENTRY_MAX(a->depth) suffices).
 * The stack's own flags are a->flags' SPOOL_SAMPLE_* bits. Returns the
 * bytes written, 0 when they do not fit (or id 0 without define).
 * async-signal-safe */
size_t
spool_encode_space_alloc(uint8_t *out, size_t cap,
			 const struct spool_space_chain *prev,
			 const struct spool_alloc *a, uint32_t id, int define,
			 const uint64_t *pcs);

/* Encodes the release f (its time_ns and address) as an entry after prev.
 * Returns the bytes written or 0. async-signal-safe */
size_t
spool_encode_space_free(uint8_t *out, size_t cap,
			const struct spool_space_chain *prev,
			const struct spool_free *f);

/* Appends the header of an ALLOCS record whose entries are the len bytes
 * at entries, record header included. Returns 0 or -ENOSPC.
 * async-signal-safe */
int
spool_put_allocs(struct spool_buf *b, const struct spool_allocs *h,
		 const uint8_t *entries, size_t len);

/* Decodes the header; out->entries points into the payload. Returns 0 or
 * -EBADMSG. */
int
spool_get_allocs(const struct spool_rec *r, struct spool_allocs *out);

void
spool_space_begin(struct spool_space_cursor *c, const struct spool_allocs *h);

/* The next entry: 1, 0 at the end of the entries, -EBADMSG when an entry
 * is malformed (the rest of the record is then unreadable). Pointers in
 * e point into the record. */
int
spool_space_next(struct spool_space_cursor *c, struct spool_space_entry *e);

/* The sampled allocations a record stands for: 1 for an ALLOC, the
 * allocation entries of an ALLOCS that decode, 0 for any other record. */
uint64_t
spool_space_samples(const struct spool_rec *r);

/* The same, of those made from lo_ns up to, not including, hi_ns
 * (CLOCK_MONOTONIC). */
uint64_t
spool_space_samples_between(const struct spool_rec *r, uint64_t lo_ns,
			    uint64_t hi_ns);

#endif
