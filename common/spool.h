/*
 * spool: the on-disk format written by libprofrun.so and read by profanalyze
 * and profrun. man/profspool.5 is the authoritative description; this header
 * is its C binding.
 *
 * A spool is a 16-byte file header followed by self-delimiting records:
 *
 *   u32 type, u32 length, length bytes of payload
 *
 * All integers are little-endian. A string is u32 length + bytes (no NUL).
 * Readers skip record types they do not know, so new record types can be
 * added without a version bump; a file cut at any byte reads up to its last
 * whole record.
 *
 * The encoder writes into caller-provided fixed buffers and never allocates:
 * it runs in the preload library's writer thread. The decoder works on a
 * memory image of the file and never allocates either; decoded strings and
 * PC arrays point into that image.
 */
#ifndef PROFRUN_SPOOL_H
#define PROFRUN_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#define SPOOL_MAGIC "PRFSPOOL"
#define SPOOL_MAGIC_LEN 8
#define SPOOL_VERSION 1
#define SPOOL_FILE_HEADER_LEN 16
#define SPOOL_REC_HEADER_LEN 8
/* No record is longer than this; a longer length field means corruption. */
#define SPOOL_REC_MAX_LEN (64u << 20)
#define SPOOL_MAX_DEPTH 128

enum spool_rec_type {
	SPOOL_REC_PROCESS = 1,
	SPOOL_REC_MODULE_LOAD = 2,
	SPOOL_REC_MODULE_UNLOAD = 3,
	SPOOL_REC_THREAD = 4,
	SPOOL_REC_SAMPLE = 5,
	SPOOL_REC_FOOTER = 6,
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

/* THREAD.event */
enum spool_thread_event {
	SPOOL_THREAD_START = 1,
	SPOOL_THREAD_EXIT = 2,
	SPOOL_THREAD_NAME = 3,
};

/* Causes of dropped samples, counted in FOOTER. */
enum spool_drop {
	SPOOL_DROP_RING_FULL = 1,   /* the thread's ring was full */
	SPOOL_DROP_NO_RING = 2,     /* signal on a thread without a ring */
	SPOOL_DROP_REENTRANT = 3,   /* signal while the profiler itself ran */
	SPOOL_DROP_UNWIND = 4,      /* unwinder produced no frame at all */
	SPOOL_DROP_WRITE = 5,       /* write(2) to the spool failed */
	SPOOL_DROP_MAX_ = 6
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
};

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

struct spool_thread {
	uint64_t time_ns;
	uint32_t tid;
	uint32_t event; /* enum spool_thread_event */
	struct spool_str name;
};

struct spool_sample {
	uint64_t time_ns; /* CLOCK_MONOTONIC */
	uint32_t tid;
	uint16_t kind;    /* enum spool_sample_kind */
	uint16_t flags;   /* SPOOL_SAMPLE_* */
	uint64_t weight;  /* nanoseconds of CPU time this sample stands for */
	uint32_t depth;
	/* pcs[0] is the interrupted PC, pcs[i > 0] are return addresses. */
	const uint8_t *pcs_raw;
};

struct spool_footer {
	uint64_t end_mono_ns;
	uint64_t utime_ns;   /* getrusage(RUSAGE_SELF) at the end */
	uint64_t stime_ns;
	uint64_t samples;    /* SAMPLE records written */
	uint32_t threads;    /* threads seen */
	uint64_t drops[SPOOL_DROP_MAX_]; /* indexed by enum spool_drop */
};

/* ---- encoder (no allocation; safe in the writer thread) ---- */

/* A fixed-size output buffer. Writers append; overflow sets err. */
struct spool_buf {
	uint8_t *data;
	size_t cap;
	size_t len;
	int err; /* -ENOSPC once anything did not fit */
};

void
spool_buf_init(struct spool_buf *b, void *data, size_t cap);

/* Appends the 16-byte file header. */
void
spool_put_file_header(struct spool_buf *b);

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

#endif
