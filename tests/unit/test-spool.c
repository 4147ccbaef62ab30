/*
 * Unit tests of the spool format (common/spool.c, man/profspool.5).
 *
 * The spool is the contract between the preload library, which writes it
 * while the target runs, and the analyzer, which may read it after the
 * target was killed at any instant. So beside the round trip of every record
 * type these tests pin the on-disk bytes, cut a spool at every byte offset,
 * and feed the decoder lengths that would make a careless reader run off the
 * end of its buffer.
 */
#include "spool.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define STR(s) { (s), sizeof(s) - 1 }
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- fixtures: one value of every record type, fields all distinct ---- */

static const struct spool_process fixture_process = {
	.pid = 4242,
	.ppid = 17,
	.start_realtime_ns = 0x17a0b1c2d3e4f506ull,
	.start_mono_ns = 0x0000123456789abcull,
	.timer = SPOOL_TIMER_POSIX,
	.clock = SPOOL_CLOCK_CPU,
	.period_ns = 10000000,
	.requested_hz = 100,
	.max_depth = SPOOL_MAX_DEPTH,
	.exe = STR("/usr/bin/target"),
	/* Arguments are NUL-separated: the length, not a terminator, ends it. */
	.cmdline = { "target\0--flag\0x", 16 },
	.flags = SPOOL_PROCESS_USER_ONLY,
	.space_interval = 524288,
};

static const uint8_t fixture_build_id[20] = {
	0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
	0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0xff,
};

static const struct spool_segment fixture_segments[] = {
	{ 0x0, 0x1234, 0x0, 0x4 },
	{ 0x1000, 0x5678, 0x1000, 0x5 },
	{ 0xfffffffff000ull, 0x9abc, 0x3000, 0x6 },
};

static const struct spool_module_load fixture_module_load = {
	.time_ns = 1000001,
	.base = 0x7f0012340000ull,
	.path = STR("/lib/x86_64-linux-gnu/libc.so.6"),
	.build_id = fixture_build_id,
	.build_id_len = sizeof(fixture_build_id),
	.nsegments = ARRAY_LEN(fixture_segments),
};

static const struct spool_module_unload fixture_module_unload = {
	.time_ns = 2000002,
	.base = 0x7f0012340000ull,
	.path = STR("/tmp/plugin.so"),
};

static const struct spool_thread fixture_thread = {
	.time_ns = 3000003,
	.tid = 4243,
	.event = SPOOL_THREAD_NAME,
	.name = STR("worker-1"),
};

static const uint64_t fixture_pcs[] = {
	0x55555555a123ull, 0x55555555b456ull, 0x7fffffffe789ull,
	0xffffffffffffffffull,
};

static const struct spool_sample fixture_sample = {
	.time_ns = 4000004,
	.tid = 4243,
	.kind = SPOOL_SAMPLE_TIME,
	.flags = SPOOL_SAMPLE_TRUNCATED | SPOOL_SAMPLE_UNWIND_ERR,
	.weight = 10000000,
	.depth = ARRAY_LEN(fixture_pcs),
};

static const struct spool_footer fixture_footer = {
	.end_mono_ns = 0x0000123456789abcull + 5000000000ull,
	.utime_ns = 1500000000,
	.stime_ns = 20000000,
	.samples = 150,
	.threads = 5,
	.drops = { 0, 11, 22, 33, 44, 55, 66, 77 },
	.rss_peak = 96ull << 20,
	.rss_anon = 64ull << 20,
	.rss_file = 3ull << 20,
	.clone_processes = 2,
	.clone_threads = 3,
	.size_limit = 64ull << 20,
	.size_limit_ns = 0x0000123456789abcull + 4000000000ull,
};

/* A module image: bytes of every value, NUL and 0xff included. */
static const uint8_t fixture_image[] = {
	0x7f, 'E', 'L', 'F', 0x02, 0x01, 0x01, 0x00, 0x00, 0xff, 0x80, 0x0a,
};

static const struct spool_module_image fixture_module_image = {
	.time_ns = 5000005,
	.base = 0x7ffc0a5f1000ull,
	.data = fixture_image,
	.len = sizeof(fixture_image),
};

static const struct spool_alloc fixture_alloc = {
	.time_ns = 6000006,
	.tid = 4244,
	.flags = SPOOL_SAMPLE_UNWIND_ERR | SPOOL_ALLOC_UNTRACKED,
	.size = 0x123456789ull,
	.address = 0x7f00deadbee0ull,
	.weight = 0x12345abcdull,
	.fn = SPOOL_ALLOC_FN_REALLOCARRAY,
	.depth = ARRAY_LEN(fixture_pcs),
};

static const struct spool_free fixture_free = {
	.time_ns = 7000007,
	.tid = 4245,
	.address = 0x7f00deadbee0ull,
};

static const uint64_t fixture_counts[] = {
	1000001, 22, 333, 0, 1000000, 5, 0xffffffffffffffffull,
};

static const struct spool_call_arc fixture_arcs[] = {
	{ 0x401136, 0x4011a2, 1 },
	{ 0x401136, 0x401160, 0x123456789ull },
	{ 0x7f0011223344ull, 0x401190, 0xffffffffffffffffull },
};

static const struct spool_call_arcs fixture_call_arcs = {
	.time_ns = 987654321, .tid = 4247, .n = ARRAY_LEN(fixture_arcs),
	.missed = 17,
};

static const char fixture_perf_map_text[] =
	"7f0011220000 40 jit_hot_loop\n"
	"0x7f0011220040 0x10 LazyCompile:~f /a b.js:1\n";

static const struct spool_perf_map fixture_perf_map = {
	.pid = 4242, .part = 3, .flags = SPOOL_PERF_MAP_LAST,
	.text = { fixture_perf_map_text, sizeof(fixture_perf_map_text) - 1 },
};

static int
put_process(struct spool_buf *b)
{
	return spool_put_process(b, &fixture_process);
}

static int
put_module_load(struct spool_buf *b)
{
	return spool_put_module_load(b, &fixture_module_load, fixture_segments);
}

static int
put_module_unload(struct spool_buf *b)
{
	return spool_put_module_unload(b, &fixture_module_unload);
}

static int
put_thread(struct spool_buf *b)
{
	return spool_put_thread(b, &fixture_thread);
}

static int
put_sample(struct spool_buf *b)
{
	return spool_put_sample(b, &fixture_sample, fixture_pcs);
}

static int
put_footer(struct spool_buf *b)
{
	return spool_put_footer(b, &fixture_footer);
}

static int
put_module_image(struct spool_buf *b)
{
	return spool_put_module_image(b, &fixture_module_image);
}

static int
put_alloc(struct spool_buf *b)
{
	return spool_put_alloc(b, &fixture_alloc, fixture_pcs);
}

static int
put_free(struct spool_buf *b)
{
	return spool_put_free(b, &fixture_free);
}

static int
put_call_counts(struct spool_buf *b)
{
	return spool_put_call_counts(b, 4246, fixture_counts,
				     ARRAY_LEN(fixture_counts));
}

static int
put_call_arcs(struct spool_buf *b)
{
	return spool_put_call_arcs(b, &fixture_call_arcs, fixture_arcs);
}

static int
put_perf_map(struct spool_buf *b)
{
	return spool_put_perf_map(b, &fixture_perf_map);
}

static int
get_process(const struct spool_rec *r)
{
	struct spool_process out;
	return spool_get_process(r, &out);
}

static int
get_module_load(const struct spool_rec *r)
{
	struct spool_module_load out;
	return spool_get_module_load(r, &out);
}

static int
get_module_unload(const struct spool_rec *r)
{
	struct spool_module_unload out;
	return spool_get_module_unload(r, &out);
}

static int
get_thread(const struct spool_rec *r)
{
	struct spool_thread out;
	return spool_get_thread(r, &out);
}

static int
get_sample(const struct spool_rec *r)
{
	struct spool_sample out;
	return spool_get_sample(r, &out);
}

static int
get_footer(const struct spool_rec *r)
{
	struct spool_footer out;
	return spool_get_footer(r, &out);
}

static int
get_module_image(const struct spool_rec *r)
{
	struct spool_module_image out;
	return spool_get_module_image(r, &out);
}

static int
get_alloc(const struct spool_rec *r)
{
	struct spool_alloc out;
	return spool_get_alloc(r, &out);
}

static int
get_free(const struct spool_rec *r)
{
	struct spool_free out;
	return spool_get_free(r, &out);
}

static int
get_call_counts(const struct spool_rec *r)
{
	struct spool_call_counts out;
	return spool_get_call_counts(r, &out);
}

static int
get_call_arcs(const struct spool_rec *r)
{
	struct spool_call_arcs out;
	return spool_get_call_arcs(r, &out);
}

static int
get_perf_map(const struct spool_rec *r)
{
	struct spool_perf_map out;
	return spool_get_perf_map(r, &out);
}

/* Every record type with its fixture encoder and its typed decoder; the
 * table-driven tests below run once per row (tcase_add_loop_test). */
static const struct rec_case {
	const char *name;
	uint32_t type;
	int (*put)(struct spool_buf *b);
	int (*get)(const struct spool_rec *r);
	/* Bytes of fields appended in later minor versions: a payload
	 * without them is still valid. */
	uint32_t optional;
} rec_cases[] = {
	{ "process", SPOOL_REC_PROCESS, put_process, get_process, 4 + 8 },
	{ "module_load", SPOOL_REC_MODULE_LOAD, put_module_load,
	  get_module_load, 0 },
	{ "module_unload", SPOOL_REC_MODULE_UNLOAD, put_module_unload,
	  get_module_unload, 0 },
	{ "thread", SPOOL_REC_THREAD, put_thread, get_thread, 0 },
	{ "sample", SPOOL_REC_SAMPLE, put_sample, get_sample, 0 },
	{ "footer", SPOOL_REC_FOOTER, put_footer, get_footer,
	  4 + 4 + 3 * 8 + 4 + 4 + 8 + 8 },
	{ "module_image", SPOOL_REC_MODULE_IMAGE, put_module_image,
	  get_module_image, 0 },
	{ "alloc", SPOOL_REC_ALLOC, put_alloc, get_alloc, 0 },
	{ "free", SPOOL_REC_FREE, put_free, get_free, 0 },
	{ "call_counts", SPOOL_REC_CALL_COUNTS, put_call_counts,
	  get_call_counts, 0 },
	{ "call_arcs", SPOOL_REC_CALL_ARCS, put_call_arcs, get_call_arcs, 0 },
	{ "perf_map", SPOOL_REC_PERF_MAP, put_perf_map, get_perf_map, 0 },
};

/* ---- helpers ---- */

/* Size of one segment entry in MODULE_LOAD: vaddr, memsz, offset, flags. */
#define SEGMENT_LEN (8 + 8 + 8 + 4)

static void
poke_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void
start_spool(struct spool_buf *b, uint8_t *mem, size_t cap)
{
	spool_buf_init(b, mem, cap);
	spool_put_file_header(b, 0);
	ck_assert_int_eq(b->err, 0);
	ck_assert_uint_eq(b->len, SPOOL_FILE_HEADER_LEN);
}

static void
open_spool(struct spool_cursor *c, const struct spool_buf *b)
{
	ck_assert_int_eq(spool_cursor_init(c, b->data, b->len), 0);
	ck_assert_uint_eq(c->version, SPOOL_VERSION);
}

/* Reads the next record and checks that it is whole and of this type. */
static void
next_record(struct spool_cursor *c, struct spool_rec *rec, uint32_t type)
{
	size_t pos = c->pos;
	ck_assert_int_eq(spool_next(c, rec), SPOOL_OK);
	ck_assert_uint_eq(rec->type, type);
	/* A chunked spool skips the unused rest of a chunk. */
	if (c->chunk)
		ck_assert_uint_ge(rec->offset, pos);
	else
		ck_assert_uint_eq(rec->offset, pos);
	pos = rec->offset;
	ck_assert_uint_eq(c->pos, pos + SPOOL_REC_HEADER_LEN + rec->len);
	ck_assert_ptr_eq(rec->payload, c->data + pos + SPOOL_REC_HEADER_LEN);
}

static void
assert_str_eq(struct spool_str got, struct spool_str want)
{
	ck_assert_uint_eq(got.len, want.len);
	ck_assert_mem_eq(got.ptr, want.ptr, want.len);
}

/* Encodes one fixture record alone into mem and returns it decoded by
 * spool_next, so a test can tamper with its length. */
static void
encode_one(const struct rec_case *rc, uint8_t *mem, size_t cap,
	   struct spool_buf *b, struct spool_rec *rec)
{
	struct spool_cursor c;

	start_spool(b, mem, cap);
	ck_assert_int_eq(rc->put(b), 0);
	open_spool(&c, b);
	next_record(&c, rec, rc->type);
	ck_assert_int_eq(spool_next(&c, rec + 1), SPOOL_END);
}

/* ---- round trips ---- */

START_TEST(spool_roundtrip_process)
{
	uint8_t mem[512];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_process p;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_process(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_PROCESS);
	ck_assert_int_eq(spool_get_process(&rec, &p), 0);
	ck_assert_uint_eq(p.pid, fixture_process.pid);
	ck_assert_uint_eq(p.ppid, fixture_process.ppid);
	ck_assert_uint_eq(p.start_realtime_ns, fixture_process.start_realtime_ns);
	ck_assert_uint_eq(p.start_mono_ns, fixture_process.start_mono_ns);
	ck_assert_uint_eq(p.timer, fixture_process.timer);
	ck_assert_uint_eq(p.clock, fixture_process.clock);
	ck_assert_uint_eq(p.period_ns, fixture_process.period_ns);
	ck_assert_uint_eq(p.requested_hz, fixture_process.requested_hz);
	ck_assert_uint_eq(p.max_depth, fixture_process.max_depth);
	assert_str_eq(p.exe, fixture_process.exe);
	assert_str_eq(p.cmdline, fixture_process.cmdline);
	ck_assert_uint_eq(p.flags, fixture_process.flags);
	ck_assert_uint_eq(p.space_interval, fixture_process.space_interval);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
}
END_TEST

/* A PROCESS of format 1.0 (no flags) or 1.1 (no space interval) reads
 * with the missing fields as 0. */
START_TEST(spool_process_older_formats)
{
	uint8_t mem[512];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_process p;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_process(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_PROCESS);
	rec.len -= 8;
	memset(&p, 0xa5, sizeof(p));
	ck_assert_int_eq(spool_get_process(&rec, &p), 0);
	ck_assert_uint_eq(p.flags, fixture_process.flags);
	ck_assert_uint_eq(p.space_interval, 0);
	rec.len -= 4;
	memset(&p, 0xa5, sizeof(p));
	ck_assert_int_eq(spool_get_process(&rec, &p), 0);
	ck_assert_uint_eq(p.flags, 0);
	ck_assert_uint_eq(p.space_interval, 0);
	assert_str_eq(p.cmdline, fixture_process.cmdline);
}
END_TEST

START_TEST(spool_roundtrip_alloc)
{
	uint32_t depth = (uint32_t)_i;
	uint8_t mem[512];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_alloc in = fixture_alloc, a;

	in.depth = depth;
	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_alloc(&b, &in, fixture_pcs), 0);
	ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN + spool_alloc_size(depth));
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_ALLOC);
	ck_assert_int_eq(spool_get_alloc(&rec, &a), 0);
	ck_assert_uint_eq(a.time_ns, in.time_ns);
	ck_assert_uint_eq(a.tid, in.tid);
	ck_assert_uint_eq(a.flags, in.flags);
	ck_assert_uint_eq(a.size, in.size);
	ck_assert_uint_eq(a.address, in.address);
	ck_assert_uint_eq(a.weight, in.weight);
	ck_assert_uint_eq(a.fn, in.fn);
	ck_assert_uint_eq(a.depth, depth);
	for (uint32_t i = 0; i < depth; i++)
		ck_assert_uint_eq(spool_alloc_pc(&a, i), fixture_pcs[i]);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
}
END_TEST

START_TEST(spool_roundtrip_free)
{
	uint8_t mem[128];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_free f;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_free(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_FREE);
	ck_assert_int_eq(spool_get_free(&rec, &f), 0);
	ck_assert_uint_eq(f.time_ns, fixture_free.time_ns);
	ck_assert_uint_eq(f.tid, fixture_free.tid);
	ck_assert_uint_eq(f.address, fixture_free.address);
}
END_TEST

/* Counts of ids beyond those a record holds (a writer that knows fewer
 * functions) read as 0. */
START_TEST(spool_roundtrip_call_counts)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_call_counts cc;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_call_counts(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_CALL_COUNTS);
	ck_assert_int_eq(spool_get_call_counts(&rec, &cc), 0);
	ck_assert_uint_eq(cc.tid, 4246);
	ck_assert_uint_eq(cc.n, ARRAY_LEN(fixture_counts));
	for (uint32_t i = 0; i < ARRAY_LEN(fixture_counts); i++)
		ck_assert_uint_eq(spool_call_count(&cc, i), fixture_counts[i]);
	ck_assert_uint_eq(spool_call_count(&cc, ARRAY_LEN(fixture_counts)), 0);
	ck_assert_uint_eq(spool_call_count(&cc, UINT32_MAX), 0);
}
END_TEST

/* Every arc of a CALL_ARCS record reads back, with the thread, the
 * time and the missed calls. */
START_TEST(spool_roundtrip_call_arcs)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_call_arcs ca;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_call_arcs(&b), 0);
	ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN +
			  SPOOL_CALL_ARCS_SIZE(ARRAY_LEN(fixture_arcs)));
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_CALL_ARCS);
	ck_assert_int_eq(spool_get_call_arcs(&rec, &ca), 0);
	ck_assert_uint_eq(ca.time_ns, fixture_call_arcs.time_ns);
	ck_assert_uint_eq(ca.tid, fixture_call_arcs.tid);
	ck_assert_uint_eq(ca.missed, fixture_call_arcs.missed);
	ck_assert_uint_eq(ca.n, ARRAY_LEN(fixture_arcs));
	for (uint32_t i = 0; i < ca.n; i++) {
		struct spool_call_arc a = spool_call_arc_at(&ca, i);
		ck_assert_uint_eq(a.fn, fixture_arcs[i].fn);
		ck_assert_uint_eq(a.site, fixture_arcs[i].site);
		ck_assert_uint_eq(a.count, fixture_arcs[i].count);
	}
}
END_TEST

/* A PERF_MAP record gives back its pid, part, flags and text byte for
 * byte, and one as long as a chunk allows fits. */
START_TEST(spool_roundtrip_perf_map)
{
	static uint8_t mem[SPOOL_FILE_HEADER_LEN + 65536];
	static char big[65536 - SPOOL_REC_HEADER_LEN - SPOOL_PERF_MAP_FIXED];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_perf_map m;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_perf_map(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_PERF_MAP);
	ck_assert_int_eq(spool_get_perf_map(&rec, &m), 0);
	ck_assert_uint_eq(m.pid, 4242);
	ck_assert_uint_eq(m.part, 3);
	ck_assert_uint_eq(m.flags, SPOOL_PERF_MAP_LAST);
	ck_assert_uint_eq(m.text.len, sizeof(fixture_perf_map_text) - 1);
	ck_assert_mem_eq(m.text.ptr, fixture_perf_map_text, m.text.len);

	memset(big, 'x', sizeof(big));
	struct spool_perf_map whole = {
		.pid = 1, .part = 0, .flags = SPOOL_PERF_MAP_CUT,
		.text = { big, sizeof(big) },
	};
	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_perf_map(&b, &whole), 0);
	ck_assert_uint_eq(b.len, sizeof(mem));
	ck_assert_int_eq(spool_put_perf_map(&b, &whole), -ENOSPC);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_PERF_MAP);
	ck_assert_int_eq(spool_get_perf_map(&rec, &m), 0);
	ck_assert_uint_eq(m.flags, SPOOL_PERF_MAP_CUT);
	ck_assert_uint_eq(m.text.len, sizeof(big));
	ck_assert_mem_eq(m.text.ptr, big, sizeof(big));
}
END_TEST

START_TEST(spool_roundtrip_module_load)
{
	uint8_t mem[512];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_module_load m;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_module_load(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_MODULE_LOAD);
	ck_assert_int_eq(spool_get_module_load(&rec, &m), 0);
	ck_assert_uint_eq(m.time_ns, fixture_module_load.time_ns);
	ck_assert_uint_eq(m.base, fixture_module_load.base);
	assert_str_eq(m.path, fixture_module_load.path);
	ck_assert_uint_eq(m.build_id_len, sizeof(fixture_build_id));
	ck_assert_mem_eq(m.build_id, fixture_build_id, sizeof(fixture_build_id));
	ck_assert_uint_eq(m.nsegments, ARRAY_LEN(fixture_segments));
	for (uint32_t i = 0; i < m.nsegments; i++) {
		struct spool_segment s = spool_module_segment(&m, i);
		ck_assert_uint_eq(s.vaddr, fixture_segments[i].vaddr);
		ck_assert_uint_eq(s.memsz, fixture_segments[i].memsz);
		ck_assert_uint_eq(s.offset, fixture_segments[i].offset);
		ck_assert_uint_eq(s.flags, fixture_segments[i].flags);
	}
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
}
END_TEST

/* A module without build-id, path or segments (e.g. the vdso on some
 * kernels) is still a valid record. */
START_TEST(spool_roundtrip_module_load_empty)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_module_load in = { .time_ns = 7, .base = 0x1000 };
	struct spool_module_load m;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_module_load(&b, &in, NULL), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_MODULE_LOAD);
	ck_assert_int_eq(spool_get_module_load(&rec, &m), 0);
	ck_assert_uint_eq(m.time_ns, 7);
	ck_assert_uint_eq(m.base, 0x1000);
	ck_assert_uint_eq(m.path.len, 0);
	ck_assert_uint_eq(m.build_id_len, 0);
	ck_assert_uint_eq(m.nsegments, 0);
}
END_TEST

/* SPOOL_MAX_SEGMENTS bounds the segment table; a record with more is
 * corrupt even when the bytes are all there. */
START_TEST(spool_module_load_max_segments)
{
	struct spool_segment segs[SPOOL_MAX_SEGMENTS + 1];
	uint8_t mem[2048];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_module_load in = fixture_module_load;
	struct spool_module_load m;

	for (uint32_t i = 0; i < ARRAY_LEN(segs); i++)
		segs[i] = (struct spool_segment){ 0x1000 * i, 0x100, 0, 5 };
	in.nsegments = SPOOL_MAX_SEGMENTS;
	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_module_load(&b, &in, segs), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_MODULE_LOAD);
	ck_assert_int_eq(spool_get_module_load(&rec, &m), 0);
	ck_assert_uint_eq(m.nsegments, SPOOL_MAX_SEGMENTS);
	ck_assert_uint_eq(spool_module_segment(&m, SPOOL_MAX_SEGMENTS - 1).vaddr,
			  0x1000 * (SPOOL_MAX_SEGMENTS - 1));

	/* One more segment, written by hand: whether the encoder refuses
	 * it is the writer's business, the reader must not trust it. */
	memset(mem + b.len, 0, SEGMENT_LEN);
	b.len += SEGMENT_LEN;
	poke_u32(mem + SPOOL_FILE_HEADER_LEN + 4, rec.len + SEGMENT_LEN);
	poke_u32(mem + SPOOL_FILE_HEADER_LEN + SPOOL_REC_HEADER_LEN + 16 + 4 +
			 in.path.len + 4 + in.build_id_len,
		 SPOOL_MAX_SEGMENTS + 1);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_MODULE_LOAD);
	ck_assert_int_eq(spool_get_module_load(&rec, &m), -EBADMSG);
	rec.len -= SEGMENT_LEN;
	ck_assert_int_eq(spool_get_module_load(&rec, &m), -EBADMSG);
}
END_TEST

START_TEST(spool_roundtrip_module_unload)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_module_unload m;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_module_unload(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_MODULE_UNLOAD);
	ck_assert_int_eq(spool_get_module_unload(&rec, &m), 0);
	ck_assert_uint_eq(m.time_ns, fixture_module_unload.time_ns);
	ck_assert_uint_eq(m.base, fixture_module_unload.base);
	assert_str_eq(m.path, fixture_module_unload.path);
}
END_TEST

START_TEST(spool_roundtrip_module_image)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_module_image m;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_module_image(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_MODULE_IMAGE);
	ck_assert_int_eq(spool_get_module_image(&rec, &m), 0);
	ck_assert_uint_eq(m.time_ns, fixture_module_image.time_ns);
	ck_assert_uint_eq(m.base, fixture_module_image.base);
	ck_assert_uint_eq(m.len, sizeof(fixture_image));
	ck_assert_mem_eq(m.data, fixture_image, sizeof(fixture_image));
	/* The image points into the record, not into a copy. */
	ck_assert_ptr_eq(m.data, rec.payload + 8 + 8 + 4);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
}
END_TEST

/* An empty image is a valid record (the writer could not read it); the
 * reader gets a length of 0. */
START_TEST(spool_roundtrip_module_image_empty)
{
	uint8_t mem[64];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_module_image in = { .time_ns = 1, .base = 0x1000 };
	struct spool_module_image m;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_module_image(&b, &in), 0);
	ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN + 8 + 8 + 8 + 4);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_MODULE_IMAGE);
	ck_assert_int_eq(spool_get_module_image(&rec, &m), 0);
	ck_assert_uint_eq(m.base, 0x1000);
	ck_assert_uint_eq(m.len, 0);
}
END_TEST

static const uint32_t thread_events[] = {
	SPOOL_THREAD_START, SPOOL_THREAD_EXIT, SPOOL_THREAD_NAME,
};

START_TEST(spool_roundtrip_thread)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_thread in = fixture_thread;
	struct spool_thread t;

	in.event = thread_events[_i];
	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_thread(&b, &in), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_THREAD);
	ck_assert_int_eq(spool_get_thread(&rec, &t), 0);
	ck_assert_uint_eq(t.time_ns, in.time_ns);
	ck_assert_uint_eq(t.tid, in.tid);
	ck_assert_uint_eq(t.event, in.event);
	assert_str_eq(t.name, in.name);
	ck_assert_int_eq(t.has_cpu, 0);
	ck_assert_uint_eq(t.user_ns, SPOOL_CPU_UNKNOWN);
}
END_TEST

/* EXIT and CPU records carry the thread's CPU time; a record without it
 * (format 2.0) reads as not knowing it (above). */
START_TEST(spool_roundtrip_thread_cpu)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_thread in = fixture_thread;
	struct spool_thread t;

	in.event = _i ? SPOOL_THREAD_CPU : SPOOL_THREAD_EXIT;
	in.has_cpu = 1;
	in.cpu_ns = 2500000000ull;
	in.user_ns = _i ? SPOOL_CPU_UNKNOWN : 2000000000ull;
	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_thread(&b, &in), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_THREAD);
	ck_assert_int_eq(spool_get_thread(&rec, &t), 0);
	ck_assert_uint_eq(t.event, in.event);
	assert_str_eq(t.name, in.name);
	ck_assert_int_eq(t.has_cpu, 1);
	ck_assert_uint_eq(t.cpu_ns, in.cpu_ns);
	ck_assert_uint_eq(t.user_ns, in.user_ns);
}
END_TEST

static const uint32_t sample_depths[] = { 0, 1, 2, 64, SPOOL_MAX_DEPTH };

START_TEST(spool_roundtrip_sample)
{
	uint8_t mem[4096];
	uint64_t pcs[SPOOL_MAX_DEPTH];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_sample in = fixture_sample;
	struct spool_sample s;

	in.depth = sample_depths[_i];
	for (uint32_t i = 0; i < in.depth; i++)
		pcs[i] = 0x8000000000000000ull | ((uint64_t)i << 32) | (i + 1);
	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_sample(&b, &in, pcs), 0);
	/* spool_sample_size is what the writer uses to reserve space. */
	ck_assert_uint_eq(b.len - SPOOL_FILE_HEADER_LEN,
			  spool_sample_size(in.depth));
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_SAMPLE);
	ck_assert_int_eq(spool_get_sample(&rec, &s), 0);
	ck_assert_uint_eq(s.time_ns, in.time_ns);
	ck_assert_uint_eq(s.tid, in.tid);
	ck_assert_uint_eq(s.kind, in.kind);
	ck_assert_uint_eq(s.flags, in.flags);
	ck_assert_uint_eq(s.weight, in.weight);
	ck_assert_uint_eq(s.depth, in.depth);
	for (uint32_t i = 0; i < s.depth; i++)
		ck_assert_uint_eq(spool_sample_pc(&s, i), pcs[i]);
}
END_TEST

START_TEST(spool_roundtrip_footer)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_footer f;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_footer(&b), 0);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_FOOTER);
	memset(&f, 0xa5, sizeof(f));
	ck_assert_int_eq(spool_get_footer(&rec, &f), 0);
	ck_assert_uint_eq(f.end_mono_ns, fixture_footer.end_mono_ns);
	ck_assert_uint_eq(f.utime_ns, fixture_footer.utime_ns);
	ck_assert_uint_eq(f.stime_ns, fixture_footer.stime_ns);
	ck_assert_uint_eq(f.samples, fixture_footer.samples);
	ck_assert_uint_eq(f.threads, fixture_footer.threads);
	ck_assert_uint_eq(f.drops[0], 0);
	for (uint32_t i = 1; i < SPOOL_DROP_MAX_; i++)
		ck_assert_uint_eq(f.drops[i], fixture_footer.drops[i]);
	ck_assert_uint_eq(f.rss_peak, fixture_footer.rss_peak);
	ck_assert_uint_eq(f.rss_anon, fixture_footer.rss_anon);
	ck_assert_uint_eq(f.rss_file, fixture_footer.rss_file);
	ck_assert_uint_eq(f.clone_processes, fixture_footer.clone_processes);
	ck_assert_uint_eq(f.clone_threads, fixture_footer.clone_threads);
	ck_assert_uint_eq(f.size_limit, fixture_footer.size_limit);
	ck_assert_uint_eq(f.size_limit_ns, fixture_footer.size_limit_ns);
}
END_TEST

/* ---- exact bytes: the layout man/profspool.5 documents ---- */

START_TEST(spool_bytes_file_header)
{
	static const uint8_t want[SPOOL_FILE_HEADER_LEN] = {
		'P', 'R', 'F', 'S', 'P', 'O', 'O', 'L',
		SPOOL_VERSION, 0,  /* u16 version */
		SPOOL_MINOR, 0,    /* u16 minor */
		0, 0, 0, 0,        /* u32 flags */
	};
	uint8_t mem[SPOOL_FILE_HEADER_LEN];
	struct spool_buf b;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_mem_eq(mem, want, sizeof(want));
}
END_TEST

/* A THREAD record spelled out byte by byte, in both directions: little
 * endian whatever the host, strings as u32 length + bytes, no padding. */
static const uint8_t thread_bytes[] = {
	0x04, 0x00, 0x00, 0x00,                         /* type THREAD */
	0x17, 0x00, 0x00, 0x00,                         /* length 23 */
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* time_ns */
	0x44, 0x33, 0x22, 0x11,                         /* tid */
	0x01, 0x00, 0x00, 0x00,                         /* event START */
	0x03, 0x00, 0x00, 0x00, 'a', 'b', 'c',          /* name "abc" */
};

START_TEST(spool_bytes_thread)
{
	uint8_t mem[64];
	struct spool_buf b;
	struct spool_thread in = {
		.time_ns = 0x0102030405060708ull,
		.tid = 0x11223344,
		.event = SPOOL_THREAD_START,
		.name = STR("abc"),
	};
	struct spool_rec rec;
	struct spool_cursor c;
	struct spool_thread t;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_thread(&b, &in), 0);
	ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN + sizeof(thread_bytes));
	ck_assert_mem_eq(mem + SPOOL_FILE_HEADER_LEN, thread_bytes,
			 sizeof(thread_bytes));

	/* And decode the literal bytes, not what the encoder produced. */
	memcpy(mem + SPOOL_FILE_HEADER_LEN, thread_bytes, sizeof(thread_bytes));
	ck_assert_int_eq(spool_cursor_init(&c, mem, b.len), 0);
	next_record(&c, &rec, SPOOL_REC_THREAD);
	ck_assert_int_eq(spool_get_thread(&rec, &t), 0);
	ck_assert_uint_eq(t.time_ns, in.time_ns);
	ck_assert_uint_eq(t.tid, in.tid);
	ck_assert_uint_eq(t.event, in.event);
	assert_str_eq(t.name, in.name);
	ck_assert_int_eq(t.has_cpu, 0);
	ck_assert_uint_eq(t.user_ns, SPOOL_CPU_UNKNOWN);
}
END_TEST

/* An ALLOC with one frame and a FREE, spelled out. */
static const uint8_t alloc_free_bytes[] = {
	0x08, 0x00, 0x00, 0x00,                         /* type ALLOC */
	0x38, 0x00, 0x00, 0x00,                         /* length 56 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time_ns 2 */
	0x03, 0x00, 0x00, 0x00,                         /* tid 3 */
	0x01, 0x01, 0x00, 0x00,                         /* flags */
	0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* size 48 */
	0x10, 0x20, 0x30, 0x40, 0x50, 0x00, 0x00, 0x00, /* address */
	0x18, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, /* weight */
	0x01, 0x00, 0x00, 0x00,                         /* fn calloc */
	0x01, 0x00, 0x00, 0x00,                         /* depth 1 */
	0xef, 0xbe, 0xad, 0xde, 0x00, 0x00, 0x00, 0x00, /* pcs[0] */
	0x09, 0x00, 0x00, 0x00,                         /* type FREE */
	0x14, 0x00, 0x00, 0x00,                         /* length 20 */
	0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time_ns 5 */
	0x04, 0x00, 0x00, 0x00,                         /* tid 4 */
	0x10, 0x20, 0x30, 0x40, 0x50, 0x00, 0x00, 0x00, /* address */
};

START_TEST(spool_bytes_alloc_free)
{
	static const uint64_t pc = 0xdeadbeef;
	uint8_t mem[128];
	struct spool_buf b;
	struct spool_alloc a = {
		.time_ns = 2, .tid = 3,
		.flags = SPOOL_SAMPLE_TRUNCATED | SPOOL_ALLOC_UNTRACKED,
		.size = 48, .address = 0x5040302010ull, .weight = 0x80018,
		.fn = SPOOL_ALLOC_FN_CALLOC, .depth = 1,
	};
	struct spool_free f = { .time_ns = 5, .tid = 4,
				.address = 0x5040302010ull };

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_alloc(&b, &a, &pc), 0);
	ck_assert_int_eq(spool_put_free(&b, &f), 0);
	ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN + sizeof(alloc_free_bytes));
	ck_assert_mem_eq(mem + SPOOL_FILE_HEADER_LEN, alloc_free_bytes,
			 sizeof(alloc_free_bytes));
}
END_TEST

/* A MODULE_IMAGE record spelled out: type 7, time, base, bytes. */
static const uint8_t image_bytes[] = {
	0x07, 0x00, 0x00, 0x00,                         /* type MODULE_IMAGE */
	0x17, 0x00, 0x00, 0x00,                         /* length 23 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* time_ns 2 */
	0x00, 0x10, 0xfc, 0xff, 0xff, 0x7f, 0x00, 0x00, /* base */
	0x03, 0x00, 0x00, 0x00, 0x7f, 'E', 'L',         /* 3 bytes */
};

START_TEST(spool_bytes_module_image)
{
	static const uint8_t data[3] = { 0x7f, 'E', 'L' };
	uint8_t mem[64];
	struct spool_buf b;
	struct spool_module_image in = {
		.time_ns = 2,
		.base = 0x7ffffffc1000ull,
		.data = data,
		.len = sizeof(data),
	};

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(spool_put_module_image(&b, &in), 0);
	ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN + sizeof(image_bytes));
	ck_assert_mem_eq(mem + SPOOL_FILE_HEADER_LEN, image_bytes,
			 sizeof(image_bytes));
}
END_TEST

/* ---- truncation: a spool cut at any byte ---- */

/* The spool a killed target leaves: no FOOTER when cut early enough. */
static size_t
build_small_spool(uint8_t *mem, size_t cap, size_t *ends, size_t *nends,
		  uint32_t *types)
{
	struct spool_buf b;
	size_t n = 0;

	start_spool(&b, mem, cap);
	ck_assert_int_eq(put_process(&b), 0);
	types[n] = SPOOL_REC_PROCESS;
	ends[n++] = b.len;
	ck_assert_int_eq(put_module_load(&b), 0);
	types[n] = SPOOL_REC_MODULE_LOAD;
	ends[n++] = b.len;
	ck_assert_int_eq(put_module_image(&b), 0);
	types[n] = SPOOL_REC_MODULE_IMAGE;
	ends[n++] = b.len;
	ck_assert_int_eq(put_thread(&b), 0);
	types[n] = SPOOL_REC_THREAD;
	ends[n++] = b.len;
	for (uint32_t depth = 1; depth <= 3; depth++) {
		struct spool_sample s = fixture_sample;
		s.depth = depth;
		ck_assert_int_eq(spool_put_sample(&b, &s, fixture_pcs), 0);
		types[n] = SPOOL_REC_SAMPLE;
		ends[n++] = b.len;
	}
	ck_assert_int_eq(put_footer(&b), 0);
	types[n] = SPOOL_REC_FOOTER;
	ends[n++] = b.len;
	*nends = n;
	return b.len;
}

static int
decode_typed(const struct spool_rec *rec)
{
	for (size_t i = 0; i < ARRAY_LEN(rec_cases); i++)
		if (rec_cases[i].type == rec->type)
			return rec_cases[i].get(rec);
	return -ENOENT;
}

START_TEST(spool_truncated_every_offset)
{
	uint8_t mem[2048];
	size_t ends[16];
	uint32_t types[16];
	size_t nends;
	size_t total = build_small_spool(mem, sizeof(mem), ends, &nends, types);

	for (size_t cut = 0; cut <= total; cut++) {
		struct spool_cursor c;
		struct spool_rec rec;
		size_t want = 0, read = 0, boundary = SPOOL_FILE_HEADER_LEN;
		int st;

		if (cut < SPOOL_FILE_HEADER_LEN) {
			ck_assert_msg(spool_cursor_init(&c, mem, cut) == -EBADMSG,
				      "cut at %zu: header accepted", cut);
			continue;
		}
		ck_assert_int_eq(spool_cursor_init(&c, mem, cut), 0);
		while (want < nends && ends[want] <= cut)
			boundary = ends[want++];
		while ((st = spool_next(&c, &rec)) == SPOOL_OK) {
			ck_assert_msg(read < want, "cut at %zu: record %zu "
				      "read past the cut", cut, read);
			ck_assert_uint_eq(rec.type, types[read]);
			ck_assert_msg(rec.offset + SPOOL_REC_HEADER_LEN +
					      rec.len <= cut,
				      "cut at %zu: partial record", cut);
			ck_assert_int_eq(decode_typed(&rec), 0);
			read++;
		}
		ck_assert_msg(read == want, "cut at %zu: read %zu records, "
			      "want %zu", cut, read, want);
		ck_assert_msg(st == (cut == boundary ? SPOOL_END :
				     SPOOL_TRUNCATED),
			      "cut at %zu: status %d", cut, st);
		/* pos names where the partial record starts, for the
		 * "truncated record at offset N" message. */
		ck_assert_uint_eq(c.pos, boundary);
		/* The end is sticky: asking again does not move. */
		ck_assert_int_eq(spool_next(&c, &rec), st);
		ck_assert_uint_eq(c.pos, boundary);
	}
}
END_TEST

/* ---- records this reader does not know ---- */

static void
append_raw(struct spool_buf *b, uint32_t type, uint32_t len,
	   const void *payload, size_t payload_len)
{
	uint8_t *p = b->data + b->len;

	ck_assert_uint_ge(b->cap - b->len, SPOOL_REC_HEADER_LEN + payload_len);
	for (int i = 0; i < 4; i++) {
		p[i] = (uint8_t)(type >> (8 * i));
		p[4 + i] = (uint8_t)(len >> (8 * i));
	}
	if (payload_len)
		memcpy(p + SPOOL_REC_HEADER_LEN, payload, payload_len);
	b->len += SPOOL_REC_HEADER_LEN + payload_len;
}

START_TEST(spool_unknown_record_skipped)
{
	static const uint8_t junk[5] = { 1, 2, 3, 4, 5 };
	uint8_t mem[1024];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	struct spool_sample s;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_thread(&b), 0);
	append_raw(&b, 99, sizeof(junk), junk, sizeof(junk));
	append_raw(&b, 0, 0, NULL, 0);
	append_raw(&b, UINT32_MAX, 0, NULL, 0);
	ck_assert_int_eq(put_sample(&b), 0);

	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_THREAD);
	next_record(&c, &rec, 99);
	ck_assert_uint_eq(rec.len, sizeof(junk));
	ck_assert_mem_eq(rec.payload, junk, sizeof(junk));
	next_record(&c, &rec, 0);
	ck_assert_uint_eq(rec.len, 0);
	next_record(&c, &rec, UINT32_MAX);
	next_record(&c, &rec, SPOOL_REC_SAMPLE);
	ck_assert_int_eq(spool_get_sample(&rec, &s), 0);
	ck_assert_uint_eq(s.depth, fixture_sample.depth);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
}
END_TEST

/* A chunked spool (format 2) as the preload library lays it out: chunk
 * 0 holds the header and a THREAD record; chunk 1 a SAMPLE, then unused
 * zeros; chunk 2 a THREAD record, then a record cut by a kill (its body
 * stored, its type not yet), then zeros; chunk 3 is unused and the file
 * ends inside chunk 4, after a SAMPLE. */
#define TEST_CHUNK 4096u

static size_t
put_at(uint8_t *mem, size_t at, int (*put)(struct spool_buf *))
{
	struct spool_buf b;
	spool_buf_init(&b, mem + at, TEST_CHUNK);
	ck_assert_int_eq(put(&b), 0);
	return at + b.len;
}

static size_t
build_chunked(uint8_t *mem)
{
	struct spool_buf b;
	memset(mem, 0, 5 * TEST_CHUNK);
	spool_buf_init(&b, mem, TEST_CHUNK);
	spool_put_file_header(&b, TEST_CHUNK);
	put_at(mem, b.len, put_thread);
	put_at(mem, TEST_CHUNK, put_sample);
	size_t end = put_at(mem, 2 * TEST_CHUNK, put_thread);
	put_at(mem, end, put_sample);
	memset(mem + end, 0, 4); /* the type of the last record, not stored */
	return put_at(mem, 4 * TEST_CHUNK, put_sample);
}

START_TEST(spool_chunked_skips_unused)
{
	static uint8_t mem[5 * TEST_CHUNK];
	static const uint32_t want[] = { SPOOL_REC_THREAD, SPOOL_REC_SAMPLE,
					 SPOOL_REC_THREAD, SPOOL_REC_SAMPLE };
	size_t size = build_chunked(mem);
	struct spool_cursor c;
	struct spool_rec rec;

	ck_assert_int_eq(spool_cursor_init(&c, mem, size), 0);
	ck_assert_uint_eq(c.chunk, TEST_CHUNK);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		next_record(&c, &rec, want[i]);
	ck_assert_uint_eq(rec.offset, 4 * TEST_CHUNK);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
	/* A file that ends in the middle of unused space ends there. */
	ck_assert_int_eq(spool_cursor_init(&c, mem, 3 * TEST_CHUNK + 3), 0);
	for (size_t i = 0; i < 3; i++)
		next_record(&c, &rec, want[i]);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
}
END_TEST

START_TEST(spool_chunked_record_across_chunk_corrupt)
{
	static uint8_t mem[2 * TEST_CHUNK];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;

	memset(mem, 0, sizeof(mem));
	spool_buf_init(&b, mem, TEST_CHUNK);
	spool_put_file_header(&b, TEST_CHUNK);
	/* A THREAD record placed so that it ends past the chunk. */
	size_t at = TEST_CHUNK - 12;
	put_at(mem, at, put_thread);
	ck_assert_int_eq(spool_cursor_init(&c, mem, sizeof(mem)), 0);
	c.pos = at;
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_CORRUPT);
	/* Less room than a record header at a chunk's end is unused, and
	 * never read across into the next chunk. */
	memset(mem, 0, sizeof(mem));
	spool_buf_init(&b, mem, TEST_CHUNK);
	spool_put_file_header(&b, TEST_CHUNK);
	for (size_t room = 1; room < SPOOL_REC_HEADER_LEN; room++) {
		put_at(mem, TEST_CHUNK, put_thread);
		ck_assert_int_eq(spool_cursor_init(&c, mem, sizeof(mem)), 0);
		c.pos = TEST_CHUNK - room;
		next_record(&c, &rec, SPOOL_REC_THREAD);
		ck_assert_uint_eq(rec.offset, TEST_CHUNK);
	}
}
END_TEST

START_TEST(spool_chunk_size_checked)
{
	static const uint32_t bad[] = { 1, 4095, 4097, 6000 };
	uint8_t mem[64];
	struct spool_buf b;
	struct spool_cursor c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		spool_buf_init(&b, mem, sizeof(mem));
		spool_put_file_header(&b, bad[i]);
		ck_assert_msg(spool_cursor_init(&c, mem, b.len) == -EBADMSG,
			      "chunk size %u accepted", bad[i]);
	}
	/* Version 1 had a reserved field there, never a chunk size. */
	spool_buf_init(&b, mem, sizeof(mem));
	spool_put_file_header(&b, 8192);
	mem[SPOOL_MAGIC_LEN] = 1;
	ck_assert_int_eq(spool_cursor_init(&c, mem, b.len), 0);
	ck_assert_uint_eq(c.chunk, 0);
}
END_TEST

/* Fields appended by a later minor version are ignored: every decoder
 * accepts a payload longer than what it reads. */
START_TEST(spool_trailing_fields_ignored)
{
	const struct rec_case *rc = &rec_cases[_i];
	uint8_t mem[1024];
	struct spool_buf b;
	struct spool_rec rec[2];

	encode_one(rc, mem, sizeof(mem) - 8, &b, rec);
	/* The bytes after the record are part of mem: make them the
	 * record's "new fields". */
	memset(mem + b.len, 0x5a, 8);
	rec[0].len += 8;
	ck_assert_msg(rc->get(&rec[0]) == 0, "%s: trailing bytes rejected",
		      rc->name);
}
END_TEST

/* ---- corrupt input ---- */

static const struct {
	uint32_t len;
	int status;
} length_cases[] = {
	{ SPOOL_REC_MAX_LEN + 1, SPOOL_CORRUPT },
	{ 0x80000000u, SPOOL_CORRUPT },
	{ UINT32_MAX, SPOOL_CORRUPT },
	/* Possible but longer than the file: the file was cut. */
	{ SPOOL_REC_MAX_LEN, SPOOL_TRUNCATED },
	{ 1000, SPOOL_TRUNCATED },
};

START_TEST(spool_impossible_length)
{
	static const uint8_t zeros[64];
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;
	size_t at;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_thread(&b), 0);
	at = b.len;
	append_raw(&b, SPOOL_REC_SAMPLE, length_cases[_i].len, zeros,
		   sizeof(zeros));

	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_THREAD);
	ck_assert_int_eq(spool_next(&c, &rec), length_cases[_i].status);
	ck_assert_uint_eq(c.pos, at);
}
END_TEST

/* Headers that are not a spool of any version. */
static const struct {
	const char *what;
	size_t size;
	size_t flip; /* byte to corrupt, or SIZE_MAX */
	uint16_t version;
	int ret;
} header_cases[] = {
	{ "empty file", 0, SIZE_MAX, SPOOL_VERSION, -EBADMSG },
	{ "magic only", SPOOL_MAGIC_LEN, SIZE_MAX, SPOOL_VERSION, -EBADMSG },
	{ "one byte short", SPOOL_FILE_HEADER_LEN - 1, SIZE_MAX, SPOOL_VERSION,
	  -EBADMSG },
	{ "magic[0]", SPOOL_FILE_HEADER_LEN, 0, SPOOL_VERSION, -EBADMSG },
	{ "magic[3]", SPOOL_FILE_HEADER_LEN, 3, SPOOL_VERSION, -EBADMSG },
	{ "magic[7]", SPOOL_FILE_HEADER_LEN, 7, SPOOL_VERSION, -EBADMSG },
	{ "version 0", SPOOL_FILE_HEADER_LEN, SIZE_MAX, 0, -EBADMSG },
	{ "next version", SPOOL_FILE_HEADER_LEN, SIZE_MAX, SPOOL_VERSION + 1,
	  -ENOTSUP },
	{ "version 0xffff", SPOOL_FILE_HEADER_LEN, SIZE_MAX, 0xffff, -ENOTSUP },
	{ "current version", SPOOL_FILE_HEADER_LEN, SIZE_MAX, SPOOL_VERSION, 0 },
};

START_TEST(spool_bad_header)
{
	uint8_t mem[SPOOL_FILE_HEADER_LEN];
	struct spool_buf b;
	struct spool_cursor c;

	start_spool(&b, mem, sizeof(mem));
	mem[SPOOL_MAGIC_LEN] = (uint8_t)header_cases[_i].version;
	mem[SPOOL_MAGIC_LEN + 1] = (uint8_t)(header_cases[_i].version >> 8);
	if (header_cases[_i].flip != SIZE_MAX)
		mem[header_cases[_i].flip] ^= 0x20;
	ck_assert_msg(spool_cursor_init(&c, mem, header_cases[_i].size) ==
			      header_cases[_i].ret,
		      "%s: not %d", header_cases[_i].what,
		      header_cases[_i].ret);
}
END_TEST

/* The minor version is for compatible additions: a reader of the same
 * major version accepts any value; so were version 1's flags. */
START_TEST(spool_newer_minor_accepted)
{
	uint8_t mem[256];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_thread(&b), 0);
	mem[10] = 7;    /* minor */
	ck_assert_int_eq(spool_cursor_init(&c, mem, b.len), 0);
	next_record(&c, &rec, SPOOL_REC_THREAD);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
	mem[8] = 1;     /* version 1 */
	mem[12] = 0xef; /* its flags */
	mem[15] = 0xde;
	ck_assert_int_eq(spool_cursor_init(&c, mem, b.len), 0);
	next_record(&c, &rec, SPOOL_REC_THREAD);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
}
END_TEST

/* Every typed decoder rejects every payload shorter than its fields, and
 * accepts one without the fields later versions appended. */
START_TEST(spool_short_payload)
{
	const struct rec_case *rc = &rec_cases[_i];
	uint8_t mem[1024];
	struct spool_buf b;
	struct spool_rec rec[2];
	uint32_t full;

	encode_one(rc, mem, sizeof(mem), &b, rec);
	full = rec[0].len;
	ck_assert_int_eq(rc->get(&rec[0]), 0);
	rec[0].len = full - rc->optional;
	ck_assert_int_eq(rc->get(&rec[0]), 0);
	for (uint32_t len = 0; len < full - rc->optional; len++) {
		rec[0].len = len;
		ck_assert_msg(rc->get(&rec[0]) == -EBADMSG,
			      "%s: %u of %u payload bytes accepted", rc->name,
			      len, full);
	}
}
END_TEST

/* Offsets (in the payload) of the count fields whose value sizes what
 * follows; a lying count must not make a decoder read past the payload. */
static const struct {
	const char *what;
	size_t rec;      /* index in rec_cases */
	uint32_t offset; /* of the u32 count in the payload */
	uint32_t value;
} count_cases[] = {
	{ "exe length", 0, 48, UINT32_MAX },
	{ "exe length +1", 0, 48, sizeof("/usr/bin/target") },
	{ "path length", 1, 16, UINT32_MAX - 3 },
	{ "build-id length", 1, 16 + 4 + 31, 0x7fffffff },
	{ "segment count", 1, 16 + 4 + 31 + 4 + 20, 3 + 1 },
	{ "segment count > max", 1, 16 + 4 + 31 + 4 + 20,
	  SPOOL_MAX_SEGMENTS + 1 },
	{ "segment count huge", 1, 16 + 4 + 31 + 4 + 20, UINT32_MAX },
	{ "unload path length", 2, 16, UINT32_MAX },
	{ "thread name length", 3, 16, 9 },
	{ "sample depth +1", 4, 24, 4 + 1 },
	{ "sample depth huge", 4, 24, UINT32_MAX },
	{ "sample depth 2^29", 4, 24, 0x20000000 },
	/* (+5: the 56 bytes after the drops hold four more entries.) */
	{ "footer drop count", 5, 36, SPOOL_DROP_MAX_ - 1 + 5 },
	{ "footer drop count huge", 5, 36, UINT32_MAX },
	{ "image length +1", 6, 16, sizeof(fixture_image) + 1 },
	{ "image length huge", 6, 16, UINT32_MAX },
	{ "alloc depth +1", 7, 44, 4 + 1 },
	{ "alloc depth huge", 7, 44, UINT32_MAX },
	{ "alloc depth 2^29", 7, 44, 0x20000000 },
	{ "call counts +1", 9, 4, ARRAY_LEN(fixture_counts) + 1 },
	{ "call counts huge", 9, 4, UINT32_MAX },
	{ "call counts 2^29", 9, 4, 0x20000000 },
	{ "call arcs +1", 10, 12, ARRAY_LEN(fixture_arcs) + 1 },
	{ "call arcs huge", 10, 12, UINT32_MAX },
	{ "call arcs 2^28", 10, 12, 0x10000000 },
};

START_TEST(spool_lying_count)
{
	const struct rec_case *rc = &rec_cases[count_cases[_i].rec];
	uint8_t mem[1024];
	uint8_t *payload;
	struct spool_buf b;
	struct spool_rec rec[2];

	encode_one(rc, mem, sizeof(mem), &b, rec);
	ck_assert_uint_lt(count_cases[_i].offset + 4, rec[0].len);
	/* rec.payload points into mem: patch it there. */
	payload = mem + rec[0].offset + SPOOL_REC_HEADER_LEN;
	poke_u32(payload + count_cases[_i].offset, count_cases[_i].value);
	ck_assert_msg(rc->get(&rec[0]) == -EBADMSG, "%s: accepted",
		      count_cases[_i].what);
}
END_TEST

/* A footer from a newer writer may count drop causes this reader does not
 * know: they are skipped, the known ones kept. */
START_TEST(spool_footer_unknown_drop_cause)
{
	uint8_t payload[8 * 4 + 4 + 4 + 3 * 12] = { 0 };
	struct spool_rec rec = { SPOOL_REC_FOOTER, sizeof(payload), payload, 0 };
	struct spool_footer f;
	uint8_t *p = payload + 8 * 4;

	poke_u32(p, 5);           /* threads */
	poke_u32(p + 4, 3);       /* ndrops */
	poke_u32(p + 8, 99);      /* unknown cause ... */
	p[12] = 0x77;             /* ... with count 0x77 */
	poke_u32(p + 20, SPOOL_DROP_REENTRANT);
	p[24] = 9;
	poke_u32(p + 32, 0);      /* cause 0 is not a cause */
	p[36] = 0x66;
	ck_assert_int_eq(spool_get_footer(&rec, &f), 0);
	ck_assert_uint_eq(f.threads, 5);
	for (uint32_t i = 0; i < SPOOL_DROP_MAX_; i++)
		ck_assert_uint_eq(f.drops[i], i == SPOOL_DROP_REENTRANT ? 9 : 0);
}
END_TEST

/* ---- encoder overflow ---- */

/* In every space smaller than the record, the encoder refuses it whole:
 * -ENOSPC, length unchanged and not a byte of the buffer touched. */
START_TEST(spool_put_overflow)
{
	const struct rec_case *rc = &rec_cases[_i];
	uint8_t mem[1024];
	uint8_t prefix[SPOOL_FILE_HEADER_LEN];
	struct spool_buf b;
	size_t need;

	start_spool(&b, mem, sizeof(mem));
	memcpy(prefix, mem, sizeof(prefix));
	ck_assert_int_eq(rc->put(&b), 0);
	need = b.len;

	for (size_t cap = SPOOL_FILE_HEADER_LEN; cap < need; cap++) {
		memset(mem, 0xaa, sizeof(mem));
		memcpy(mem, prefix, sizeof(prefix));
		spool_buf_init(&b, mem, cap);
		b.len = SPOOL_FILE_HEADER_LEN;
		ck_assert_int_eq(rc->put(&b), -ENOSPC);
		ck_assert_int_eq(b.err, -ENOSPC);
		ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN);
		ck_assert_mem_eq(mem, prefix, sizeof(prefix));
		for (size_t i = SPOOL_FILE_HEADER_LEN; i < sizeof(mem); i++)
			ck_assert_msg(mem[i] == 0xaa, "%s: cap %zu: byte %zu "
				      "written", rc->name, cap, i);
	}

	/* Exactly enough space is enough. */
	spool_buf_init(&b, mem, need);
	b.len = SPOOL_FILE_HEADER_LEN;
	ck_assert_int_eq(rc->put(&b), 0);
	ck_assert_int_eq(b.err, 0);
	ck_assert_uint_eq(b.len, need);
}
END_TEST

START_TEST(spool_put_overflow_file_header)
{
	uint8_t mem[SPOOL_FILE_HEADER_LEN];
	struct spool_buf b;

	memset(mem, 0xaa, sizeof(mem));
	spool_buf_init(&b, mem, sizeof(mem) - 1);
	spool_put_file_header(&b, 0);
	ck_assert_int_eq(b.err, -ENOSPC);
	ck_assert_uint_eq(b.len, 0);
	for (size_t i = 0; i < sizeof(mem); i++)
		ck_assert_uint_eq(mem[i], 0xaa);
}
END_TEST

/* The error stays set, so a writer that batches many records checks once;
 * a later record that fits is still whole. */
START_TEST(spool_put_error_sticky)
{
	uint8_t mem[SPOOL_FILE_HEADER_LEN + 64];
	struct spool_buf b;
	struct spool_cursor c;
	struct spool_rec rec;

	start_spool(&b, mem, sizeof(mem));
	ck_assert_int_eq(put_process(&b), -ENOSPC);
	ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN);
	ck_assert_int_eq(put_thread(&b), 0);
	ck_assert_int_eq(b.err, -ENOSPC);
	open_spool(&c, &b);
	next_record(&c, &rec, SPOOL_REC_THREAD);
	ck_assert_int_eq(spool_next(&c, &rec), SPOOL_END);
}
END_TEST

/* A record longer than SPOOL_REC_MAX_LEN would read back as corrupt, so the
 * encoder refuses it even when the buffer could hold it. The buffer claims
 * more room than it has: the encoder must fail before writing anything. */
START_TEST(spool_put_too_long)
{
	uint8_t mem[SPOOL_FILE_HEADER_LEN + 64];
	const uint32_t huge = SPOOL_REC_MAX_LEN + 1;
	struct spool_process p = fixture_process;
	struct spool_thread t = fixture_thread;
	struct spool_module_unload u = fixture_module_unload;
	struct spool_module_load m = fixture_module_load;
	struct spool_sample s = fixture_sample;
	struct spool_buf b;

	start_spool(&b, mem, sizeof(mem));
	memset(mem + b.len, 0xaa, sizeof(mem) - b.len);
	b.cap = SIZE_MAX / 2;
	p.exe.len = huge;
	ck_assert_int_eq(spool_put_process(&b, &p), -ENOSPC);
	t.name.len = huge;
	ck_assert_int_eq(spool_put_thread(&b, &t), -ENOSPC);
	u.path.len = huge;
	ck_assert_int_eq(spool_put_module_unload(&b, &u), -ENOSPC);
	m.path.len = huge;
	ck_assert_int_eq(spool_put_module_load(&b, &m, fixture_segments),
			 -ENOSPC);
	/* Lengths near 4 GiB must not wrap the record size around. */
	t.name.len = UINT32_MAX - 10;
	ck_assert_int_eq(spool_put_thread(&b, &t), -ENOSPC);
	p.exe.len = UINT32_MAX - 60;
	ck_assert_int_eq(spool_put_process(&b, &p), -ENOSPC);
	/* What the decoder would reject is refused. */
	m = fixture_module_load;
	m.build_id_len = SPOOL_MAX_BUILD_ID + 1;
	ck_assert_int_eq(spool_put_module_load(&b, &m, fixture_segments),
			 -EINVAL);
	m = fixture_module_load;
	m.nsegments = SPOOL_MAX_SEGMENTS + 1;
	ck_assert_int_eq(spool_put_module_load(&b, &m, fixture_segments),
			 -EINVAL);
	s.depth = SPOOL_REC_MAX_LEN / 8;
	ck_assert_int_eq(spool_put_sample(&b, &s, fixture_pcs), -ENOSPC);
	struct spool_module_image im = fixture_module_image;
	im.len = huge;
	ck_assert_int_eq(spool_put_module_image(&b, &im), -ENOSPC);
	im.len = UINT32_MAX - 8;
	ck_assert_int_eq(spool_put_module_image(&b, &im), -ENOSPC);
	ck_assert_uint_eq(b.len, SPOOL_FILE_HEADER_LEN);
	for (size_t i = SPOOL_FILE_HEADER_LEN; i < sizeof(mem); i++)
		ck_assert_uint_eq(mem[i], 0xaa);
}
END_TEST

/* ---- names ---- */

START_TEST(spool_names)
{
	ck_assert_str_eq(spool_timer_name(SPOOL_TIMER_PERF), "perf");
	ck_assert_str_eq(spool_timer_name(SPOOL_TIMER_POSIX), "posix");
	ck_assert_str_eq(spool_timer_name(SPOOL_TIMER_ITIMER), "itimer");
	ck_assert_str_eq(spool_timer_name(SPOOL_TIMER_NONE), "none");
	ck_assert_str_eq(spool_timer_name(4), "none");
	ck_assert_str_eq(spool_drop_name(SPOOL_DROP_RING_FULL), "ring-full");
	ck_assert_str_eq(spool_drop_name(SPOOL_DROP_NO_RING), "no-ring");
	ck_assert_str_eq(spool_drop_name(SPOOL_DROP_REENTRANT), "reentrant");
	ck_assert_str_eq(spool_drop_name(SPOOL_DROP_UNWIND), "unwind-failed");
	ck_assert_str_eq(spool_drop_name(SPOOL_DROP_WRITE), "write-failed");
	ck_assert_str_eq(spool_drop_name(0), "unknown");
	ck_assert_str_eq(spool_drop_name(SPOOL_DROP_MAX_), "unknown");
	ck_assert_str_eq(spool_drop_name(UINT32_MAX), "unknown");
	ck_assert_str_eq(spool_alloc_fn_name(SPOOL_ALLOC_FN_MALLOC), "malloc");
	ck_assert_str_eq(spool_alloc_fn_name(SPOOL_ALLOC_FN_FREE), "free");
	ck_assert_str_eq(spool_alloc_fn_name(SPOOL_ALLOC_FN_DALLOCX),
			 "dallocx");
	ck_assert_str_eq(spool_alloc_fn_name(SPOOL_ALLOC_FN_OPERATOR_DELETE),
			 "operator delete");
	ck_assert_str_eq(spool_alloc_fn_name(SPOOL_ALLOC_FN_MAX_), "unknown");
	ck_assert_str_eq(spool_alloc_fn_name(UINT32_MAX), "unknown");
	for (uint32_t i = 0; i < SPOOL_ALLOC_FN_MAX_; i++)
		ck_assert_str_ne(spool_alloc_fn_name(i), "unknown");
}
END_TEST


/* ---- SAMPLES (format 2.3) ---- */

/* A SAMPLES record of tid 7, stream 3, base time 1000 and weight 500,
 * holding the entries at e (len bytes), decoded back into *h. */
static void
samples_record(uint8_t *buf, size_t cap, const uint8_t *e, size_t len,
	       struct spool_rec *r, struct spool_samples *h)
{
	struct spool_buf b;
	struct spool_samples in = { .tid = 7, .stream = 3, .time_ns = 1000,
				    .weight = 500 };
	spool_buf_init(&b, buf, cap);
	ck_assert_int_eq(spool_put_samples(&b, &in, e, len), 0);
	ck_assert_uint_eq(b.len, SPOOL_REC_HEADER_LEN + SPOOL_SAMPLES_FIXED +
					 len);
	r->type = buf[0];
	r->len = (uint32_t)(b.len - SPOOL_REC_HEADER_LEN);
	r->payload = buf + SPOOL_REC_HEADER_LEN;
	r->offset = 0;
	ck_assert_uint_eq(r->type, SPOOL_REC_SAMPLES);
	ck_assert_int_eq(spool_get_samples(r, h), 0);
	ck_assert_uint_eq(h->tid, 7);
	ck_assert_uint_eq(h->stream, 3);
	ck_assert_uint_eq(h->len, len);
}

/* Entries: a definition, a reference, a stack used once, time going
 * back, a weight of 0 and large PCs on both sides of each other. */
static const struct {
	uint64_t time_ns, weight;
	uint32_t id;
	int define;
	uint16_t flags;
	uint32_t depth;
	uint64_t pcs[4];
} entry_cases[] = {
	{ 2000, 1000, 1, 1, SPOOL_SAMPLE_TRUNCATED, 3,
	  { 0x7f0000001234ull, 0x55550000aaaaull, 0x7f0000001000ull } },
	{ 3000, 1000, 1, 0, 0, 0, { 0 } },
	{ 2500, 0, 0, 1, SPOOL_SAMPLE_OFF_CPU, 4,
	  { UINT64_MAX, 0, UINT64_MAX - 1, 1 } },
	{ UINT64_MAX, UINT64_MAX, 0x7fffffffu, 1, 0, 0, { 0 } },
	{ 5, 77, 0x7fffffffu, 0, 0, 0, { 0 } },
};

START_TEST(spool_roundtrip_samples)
{
	uint8_t entries[1024], buf[2048];
	size_t len = 0;
	uint64_t prev_time = 1000, prev_weight = 500;
	for (size_t i = 0; i < ARRAY_LEN(entry_cases); i++) {
		struct spool_sample s = {
			.time_ns = entry_cases[i].time_ns,
			.weight = entry_cases[i].weight,
			.flags = entry_cases[i].flags,
			.depth = entry_cases[i].depth,
		};
		size_t n = spool_encode_entry(entries + len,
					      sizeof(entries) - len, prev_time,
					      prev_weight, &s, entry_cases[i].id,
					      entry_cases[i].define,
					      entry_cases[i].pcs);
		ck_assert_uint_gt(n, 0);
		ck_assert_uint_le(n, SPOOL_ENTRY_MAX(s.depth));
		len += n;
		prev_time = s.time_ns;
		prev_weight = s.weight;
	}
	struct spool_rec r;
	struct spool_samples h;
	struct spool_entry_cursor c;
	struct spool_entry e;
	samples_record(buf, sizeof(buf), entries, len, &r, &h);
	spool_entries_begin(&c, &h);
	for (size_t i = 0; i < ARRAY_LEN(entry_cases); i++) {
		ck_assert_int_eq(spool_entries_next(&c, &e), 1);
		ck_assert_uint_eq(e.time_ns, entry_cases[i].time_ns);
		ck_assert_uint_eq(e.weight, entry_cases[i].weight);
		ck_assert_uint_eq(e.id, entry_cases[i].id);
		ck_assert_int_eq(e.define, entry_cases[i].define);
		if (!e.define)
			continue;
		uint64_t pcs[4];
		ck_assert_uint_eq(e.flags, entry_cases[i].flags);
		ck_assert_uint_eq(e.depth, entry_cases[i].depth);
		ck_assert_int_eq(spool_entry_pcs(&e, pcs), 0);
		for (uint32_t k = 0; k < e.depth; k++)
			ck_assert_uint_eq(pcs[k], entry_cases[i].pcs[k]);
	}
	ck_assert_int_eq(spool_entries_next(&c, &e), 0);
	ck_assert_uint_eq(spool_time_samples(&r), ARRAY_LEN(entry_cases));
}
END_TEST

/* The bytes of a reference entry after a sample 1 ms earlier of the same
 * weight: key 2 << 1, then 2000000 zigzagged, then 0. */
START_TEST(spool_bytes_samples_entry)
{
	static const uint8_t want[] = { 0x04, 0x80, 0x89, 0x7a, 0x00 };
	uint8_t out[32];
	struct spool_sample s = { .time_ns = 1001000000, .weight = 1000000 };
	size_t n = spool_encode_entry(out, sizeof(out), 1000000000, 1000000,
				      &s, 2, 0, NULL);
	ck_assert_uint_eq(n, sizeof(want));
	ck_assert_mem_eq(out, want, sizeof(want));
	/* Key 0 (id 0 without a definition) cannot be written, nor an
	 * entry into too little room. */
	ck_assert_uint_eq(spool_encode_entry(out, sizeof(out), 0, 0, &s, 0, 0,
					     NULL), 0);
	ck_assert_uint_eq(spool_encode_entry(out, 4, 1000000000, 1000000, &s,
					     2, 0, NULL), 0);
}
END_TEST

/* A record grown in place and cut by a kill: after its length was stored
 * the new bytes are zeros (or all but the first): the entries end there. */
START_TEST(spool_samples_zero_ends_entries)
{
	uint8_t entries[64] = { 0 }, buf[256];
	struct spool_sample s = { .time_ns = 1100, .weight = 500, .depth = 1 };
	uint64_t pc = 0x401000;
	size_t n = spool_encode_entry(entries, sizeof(entries), 1000, 500, &s,
				      1, 1, &pc);
	ck_assert_uint_gt(n, 0);
	/* Then an entry whose first byte is still 0. */
	s.time_ns = 1200;
	size_t m = spool_encode_entry(entries + n, sizeof(entries) - n, 1100,
				      500, &s, 1, 0, NULL);
	entries[n] = 0;
	struct spool_rec r;
	struct spool_samples h;
	struct spool_entry_cursor c;
	struct spool_entry e;
	samples_record(buf, sizeof(buf), entries, n + m + 10, &r, &h);
	spool_entries_begin(&c, &h);
	ck_assert_int_eq(spool_entries_next(&c, &e), 1);
	ck_assert_int_eq(spool_entries_next(&c, &e), 0);
	ck_assert_uint_eq(spool_time_samples(&r), 1);
}
END_TEST

/* An entry cut short, at every length: the entries before it read, the
 * rest of the record is malformed, never read past its end. */
START_TEST(spool_samples_cut_entry_malformed)
{
	uint8_t entries[64], buf[256];
	struct spool_sample s = { .time_ns = 99999999, .weight = 1234567,
				  .depth = 2 };
	uint64_t pcs[2] = { 0x7f1234567890ull, 0x401000 };
	size_t n = spool_encode_entry(entries, sizeof(entries), 1000, 500, &s,
				      1, 1, pcs);
	ck_assert_uint_gt(n, 0);
	for (size_t cut = 1; cut < n; cut++) {
		struct spool_rec r;
		struct spool_samples h;
		struct spool_entry_cursor c;
		struct spool_entry e;
		uint8_t *copy = malloc(cut);
		memcpy(copy, entries, cut);
		samples_record(buf, sizeof(buf), copy, cut, &r, &h);
		spool_entries_begin(&c, &h);
		int st = spool_entries_next(&c, &e);
		if (st == 1) {
			/* Only the PCs were cut: they do not decode. */
			uint64_t out[2];
			ck_assert_int_eq(spool_entry_pcs(&e, out), -EBADMSG);
		} else {
			ck_assert_int_eq(st, -EBADMSG);
		}
		free(copy);
	}
}
END_TEST

/* A header shorter than its fixed part is malformed. */
START_TEST(spool_samples_short_header)
{
	uint8_t payload[SPOOL_SAMPLES_FIXED] = { 0 };
	struct spool_rec r = { SPOOL_REC_SAMPLES, SPOOL_SAMPLES_FIXED - 1,
			       payload, 0 };
	struct spool_samples h;
	ck_assert_int_eq(spool_get_samples(&r, &h), -EBADMSG);
	ck_assert_uint_eq(spool_time_samples(&r), 0);
	r.len = SPOOL_SAMPLES_FIXED;
	ck_assert_int_eq(spool_get_samples(&r, &h), 0);
	ck_assert_uint_eq(spool_time_samples(&r), 0);
}
END_TEST

/* ---- ALLOCS (format 2.5) ---- */

/* An ALLOCS record of tid 9, stream 4 and chain (1000, 0x5000, 700)
 * holding the entries at e (len bytes), decoded back into *h. */
static void
allocs_record(uint8_t *buf, size_t cap, const uint8_t *e, size_t len,
	      struct spool_rec *r, struct spool_allocs *h)
{
	struct spool_buf b;
	struct spool_allocs in = { .tid = 9, .stream = 4,
				   .prev = { 1000, 0x5000, 700 } };
	spool_buf_init(&b, buf, cap);
	ck_assert_int_eq(spool_put_allocs(&b, &in, e, len), 0);
	ck_assert_uint_eq(b.len, SPOOL_REC_HEADER_LEN + SPOOL_ALLOCS_FIXED +
					 len);
	r->type = buf[0];
	r->len = (uint32_t)(b.len - SPOOL_REC_HEADER_LEN);
	r->payload = buf + SPOOL_REC_HEADER_LEN;
	r->offset = 0;
	ck_assert_uint_eq(r->type, SPOOL_REC_ALLOCS);
	ck_assert_int_eq(spool_get_allocs(r, h), 0);
	ck_assert_uint_eq(h->tid, 9);
	ck_assert_uint_eq(h->stream, 4);
	ck_assert_uint_eq(h->prev.time_ns, 1000);
	ck_assert_uint_eq(h->prev.address, 0x5000);
	ck_assert_uint_eq(h->prev.weight, 700);
	ck_assert_uint_eq(h->len, len);
}

/* Allocations and releases: a definition (of a truncated stack, with the
 * untracked bit beside), a reference, a release, a stack used once,
 * time and addresses going back, extreme values. */
static const struct {
	int release;
	uint64_t time_ns, address, size, weight;
	uint32_t fn, flags, id;
	int define;
	uint32_t depth;
	uint64_t pcs[3];
} space_cases[] = {
	{ 0, 2000, 0x5040, 64, 524320, SPOOL_ALLOC_FN_MALLOC,
	  SPOOL_SAMPLE_TRUNCATED | SPOOL_ALLOC_UNTRACKED, 1, 1, 3,
	  { 0x7f0000001234ull, 0x55550000aaaaull, 0x7f0000001000ull } },
	{ 0, 3000, 0x5040, 64, 524320, SPOOL_ALLOC_FN_MALLOC, 0, 1, 0, 0,
	  { 0 } },
	{ 1, 2900, 0x5040, 0, 0, 0, 0, 0, 0, 0, { 0 } },
	{ 0, 2950, 0x1000, UINT64_MAX, 1, SPOOL_ALLOC_FN_MAX_ - 1, 0, 0, 1,
	  2, { UINT64_MAX, 0 } },
	{ 1, UINT64_MAX, UINT64_MAX, 0, 0, 0, 0, 0, 0, 0, { 0 } },
	{ 0, 0, 0, 0, UINT64_MAX, UINT32_MAX, UINT32_MAX, 0x3fffffffu, 1, 0,
	  { 0 } },
};

START_TEST(spool_roundtrip_allocs)
{
	uint8_t entries[1024], buf[2048];
	size_t len = 0, allocs = 0;
	struct spool_space_chain prev = { 1000, 0x5000, 700 };
	for (size_t i = 0; i < ARRAY_LEN(space_cases); i++) {
		size_t n;
		if (space_cases[i].release) {
			struct spool_free f = {
				.time_ns = space_cases[i].time_ns,
				.address = space_cases[i].address,
			};
			n = spool_encode_space_free(entries + len,
						    sizeof(entries) - len,
						    &prev, &f);
		} else {
			struct spool_alloc a = {
				.time_ns = space_cases[i].time_ns,
				.address = space_cases[i].address,
				.size = space_cases[i].size,
				.weight = space_cases[i].weight,
				.fn = space_cases[i].fn,
				.flags = space_cases[i].flags,
				.depth = space_cases[i].depth,
			};
			n = spool_encode_space_alloc(
				entries + len, sizeof(entries) - len, &prev,
				&a, space_cases[i].id, space_cases[i].define,
				space_cases[i].pcs);
			prev.weight = a.weight;
			allocs++;
		}
		ck_assert_uint_gt(n, 0);
		ck_assert_uint_le(n, SPOOL_SPACE_ENTRY_MAX(
					     space_cases[i].depth));
		len += n;
		prev.time_ns = space_cases[i].time_ns;
		prev.address = space_cases[i].address;
	}
	struct spool_rec r;
	struct spool_allocs h;
	struct spool_space_cursor c;
	struct spool_space_entry e;
	allocs_record(buf, sizeof(buf), entries, len, &r, &h);
	spool_space_begin(&c, &h);
	for (size_t i = 0; i < ARRAY_LEN(space_cases); i++) {
		ck_assert_int_eq(spool_space_next(&c, &e), 1);
		ck_assert_int_eq(e.release, space_cases[i].release);
		ck_assert_uint_eq(e.time_ns, space_cases[i].time_ns);
		ck_assert_uint_eq(e.address, space_cases[i].address);
		if (e.release)
			continue;
		ck_assert_uint_eq(e.size, space_cases[i].size);
		ck_assert_uint_eq(e.weight, space_cases[i].weight);
		ck_assert_uint_eq(e.fn, space_cases[i].fn);
		ck_assert_uint_eq(e.flags, space_cases[i].flags);
		ck_assert_uint_eq(e.stack.id, space_cases[i].id);
		ck_assert_int_eq(e.stack.define, space_cases[i].define);
		if (!e.stack.define)
			continue;
		/* The stack keeps the sample flags, not the allocation's. */
		uint64_t pcs[3];
		ck_assert_uint_eq(e.stack.flags,
				  space_cases[i].flags &
					  (SPOOL_SAMPLE_TRUNCATED |
					   SPOOL_SAMPLE_UNWIND_ERR));
		ck_assert_uint_eq(e.stack.depth, space_cases[i].depth);
		ck_assert_int_eq(spool_entry_pcs(&e.stack, pcs), 0);
		for (uint32_t k = 0; k < e.stack.depth; k++)
			ck_assert_uint_eq(pcs[k], space_cases[i].pcs[k]);
	}
	ck_assert_int_eq(spool_space_next(&c, &e), 0);
	ck_assert_uint_eq(spool_space_samples(&r), allocs);
	ck_assert_uint_eq(spool_time_samples(&r), 0);
}
END_TEST

/* The bytes of the entries profspool(5) describes: a release 1 us after
 * the chain's time, 64 bytes below its address (key 2, zigzag(1000),
 * zigzag(-64)); an allocation by malloc (fn 0) of 64 bytes at the chain's
 * address 1 ns after, weighing 1 byte more, that refers to stack 2 (key
 * 2 << 2 | 1). */
START_TEST(spool_bytes_allocs_entries)
{
	static const uint8_t want_free[] = { 0x02, 0xd0, 0x0f, 0x7f };
	static const uint8_t want_alloc[] = { 0x09, 0x02, 0x00, 0x40, 0x02,
					      0x00, 0x00 };
	uint8_t out[32];
	struct spool_space_chain prev = { 1000000, 0x5040, 700 };
	struct spool_free f = { .time_ns = 1001000, .address = 0x5000 };
	ck_assert_uint_eq(spool_encode_space_free(out, sizeof(out), &prev, &f),
			  sizeof(want_free));
	ck_assert_mem_eq(out, want_free, sizeof(want_free));
	struct spool_alloc a = { .time_ns = 1000001, .address = 0x5040,
				 .size = 64, .weight = 701,
				 .fn = SPOOL_ALLOC_FN_MALLOC };
	ck_assert_uint_eq(spool_encode_space_alloc(out, sizeof(out), &prev, &a,
						   2, 0, NULL),
			  sizeof(want_alloc));
	ck_assert_mem_eq(out, want_alloc, sizeof(want_alloc));
	/* Neither an id nor a definition cannot be written, nor an entry
	 * into too little room. */
	ck_assert_uint_eq(spool_encode_space_alloc(out, sizeof(out), &prev, &a,
						   0, 0, NULL), 0);
	ck_assert_uint_eq(spool_encode_space_alloc(out, 6, &prev, &a, 2, 0,
						   NULL), 0);
	ck_assert_uint_eq(spool_encode_space_free(out, 3, &prev, &f), 0);
}
END_TEST

/* Keys that are neither an allocation's (odd, not 1) nor a release's (2)
 * are malformed, as is every cut of an entry; a zero byte ends the
 * entries. */
START_TEST(spool_allocs_malformed)
{
	uint8_t buf[256];
	struct spool_rec r;
	struct spool_allocs h;
	struct spool_space_cursor c;
	struct spool_space_entry e;
	static const uint8_t bad_keys[][4] = {
		{ 0x01, 0x00, 0x00, 0x00 }, /* id 0 without a definition */
		{ 0x04, 0x00, 0x00, 0x00 }, /* even, not 2 */
		{ 0x06, 0x00, 0x00, 0x00 },
	};
	for (size_t i = 0; i < ARRAY_LEN(bad_keys); i++) {
		allocs_record(buf, sizeof(buf), bad_keys[i], 4, &r, &h);
		spool_space_begin(&c, &h);
		ck_assert_int_eq(spool_space_next(&c, &e), -EBADMSG);
		ck_assert_int_eq(spool_space_next(&c, &e), 0);
	}
	uint8_t entries[64] = { 0 };
	uint64_t pcs[2] = { 0x7f1234567890ull, 0x401000 };
	struct spool_space_chain prev = { 1000, 0x5000, 700 };
	struct spool_alloc a = { .time_ns = 99999999, .address = 0x7f00aa00,
				 .size = 4096, .weight = 1234567, .fn = 3,
				 .depth = 2 };
	size_t n = spool_encode_space_alloc(entries, sizeof(entries), &prev,
					    &a, 1, 1, pcs);
	ck_assert_uint_gt(n, 0);
	for (size_t cut = 1; cut < n; cut++) {
		uint8_t *copy = malloc(cut);
		memcpy(copy, entries, cut);
		allocs_record(buf, sizeof(buf), copy, cut, &r, &h);
		spool_space_begin(&c, &h);
		int st = spool_space_next(&c, &e);
		if (st == 1) {
			/* Only the PCs were cut: they do not decode. */
			uint64_t out[2];
			ck_assert_int_eq(spool_entry_pcs(&e.stack, out),
					 -EBADMSG);
		} else {
			ck_assert_int_eq(st, -EBADMSG);
		}
		free(copy);
	}
	/* Grown in place and cut by a kill: zeros after the first entry. */
	allocs_record(buf, sizeof(buf), entries, n + 8, &r, &h);
	ck_assert_uint_eq(spool_space_samples(&r), 1);
	/* A header shorter than its fixed part. */
	r.len = SPOOL_ALLOCS_FIXED - 1;
	ck_assert_int_eq(spool_get_allocs(&r, &h), -EBADMSG);
	ck_assert_uint_eq(spool_space_samples(&r), 0);
}
END_TEST

static Suite *
spool_suite(void)
{
	Suite *s = suite_create("common:spool");
	TCase *tc;

	tc = tcase_create("roundtrip");
	tcase_add_test(tc, spool_roundtrip_process);
	tcase_add_test(tc, spool_roundtrip_module_load);
	tcase_add_test(tc, spool_roundtrip_module_load_empty);
	tcase_add_test(tc, spool_module_load_max_segments);
	tcase_add_test(tc, spool_roundtrip_module_unload);
	tcase_add_loop_test(tc, spool_roundtrip_thread, 0,
			    ARRAY_LEN(thread_events));
	tcase_add_loop_test(tc, spool_roundtrip_thread_cpu, 0, 2);
	tcase_add_loop_test(tc, spool_roundtrip_sample, 0,
			    ARRAY_LEN(sample_depths));
	tcase_add_test(tc, spool_roundtrip_footer);
	tcase_add_test(tc, spool_roundtrip_module_image);
	tcase_add_test(tc, spool_roundtrip_module_image_empty);
	tcase_add_test(tc, spool_process_older_formats);
	tcase_add_loop_test(tc, spool_roundtrip_alloc, 0,
			    ARRAY_LEN(fixture_pcs) + 1);
	tcase_add_test(tc, spool_roundtrip_free);
	tcase_add_test(tc, spool_roundtrip_call_counts);
	tcase_add_test(tc, spool_roundtrip_call_arcs);
	tcase_add_test(tc, spool_roundtrip_perf_map);
	tcase_add_test(tc, spool_roundtrip_samples);
	tcase_add_test(tc, spool_samples_zero_ends_entries);
	tcase_add_test(tc, spool_samples_cut_entry_malformed);
	tcase_add_test(tc, spool_samples_short_header);
	tcase_add_test(tc, spool_roundtrip_allocs);
	tcase_add_test(tc, spool_allocs_malformed);
	suite_add_tcase(s, tc);

	tc = tcase_create("bytes");
	tcase_add_test(tc, spool_bytes_file_header);
	tcase_add_test(tc, spool_bytes_thread);
	tcase_add_test(tc, spool_bytes_module_image);
	tcase_add_test(tc, spool_bytes_alloc_free);
	tcase_add_test(tc, spool_bytes_samples_entry);
	tcase_add_test(tc, spool_bytes_allocs_entries);
	suite_add_tcase(s, tc);

	tc = tcase_create("reader");
	tcase_add_test(tc, spool_truncated_every_offset);
	tcase_add_test(tc, spool_unknown_record_skipped);
	tcase_add_test(tc, spool_chunked_skips_unused);
	tcase_add_test(tc, spool_chunked_record_across_chunk_corrupt);
	tcase_add_test(tc, spool_chunk_size_checked);
	tcase_add_loop_test(tc, spool_trailing_fields_ignored, 0,
			    ARRAY_LEN(rec_cases));
	tcase_add_loop_test(tc, spool_impossible_length, 0,
			    ARRAY_LEN(length_cases));
	tcase_add_loop_test(tc, spool_bad_header, 0, ARRAY_LEN(header_cases));
	tcase_add_test(tc, spool_newer_minor_accepted);
	tcase_add_loop_test(tc, spool_short_payload, 0, ARRAY_LEN(rec_cases));
	tcase_add_loop_test(tc, spool_lying_count, 0, ARRAY_LEN(count_cases));
	tcase_add_test(tc, spool_footer_unknown_drop_cause);
	suite_add_tcase(s, tc);

	tc = tcase_create("writer");
	tcase_add_loop_test(tc, spool_put_overflow, 0, ARRAY_LEN(rec_cases));
	tcase_add_test(tc, spool_put_overflow_file_header);
	tcase_add_test(tc, spool_put_error_sticky);
	tcase_add_test(tc, spool_put_too_long);
	suite_add_tcase(s, tc);

	tc = tcase_create("names");
	tcase_add_test(tc, spool_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(spool_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
