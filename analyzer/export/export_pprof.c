/*
 * export_pprof: the profile as pprof's profile.proto, gzipped (see
 * export.h), so that `pprof` and the continuous-profiling services that
 * ingest its format read our spools.
 *
 * With the samples by program counter (export_opts.pcs, pcprof.h; what
 * profanalyze gives it), a Location is one distinct PC of one module
 * instance: its runtime address (a return address minus one, inside the
 * call), its Mapping the instance's address range with the file offset
 * of its start, the file's path and build-id, so that pprof -disasm finds
 * the binary and pprof -list the source; its Lines are the PC's source
 * lines, innermost first, one per inlined call, the last one in the
 * function the symbol names (profile.proto's order). A Function is a
 * (name, source file) pair, with its declaration line when DWARF has it.
 *
 * Without them (--follow), the model keeps functions, not program
 * counters, so a Location is a function: one Location and one Function
 * per function that occurs in the calling-context tree, under the same
 * id, the Location's address
 * being the function's ELF address (an unnamed one's offset in its
 * module, or its PC when it has no module) and its Mapping the
 * function's module. Mappings carry the module's path and
 * build-id (hex) and say has_functions, so pprof never tries to
 * symbolize our addresses itself; they have no address range. Markers of
 * cut stacks are functions without a mapping, as in the text reports.
 *
 * A Sample is one (tree node, thread) pair: the node's path, leaf first,
 * with the number of samples and their weight (nanoseconds of CPU or wall
 * time, or bytes) that ended at that node in that thread, labelled with
 * the thread's id ("tid") and name ("thread"). Summing pprof's samples
 * thus gives back the profile's self and total figures and its threads.
 *
 * The encoder is ours: the format needs only varints, length-delimited
 * fields and packed repeated varints. The profile is written field by
 * field into a buffer that is compressed (gzip, as profile.proto files
 * must be) whenever it grows past a limit, so memory stays bounded; the
 * string table, complete only at the end, comes last (field order does
 * not matter in protobuf).
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "diag.h"
#include "hmap.h"
#include "space.h"
#include "spool.h"
#include "json.h"
#include "pcprof.h"
#include "xmalloc.h"

/* Field numbers of github.com/google/pprof proto/profile.proto. */
enum {
	PB_PROFILE_SAMPLE_TYPE = 1,
	PB_PROFILE_SAMPLE = 2,
	PB_PROFILE_MAPPING = 3,
	PB_PROFILE_LOCATION = 4,
	PB_PROFILE_FUNCTION = 5,
	PB_PROFILE_STRING_TABLE = 6,
	PB_PROFILE_TIME_NANOS = 9,
	PB_PROFILE_DURATION_NANOS = 10,
	PB_PROFILE_PERIOD_TYPE = 11,
	PB_PROFILE_PERIOD = 12,
	PB_PROFILE_COMMENT = 13,
	PB_PROFILE_DEFAULT_SAMPLE_TYPE = 14,

	PB_VALUE_TYPE_TYPE = 1,
	PB_VALUE_TYPE_UNIT = 2,

	PB_SAMPLE_LOCATION_ID = 1,
	PB_SAMPLE_VALUE = 2,
	PB_SAMPLE_LABEL = 3,

	PB_LABEL_KEY = 1,
	PB_LABEL_STR = 2,
	PB_LABEL_NUM = 3,

	PB_MAPPING_ID = 1,
	PB_MAPPING_MEMORY_START = 2,
	PB_MAPPING_MEMORY_LIMIT = 3,
	PB_MAPPING_FILE_OFFSET = 4,
	PB_MAPPING_FILENAME = 5,
	PB_MAPPING_BUILD_ID = 6,
	PB_MAPPING_HAS_FUNCTIONS = 7,
	PB_MAPPING_HAS_FILENAMES = 8,
	PB_MAPPING_HAS_LINE_NUMBERS = 9,
	PB_MAPPING_HAS_INLINE_FRAMES = 10,

	PB_LOCATION_ID = 1,
	PB_LOCATION_MAPPING_ID = 2,
	PB_LOCATION_ADDRESS = 3,
	PB_LOCATION_LINE = 4,

	PB_LINE_FUNCTION_ID = 1,
	PB_LINE_LINE = 2,

	PB_FUNCTION_ID = 1,
	PB_FUNCTION_NAME = 2,
	PB_FUNCTION_SYSTEM_NAME = 3,
	PB_FUNCTION_FILENAME = 4,
	PB_FUNCTION_START_LINE = 5,
};

enum { PB_VARINT = 0, PB_LEN = 2 }; /* wire types */

/* Compress the buffer once it holds this much (a top-level field may
 * take it past the limit). */
#define FLUSH_AT (64 * 1024)

struct pb {
	uint8_t *data;
	size_t len, cap;
};

struct pprof {
	const struct profile *p;
	FILE *out;
	const char *name; /* for messages */
	z_stream z;
	struct pb buf;
	/* The string table: strs[0] is "". str_index maps a string's hash
	 * to its index, colliding strings taking the next free hash. */
	char **strs;
	size_t nstrs, strs_cap;
	struct hmap str_index;
	uint32_t *func_id;    /* per function: Location/Function id, 0 none */
	uint32_t *mapping_id; /* per module: Mapping id, 0 none */
	bool failed;
	const struct pcprof *pcs; /* the samples by PC, or NULL */
	uint32_t *pc_mapping_id; /* per pcprof mapping: its Mapping id */
};

/* A (tree node, thread) pair and what its samples add up to. */
struct pprof_sample {
	uint32_t node, thread;
	uint64_t count, weight;
};

/* ---- protobuf encoding ---- */

static void
pb_bytes(struct pb *b, const void *data, size_t n)
{
	xgrow(&b->data, &b->cap, b->len + n, 1);
	memcpy(b->data + b->len, data, n);
	b->len += n;
}

/* Encodes v as a varint into out (at least 10 bytes); returns its size. */
static size_t
varint_encode(uint8_t *out, uint64_t v)
{
	size_t n = 0;
	do {
		out[n] = (uint8_t)(v & 0x7f);
		v >>= 7;
		if (v)
			out[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static void
pb_varint(struct pb *b, uint64_t v)
{
	uint8_t tmp[10];
	pb_bytes(b, tmp, varint_encode(tmp, v));
}

static void
pb_tag(struct pb *b, uint32_t field, uint32_t wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* An integer field; proto3 leaves out the default 0. (Our int64 fields
 * never hold negative numbers, so both kinds encode as plain varints.) */
static void
pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
	if (!v)
		return;
	pb_tag(b, field, PB_VARINT);
	pb_varint(b, v);
}

/* Where a length-delimited field's body starts; pb_end() closes it. */
static size_t
pb_begin(const struct pb *b)
{
	return b->len;
}

/* Closes the field opened at start: its tag and length go before the
 * body written since, which moves up to make room. Bodies are single
 * messages (a sample, a location) or packed lists, so the move is short. */
static void
pb_end(struct pb *b, uint32_t field, size_t start)
{
	uint8_t head[20];
	size_t body = b->len - start;
	size_t n = varint_encode(head, (uint64_t)field << 3 | PB_LEN);

	n += varint_encode(head + n, body);
	xgrow(&b->data, &b->cap, b->len + n, 1);
	memmove(b->data + start + n, b->data + start, body);
	memcpy(b->data + start, head, n);
	b->len += n;
}

/* A string field. Protobuf strings must be UTF-8 (strict decoders reject
 * others) but symbol names and paths are arbitrary bytes: each byte that
 * is not part of valid UTF-8 becomes U+FFFD, as in the JSON export. */
static void
pb_string(struct pb *b, uint32_t field, const char *s)
{
	static const uint8_t replacement[] = { 0xef, 0xbf, 0xbd };
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s), start = pb_begin(b);

	for (size_t i = 0; i < n;) {
		size_t len = json_utf8_decode(u + i, n - i, NULL);
		if (len) {
			pb_bytes(b, u + i, len);
			i += len;
		} else {
			pb_bytes(b, replacement, sizeof(replacement));
			i++;
		}
	}
	pb_end(b, field, start);
}

/* ---- output ---- */

/* Compresses what the buffer holds (and with Z_FINISH the gzip trailer)
 * to out. Write errors stay in out's error flag. */
static void
pprof_flush(struct pprof *w, int flush)
{
	uint8_t chunk[16384];
	int rc;

	if (w->failed)
		return;
	w->z.next_in = w->buf.data;
	w->z.avail_in = (uInt)w->buf.len;
	do {
		w->z.next_out = chunk;
		w->z.avail_out = sizeof(chunk);
		rc = deflate(&w->z, flush);
		if (rc == Z_STREAM_ERROR) {
			diag_error("%s: pprof: zlib: %s", w->name,
				   w->z.msg ? w->z.msg : "deflate failed");
			w->failed = true;
			return;
		}
		fwrite(chunk, 1, sizeof(chunk) - w->z.avail_out, w->out);
	} while (w->z.avail_out == 0);
	w->buf.len = 0;
}

/* Called after each top-level field. */
static void
pprof_field_done(struct pprof *w)
{
	if (w->buf.len >= FLUSH_AT)
		pprof_flush(w, Z_NO_FLUSH);
}

/* ---- the string table ---- */

/* The index of s in the string table, added (copied) when new. */
static uint64_t
str_id(struct pprof *w, const char *s)
{
	bool found;
	for (uint64_t h = hmap_hash_str(HMAP_HASH_INIT, s);; h++) {
		uint64_t *idx = hmap_ref(&w->str_index, h, &found);
		if (!found) {
			*idx = w->nstrs;
			xgrow(&w->strs, &w->strs_cap, w->nstrs + 1,
			      sizeof(*w->strs));
			w->strs[w->nstrs++] = xstrdup(s);
			return *idx;
		}
		if (strcmp(w->strs[*idx], s) == 0)
			return *idx;
	}
}

/* ---- the profile's parts ---- */

static void
write_value_type(struct pprof *w, uint32_t field, const char *type,
		 const char *unit)
{
	size_t start = pb_begin(&w->buf);
	pb_uint(&w->buf, PB_VALUE_TYPE_TYPE, str_id(w, type));
	pb_uint(&w->buf, PB_VALUE_TYPE_UNIT, str_id(w, unit));
	pb_end(&w->buf, field, start);
	pprof_field_done(w);
}

/* What the weights measure: CPU or wall time, or bytes. */
static const char *
weight_type(const struct profile *p)
{
	if (p->hdr.kind == PROFILE_KIND_SPACE)
		return "space";
	if (p->hdr.has_process && p->hdr.clock == SPOOL_CLOCK_WALL)
		return "wall";
	return "cpu";
}

static const char *
weight_unit(const struct profile *p)
{
	return p->hdr.kind == PROFILE_KIND_SPACE ? "bytes" : "nanoseconds";
}

/* Numbers the functions and modules that occur in the tree: ids in
 * order of first occurrence, but the executable's module first (pprof
 * takes mapping[0] for the main binary). */
static void
number_parts(struct pprof *w)
{
	const struct profile *p = w->p;
	uint32_t nfunc = 0, nmap = 0, exe = PROFILE_NONE;

	w->func_id = xcalloc(p->nfuncs + 1, sizeof(*w->func_id));
	w->mapping_id = xcalloc(p->nmodules + 1, sizeof(*w->mapping_id));
	for (size_t i = 1; i < p->nnodes; i++) {
		uint32_t f = p->nodes[i].func;
		if (!w->func_id[f])
			w->func_id[f] = ++nfunc;
	}
	for (uint32_t m = 0; p->hdr.exe && m < p->nmodules; m++)
		if (strcmp(p->modules[m].path, p->hdr.exe) == 0)
			exe = m;
	for (size_t f = 0; exe != PROFILE_NONE && f < p->nfuncs; f++)
		if (w->func_id[f] && p->funcs[f].module == exe) {
			w->mapping_id[exe] = ++nmap;
			break;
		}
	for (size_t i = 1; i < p->nnodes; i++) {
		uint32_t m = p->funcs[p->nodes[i].func].module;
		if (m != PROFILE_NONE && !w->mapping_id[m])
			w->mapping_id[m] = ++nmap;
	}
}

static void
write_label(struct pprof *w, const char *key, const char *str, uint64_t num)
{
	size_t start = pb_begin(&w->buf);
	pb_uint(&w->buf, PB_LABEL_KEY, str_id(w, key));
	if (str)
		pb_uint(&w->buf, PB_LABEL_STR, str_id(w, str));
	else
		pb_uint(&w->buf, PB_LABEL_NUM, num);
	pb_end(&w->buf, PB_SAMPLE_LABEL, start);
}

static void
write_sample(struct pprof *w, const struct pprof_sample *s)
{
	const struct profile *p = w->p;
	const struct profile_thread *t = &p->threads[s->thread];
	size_t start = pb_begin(&w->buf), list;

	/* A sample at the root (no frames at all) has no locations. */
	if (s->node != PROFILE_ROOT) {
		list = pb_begin(&w->buf);
		for (uint32_t n = s->node; n != PROFILE_ROOT;
		     n = p->nodes[n].parent)
			pb_varint(&w->buf, w->func_id[p->nodes[n].func]);
		pb_end(&w->buf, PB_SAMPLE_LOCATION_ID, list);
	}
	list = pb_begin(&w->buf);
	pb_varint(&w->buf, s->count);
	pb_varint(&w->buf, s->weight);
	pb_end(&w->buf, PB_SAMPLE_VALUE, list);
	write_label(w, "tid", NULL, t->tid);
	if (t->name && *t->name) /* "" would read as no label at all */
		write_label(w, "thread", t->name, 0);
	pb_end(&w->buf, PB_PROFILE_SAMPLE, start);
	pprof_field_done(w);
}

static int
cmp_sample(const void *pa, const void *pb)
{
	const struct pprof_sample *a = pa, *b = pb;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* One Sample per (node, thread) pair of the profile's samples, in tree
 * order, then thread order. */
static void
write_samples(struct pprof *w)
{
	const struct profile *p = w->p;
	struct pprof_sample *agg = xcalloc(p->nsamples + 1, sizeof(*agg));
	struct hmap index;
	size_t n = 0;
	bool found;

	hmap_init(&index);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct profile_sample *s = &p->samples[i];
		uint64_t *k = hmap_ref(&index, (uint64_t)s->node << 32 |
					       s->thread, &found);
		if (!found) {
			*k = n;
			agg[n++] = (struct pprof_sample){ .node = s->node,
							  .thread = s->thread };
		}
		agg[*k].count += s->count;
		agg[*k].weight += s->weight;
	}
	hmap_free(&index);
	qsort(agg, n, sizeof(*agg), cmp_sample);
	for (size_t i = 0; i < n; i++)
		write_sample(w, &agg[i]);
	free(agg);
}

static void
write_hex_id(struct pprof *w, uint32_t field, const uint8_t *b, size_t n)
{
	char *hex = xmalloc(2 * n + 1);

	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", b[i]);
	pb_uint(&w->buf, field, str_id(w, hex));
	free(hex);
}

/* files: the module's functions that occur have source files (they do
 * when the profile was split by lines). */
static void
write_mapping(struct pprof *w, uint32_t m, bool files)
{
	const struct profile_module *mod = &w->p->modules[m];
	size_t start = pb_begin(&w->buf);

	pb_uint(&w->buf, PB_MAPPING_ID, w->mapping_id[m]);
	pb_uint(&w->buf, PB_MAPPING_FILENAME, str_id(w, mod->path));
	if (mod->build_id)
		write_hex_id(w, PB_MAPPING_BUILD_ID, mod->build_id,
			     mod->build_id_len);
	pb_uint(&w->buf, PB_MAPPING_HAS_FUNCTIONS, 1);
	pb_uint(&w->buf, PB_MAPPING_HAS_FILENAMES, files);
	pb_uint(&w->buf, PB_MAPPING_HAS_LINE_NUMBERS, files);
	pb_end(&w->buf, PB_PROFILE_MAPPING, start);
	pprof_field_done(w);
}

/* The mappings in id order. */
static void
write_mappings(struct pprof *w)
{
	const struct profile *p = w->p;
	uint32_t *by_id = xcalloc(p->nmodules + 1, sizeof(*by_id));
	bool *files = xcalloc(p->nmodules + 1, sizeof(*files));
	uint32_t n = 0;

	for (size_t f = 0; f < p->nfuncs; f++)
		if (w->func_id[f] && p->funcs[f].file &&
		    p->funcs[f].module != PROFILE_NONE)
			files[p->funcs[f].module] = true;
	for (uint32_t m = 0; m < p->nmodules; m++)
		if (w->mapping_id[m]) {
			by_id[w->mapping_id[m] - 1] = m;
			n++;
		}
	for (uint32_t i = 0; i < n; i++)
		write_mapping(w, by_id[i], files[by_id[i]]);
	free(files);
	free(by_id);
}

static void
write_location(struct pprof *w, uint32_t f)
{
	const struct profile_func *fn = &w->p->funcs[f];
	size_t start = pb_begin(&w->buf), line;

	pb_uint(&w->buf, PB_LOCATION_ID, w->func_id[f]);
	if (fn->module != PROFILE_NONE)
		pb_uint(&w->buf, PB_LOCATION_MAPPING_ID,
			w->mapping_id[fn->module]);
	pb_uint(&w->buf, PB_LOCATION_ADDRESS, fn->addr);
	line = pb_begin(&w->buf);
	pb_uint(&w->buf, PB_LINE_FUNCTION_ID, w->func_id[f]);
	pb_uint(&w->buf, PB_LINE_LINE, fn->file ? fn->line : 0);
	pb_end(&w->buf, PB_LOCATION_LINE, line);
	pb_end(&w->buf, PB_PROFILE_LOCATION, start);
	pprof_field_done(w);
}

static void
write_function(struct pprof *w, uint32_t f)
{
	const struct profile_func *fn = &w->p->funcs[f];
	size_t start = pb_begin(&w->buf);
	uint64_t name = str_id(w, fn->name);

	pb_uint(&w->buf, PB_FUNCTION_ID, w->func_id[f]);
	pb_uint(&w->buf, PB_FUNCTION_NAME, name);
	/* Names are demangled; the mangled ones are not kept. */
	pb_uint(&w->buf, PB_FUNCTION_SYSTEM_NAME, name);
	if (fn->file)
		pb_uint(&w->buf, PB_FUNCTION_FILENAME, str_id(w, fn->file));
	pb_end(&w->buf, PB_PROFILE_FUNCTION, start);
	pprof_field_done(w);
}

/* Locations and functions in id order. */
static void
write_functions(struct pprof *w)
{
	const struct profile *p = w->p;
	uint32_t *by_id = xcalloc(p->nfuncs + 1, sizeof(*by_id));
	uint32_t n = 0;

	for (uint32_t f = 0; f < p->nfuncs; f++)
		if (w->func_id[f]) {
			by_id[w->func_id[f] - 1] = f;
			n++;
		}
	for (uint32_t i = 0; i < n; i++)
		write_location(w, by_id[i]);
	for (uint32_t i = 0; i < n; i++)
		write_function(w, by_id[i]);
	free(by_id);
}

/* ---- by program counter (export_opts.pcs) ---- */

/* Mapping ids: the executable's mappings first (pprof takes mapping[0]
 * for the main binary), then in order of first use. */
static void
pc_number_mappings(struct pprof *w)
{
	const struct pcprof *pc = w->pcs;
	const char *exe = w->p->hdr.exe;
	uint32_t n = 0;

	w->pc_mapping_id = xcalloc(pc->nmappings + 1,
				   sizeof(*w->pc_mapping_id));
	for (size_t m = 0; exe && m < pc->nmappings; m++)
		if (strcmp(pc->mappings[m].path, exe) == 0)
			w->pc_mapping_id[m] = ++n;
	for (size_t m = 0; m < pc->nmappings; m++)
		if (!w->pc_mapping_id[m])
			w->pc_mapping_id[m] = ++n;
}

/* The thread's name in the profile (every spool merged), or NULL. */
static const char *
thread_name(const struct profile *p, struct hmap *index, uint32_t tid)
{
	uint64_t k;
	if (!hmap_get(index, tid, &k))
		return NULL;
	return p->threads[k].name;
}

static void
write_pc_sample(struct pprof *w, const struct pcprof_sample *s,
		const char *name)
{
	size_t start = pb_begin(&w->buf), list;

	if (s->depth) {
		list = pb_begin(&w->buf);
		for (uint32_t i = 0; i < s->depth; i++)
			pb_varint(&w->buf, w->pcs->stacks[s->stack0 + i] + 1);
		pb_end(&w->buf, PB_SAMPLE_LOCATION_ID, list);
	}
	list = pb_begin(&w->buf);
	pb_varint(&w->buf, s->count);
	pb_varint(&w->buf, s->weight);
	pb_end(&w->buf, PB_SAMPLE_VALUE, list);
	write_label(w, "tid", NULL, s->tid);
	if (name && *name)
		write_label(w, "thread", name, 0);
	pb_end(&w->buf, PB_PROFILE_SAMPLE, start);
	pprof_field_done(w);
}

static void
write_pc_mapping(struct pprof *w, const struct pcprof_mapping *m, uint32_t id)
{
	size_t start = pb_begin(&w->buf);

	pb_uint(&w->buf, PB_MAPPING_ID, id);
	pb_uint(&w->buf, PB_MAPPING_MEMORY_START, m->start);
	pb_uint(&w->buf, PB_MAPPING_MEMORY_LIMIT, m->limit);
	pb_uint(&w->buf, PB_MAPPING_FILE_OFFSET, m->offset);
	pb_uint(&w->buf, PB_MAPPING_FILENAME, str_id(w, m->path));
	if (m->build_id)
		write_hex_id(w, PB_MAPPING_BUILD_ID, m->build_id,
			     m->build_id_len);
	pb_uint(&w->buf, PB_MAPPING_HAS_FUNCTIONS, 1);
	pb_uint(&w->buf, PB_MAPPING_HAS_FILENAMES, m->has_lines);
	pb_uint(&w->buf, PB_MAPPING_HAS_LINE_NUMBERS, m->has_lines);
	pb_uint(&w->buf, PB_MAPPING_HAS_INLINE_FRAMES, m->has_inline);
	pb_end(&w->buf, PB_PROFILE_MAPPING, start);
	pprof_field_done(w);
}

static void
write_pc_location(struct pprof *w, uint32_t k)
{
	const struct pcprof *pc = w->pcs;
	const struct pcprof_loc *l = &pc->locs[k];
	size_t start = pb_begin(&w->buf);

	pb_uint(&w->buf, PB_LOCATION_ID, (uint64_t)k + 1);
	if (l->mapping != PCPROF_NONE)
		pb_uint(&w->buf, PB_LOCATION_MAPPING_ID,
			w->pc_mapping_id[l->mapping]);
	pb_uint(&w->buf, PB_LOCATION_ADDRESS, l->addr);
	for (uint32_t i = 0; i < l->nlines; i++) {
		const struct pcprof_line *ln = &pc->lines[l->line0 + i];
		size_t line = pb_begin(&w->buf);
		pb_uint(&w->buf, PB_LINE_FUNCTION_ID, (uint64_t)ln->func + 1);
		pb_uint(&w->buf, PB_LINE_LINE, ln->line);
		pb_end(&w->buf, PB_LOCATION_LINE, line);
	}
	pb_end(&w->buf, PB_PROFILE_LOCATION, start);
	pprof_field_done(w);
}

static void
write_pc_function(struct pprof *w, uint32_t f)
{
	const struct pcprof_func *fn = &w->pcs->funcs[f];
	size_t start = pb_begin(&w->buf);
	uint64_t name = str_id(w, fn->name);

	pb_uint(&w->buf, PB_FUNCTION_ID, (uint64_t)f + 1);
	pb_uint(&w->buf, PB_FUNCTION_NAME, name);
	pb_uint(&w->buf, PB_FUNCTION_SYSTEM_NAME, name);
	if (fn->file)
		pb_uint(&w->buf, PB_FUNCTION_FILENAME, str_id(w, fn->file));
	pb_uint(&w->buf, PB_FUNCTION_START_LINE, fn->start_line);
	pb_end(&w->buf, PB_PROFILE_FUNCTION, start);
	pprof_field_done(w);
}

/* Samples, mappings, locations and functions from w->pcs; ids are the
 * pcprof indexes plus one (the mappings': pc_number_mappings). */
static void
write_by_pc(struct pprof *w)
{
	const struct pcprof *pc = w->pcs;
	const struct profile *p = w->p;
	uint32_t *by_id;
	struct hmap threads;

	hmap_init(&threads);
	for (size_t t = 0; t < p->nthreads; t++)
		hmap_put(&threads, p->threads[t].tid, t);
	for (size_t i = 0; i < pc->nsamples; i++)
		write_pc_sample(w, &pc->samples[i],
				thread_name(p, &threads, pc->samples[i].tid));
	hmap_free(&threads);
	pc_number_mappings(w);
	by_id = xcalloc(pc->nmappings + 1, sizeof(*by_id));
	for (uint32_t m = 0; m < pc->nmappings; m++)
		by_id[w->pc_mapping_id[m] - 1] = m;
	for (uint32_t i = 0; i < pc->nmappings; i++)
		write_pc_mapping(w, &pc->mappings[by_id[i]], i + 1);
	free(by_id);
	for (uint32_t k = 0; k < pc->nlocs; k++)
		write_pc_location(w, k);
	for (uint32_t f = 0; f < pc->nfuncs; f++)
		write_pc_function(w, f);
}

static void
write_comment(struct pprof *w, const char *text)
{
	pb_uint(&w->buf, PB_PROFILE_COMMENT, str_id(w, text));
}

/* What pprof shows with -comments: what was profiled, and that the
 * locations are functions. */
static void
write_comments(struct pprof *w)
{
	const struct profile_header *h = &w->p->hdr;
	char *s = xasprintf("profrun %s profile of %s",
			    h->kind == PROFILE_KIND_SPACE ? "space" : "time",
			    h->exe ? h->exe : "an unknown program");

	write_comment(w, s);
	free(s);
	if (h->kind == PROFILE_KIND_SPACE) {
		s = xasprintf("view: %s", space_view_name(h->space.view));
		write_comment(w, s);
		free(s);
	}
	write_comment(w, w->pcs ? "one location per program counter" :
				  "one location per function, at the "
				  "function's ELF address");
}

/* Sample types, period and comments. */
static void
write_header(struct pprof *w)
{
	const struct profile *p = w->p;
	const struct profile_header *h = &p->hdr;
	uint64_t period = 0; /* unknown */

	if (h->kind == PROFILE_KIND_SPACE)
		period = h->space.interval;
	else if (h->has_process)
		period = h->period_ns;

	write_value_type(w, PB_PROFILE_SAMPLE_TYPE, "samples", "count");
	write_value_type(w, PB_PROFILE_SAMPLE_TYPE, weight_type(p),
			 weight_unit(p));
	write_value_type(w, PB_PROFILE_PERIOD_TYPE, weight_type(p),
			 weight_unit(p));
	pb_uint(&w->buf, PB_PROFILE_PERIOD, period);
	/* When the run (or --from/--to's window of it) started, and how
	 * long it took when it ended cleanly (both unknown, and left out,
	 * for spools without them). */
	uint64_t from = h->window ? h->window_from_ns : 0;
	uint64_t span = h->complete && h->start_mono_ns &&
				h->end_mono_ns > h->start_mono_ns ?
			h->end_mono_ns - h->start_mono_ns : 0;
	if (h->window && span)
		span = span <= from ? 0 :
		       h->window_to_ns < span ? h->window_to_ns - from :
						span - from;
	if (h->start_realtime_ns)
		pb_uint(&w->buf, PB_PROFILE_TIME_NANOS,
			h->start_realtime_ns + from);
	if (span)
		pb_uint(&w->buf, PB_PROFILE_DURATION_NANOS, span);
	pb_uint(&w->buf, PB_PROFILE_DEFAULT_SAMPLE_TYPE,
		str_id(w, weight_type(p)));
	write_comments(w);
	pprof_field_done(w);
}

static void
write_string_table(struct pprof *w)
{
	for (size_t i = 0; i < w->nstrs; i++) {
		pb_string(&w->buf, PB_PROFILE_STRING_TABLE, w->strs[i]);
		pprof_field_done(w);
	}
}

static void
pprof_free(struct pprof *w)
{
	for (size_t i = 0; i < w->nstrs; i++)
		free(w->strs[i]);
	free(w->strs);
	hmap_free(&w->str_index);
	free(w->func_id);
	free(w->mapping_id);
	free(w->pc_mapping_id);
	free(w->buf.data);
}

int
export_pprof_write(FILE *out, const struct profile *p,
		   const struct export_opts *opts)
{
	struct pprof w = { .p = p, .out = out, .name = opts->name };

	/* windowBits 15 + 16: a gzip stream (header and trailer). */
	if (deflateInit2(&w.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		diag_error("%s: pprof: zlib: cannot start compression",
			   opts->name);
		return -1;
	}
	hmap_init(&w.str_index);
	str_id(&w, ""); /* string_table[0] must be "" */
	w.pcs = opts->pcs;
	if (w.pcs) {
		write_header(&w);
		write_by_pc(&w);
	} else {
		number_parts(&w);
		write_header(&w);
		write_samples(&w);
		write_mappings(&w);
		write_functions(&w);
	}
	write_string_table(&w);
	pprof_flush(&w, Z_FINISH);
	deflateEnd(&w.z);
	pprof_free(&w);
	return w.failed ? -1 : 0;
}
