/*
 * fuzz-spool: libFuzzer harness of the spool decoder (common/spool.c).
 *
 * The input is a spool file image. Every record is decoded by the typed
 * decoder of its type, and every PC, segment and counter it holds is read,
 * the way the analyzer walks a spool, so that ASan sees each access the
 * decoder allows. Inputs are kept in memory: the decoder never touches
 * files.
 */
#include <stddef.h>
#include <stdint.h>

#include "spool.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Summed over everything read, and kept, so that no read is optimised
 * away. */
static volatile uint64_t sink;

static void
walk_module(const struct spool_rec *rec)
{
	struct spool_module_load m;

	if (spool_get_module_load(rec, &m) < 0)
		return;
	sink += m.path.len ? (uint8_t)m.path.ptr[m.path.len - 1] : 0;
	sink += m.build_id_len ? m.build_id[m.build_id_len - 1] : 0;
	for (uint32_t i = 0; i < m.nsegments; i++) {
		struct spool_segment s = spool_module_segment(&m, i);
		sink += s.vaddr + s.memsz + s.offset + s.flags;
	}
}

static void
walk_stacks(const struct spool_rec *rec)
{
	if (rec->type == SPOOL_REC_SAMPLE) {
		struct spool_sample s;
		if (spool_get_sample(rec, &s) < 0)
			return;
		for (uint32_t i = 0; i < s.depth; i++)
			sink += spool_sample_pc(&s, i);
	} else {
		struct spool_alloc a;
		if (spool_get_alloc(rec, &a) < 0)
			return;
		for (uint32_t i = 0; i < a.depth; i++)
			sink += spool_alloc_pc(&a, i);
		sink += (uintptr_t)spool_alloc_fn_name(a.fn);
	}
}

/* Every entry of a SAMPLES record, and the PCs of those that define a
 * stack: the entries' cursor only moves forward and stays inside the
 * record. */
static void
walk_samples(const struct spool_rec *rec)
{
	struct spool_samples h;
	struct spool_entry_cursor c;
	struct spool_entry e;
	uint64_t pcs[64];
	int st;

	if (spool_get_samples(rec, &h) < 0)
		return;
	spool_entries_begin(&c, &h);
	for (uint32_t last = 0; (st = spool_entries_next(&c, &e)) == 1;
	     last = c.pos) {
		if (c.pos <= last || c.pos > h.len)
			__builtin_trap();
		sink += e.time_ns + e.weight + e.id + e.flags;
		if (e.define && e.depth <= 64 &&
		    spool_entry_pcs(&e, pcs) == 0)
			for (uint32_t i = 0; i < e.depth; i++)
				sink += pcs[i];
	}
	sink += (uint64_t)st + spool_time_samples(rec);
}

/* Every entry of an ALLOCS record, as walk_samples. */
static void
walk_allocs(const struct spool_rec *rec)
{
	struct spool_allocs h;
	struct spool_space_cursor c;
	struct spool_space_entry e;
	uint64_t pcs[64];
	int st;

	if (spool_get_allocs(rec, &h) < 0)
		return;
	spool_space_begin(&c, &h);
	for (uint32_t last = 0; (st = spool_space_next(&c, &e)) == 1;
	     last = c.pos) {
		if (c.pos <= last || c.pos > h.len)
			__builtin_trap();
		sink += e.time_ns + e.address + e.size + e.weight + e.fn +
			e.flags + e.stack.id;
		if (e.stack.define && e.stack.depth <= 64 &&
		    spool_entry_pcs(&e.stack, pcs) == 0)
			for (uint32_t i = 0; i < e.stack.depth; i++)
				sink += pcs[i];
	}
	sink += (uint64_t)st + spool_space_samples(rec);
}

static void
walk_other(const struct spool_rec *rec)
{
	union {
		struct spool_process p;
		struct spool_module_unload u;
		struct spool_thread t;
		struct spool_footer f;
		struct spool_module_image i;
		struct spool_free fr;
		struct spool_call_counts c;
		struct spool_call_arcs a;
		struct spool_perf_map m;
	} v;

	switch (rec->type) {
	case SPOOL_REC_PROCESS:
		if (spool_get_process(rec, &v.p) == 0)
			sink += v.p.exe.len + v.p.cmdline.len +
				(uintptr_t)spool_timer_name(v.p.timer);
		break;
	case SPOOL_REC_MODULE_UNLOAD:
		if (spool_get_module_unload(rec, &v.u) == 0)
			sink += v.u.path.len;
		break;
	case SPOOL_REC_THREAD:
		if (spool_get_thread(rec, &v.t) == 0 && v.t.name.len)
			sink += (uint8_t)v.t.name.ptr[v.t.name.len - 1];
		break;
	case SPOOL_REC_FOOTER:
		if (spool_get_footer(rec, &v.f) == 0)
			for (uint32_t i = 0; i < SPOOL_DROP_MAX_; i++)
				sink += v.f.drops[i] +
					(uintptr_t)spool_drop_name(i);
		break;
	case SPOOL_REC_MODULE_IMAGE:
		if (spool_get_module_image(rec, &v.i) == 0 && v.i.len)
			sink += v.i.data[0] + v.i.data[v.i.len - 1];
		break;
	case SPOOL_REC_FREE:
		if (spool_get_free(rec, &v.fr) == 0)
			sink += v.fr.address;
		break;
	case SPOOL_REC_CALL_COUNTS:
		if (spool_get_call_counts(rec, &v.c) == 0)
			/* Past n too: ids the record lacks read as 0. */
			for (uint32_t i = 0; i <= SPOOL_ALLOC_FN_MAX_; i++)
				sink += spool_call_count(&v.c, i);
		break;
	case SPOOL_REC_CALL_ARCS:
		if (spool_get_call_arcs(rec, &v.a) == 0)
			for (uint32_t i = 0; i < v.a.n; i++) {
				struct spool_call_arc a =
					spool_call_arc_at(&v.a, i);
				sink += a.fn + a.site + a.count;
			}
		break;
	case SPOOL_REC_PERF_MAP:
		if (spool_get_perf_map(rec, &v.m) == 0 && v.m.text.len)
			sink += v.m.pid + v.m.part + v.m.flags +
				(uint8_t)v.m.text.ptr[v.m.text.len - 1];
		break;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spool_cursor c;
	struct spool_rec rec;

	if (spool_cursor_init(&c, data, size) < 0)
		return 0;
	while (spool_next(&c, &rec) == SPOOL_OK) {
		/* The cursor moves forward only, or a reader could loop. */
		if (rec.offset + SPOOL_REC_HEADER_LEN + rec.len != c.pos ||
		    c.pos > size)
			__builtin_trap();
		switch (rec.type) {
		case SPOOL_REC_MODULE_LOAD:
			walk_module(&rec);
			break;
		case SPOOL_REC_SAMPLE:
		case SPOOL_REC_ALLOC:
			walk_stacks(&rec);
			break;
		case SPOOL_REC_SAMPLES:
			walk_samples(&rec);
			break;
		case SPOOL_REC_ALLOCS:
			walk_allocs(&rec);
			break;
		default:
			walk_other(&rec);
		}
	}
	return 0;
}
