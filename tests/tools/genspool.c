/*
 * genspool: writes a large synthetic spool through the common/ encoder,
 * laid out as libprofrun.so lays it out (chunks of 64 KiB, each thread
 * appending to chunks of its own), for benchmarks and the reader's tests.
 * scripts/genspool drives it; usage there.
 *
 *   genspool [options] OUT
 *     -n N       time samples in all (default 1000000)
 *     -k K       distinct stacks (default 10000); 0: every sample a stack
 *                of its own (its innermost PC is new)
 *     -d D       frames per stack (default 30)
 *     -t T       threads (default 1); sample i goes to thread i % T
 *     -f FMT     samples: SAMPLES records, stacks defined once per
 *                thread (format 2.3, what profrun writes); sample: a
 *                SAMPLE record each (format 2.2)
 *     -m ELF     the module whose functions the stacks are made of
 *                (default /proc/self/exe); loaded at 0x7f0000000000
 *     -s SEED    random seed (default 1)
 *     -j         perf-like weights: each drawn between 0.5 and 1.5 ms
 *                (default: every weight 1 ms)
 *   genspool --stat SPOOL
 *     prints the file's size, its time samples, the bytes of the records
 *     that carry them, and both per sample
 *
 * Stacks share call paths as a program's do (each starts with a random
 * outer part of an earlier one) and are picked with a skew toward the
 * first ones (u^2, u uniform). Each thread's samples are 1 ms apart.
 */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (64u * 1024)
#define BASE 0x7f0000000000ull
#define MAX_DEPTH SPOOL_MAX_DEPTH

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("genspool: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		die("out of memory");
	return p;
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- the module: segments and function PCs ---- */

struct module {
	struct spool_segment segs[SPOOL_MAX_SEGMENTS];
	uint32_t nsegs;
	uint64_t *pcs; /* the middle of each function, as mapped */
	size_t npcs;
};

static void
read_module(const char *path, struct module *m)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t nph;
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph))
		die("%s: not an ELF file", path);
	for (size_t i = 0; i < nph && m->nsegs < SPOOL_MAX_SEGMENTS; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			m->segs[m->nsegs++] = (struct spool_segment){
				ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_flags };
	}
	size_t cap = 1024;
	m->pcs = xcalloc(cap, sizeof(*m->pcs));
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB &&
						sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF || s.st_size < 2)
				continue;
			if (m->npcs == cap) {
				m->pcs = realloc(m->pcs, (cap *= 2) * sizeof(*m->pcs));
				if (!m->pcs)
					die("out of memory");
			}
			m->pcs[m->npcs++] = BASE + s.st_value + s.st_size / 2;
		}
	}
	elf_end(elf);
	close(fd);
	if (!m->npcs)
		die("%s: no function symbols", path);
}

/* ---- output: a stream of chunks per thread ---- */

struct out {
	int fd;
	uint64_t next_off; /* the file's end, in whole chunks */
	uint64_t samples;
};

struct stream {
	uint8_t chunk[CHUNK];
	int has_chunk;
	uint64_t off;       /* of the chunk in the file */
	uint32_t pos;
	uint32_t batch;     /* offset of the open SAMPLES record, or 0 */
	uint32_t tid;
	uint64_t time_ns, weight; /* of its previous sample */
	uint32_t *ids;      /* stack index -> its id in this stream, 0 */
	uint32_t next_id;
};

static void
stream_flush(struct out *o, struct stream *s)
{
	if (!s->has_chunk)
		return;
	if (pwrite(o->fd, s->chunk, CHUNK, (off_t)s->off) != (ssize_t)CHUNK)
		die("write: %s", strerror(errno));
}

static void
stream_new_chunk(struct out *o, struct stream *s)
{
	stream_flush(o, s);
	memset(s->chunk, 0, CHUNK);
	s->off = o->next_off;
	o->next_off += CHUNK;
	s->has_chunk = 1;
	s->pos = 0;
	s->batch = 0;
}

/* Appends a whole record (header included). */
static void
stream_put(struct out *o, struct stream *s, const uint8_t *rec, size_t len)
{
	if (len > CHUNK)
		die("record too long");
	if (!s->has_chunk || CHUNK - s->pos < len)
		stream_new_chunk(o, s);
	memcpy(s->chunk + s->pos, rec, len);
	s->pos += (uint32_t)len;
	s->batch = 0;
}

/* Appends one entry to the stream's open SAMPLES record, or a new one. */
static void
stream_entry(struct out *o, struct stream *s, const uint8_t *e, size_t len)
{
	if (s->batch && CHUNK - s->pos >= len) {
		uint8_t *rec = s->chunk + s->batch;
		uint32_t plen = s->pos + (uint32_t)len - s->batch -
				SPOOL_REC_HEADER_LEN;
		for (int i = 0; i < 4; i++)
			rec[4 + i] = (uint8_t)(plen >> (8 * i));
		memcpy(s->chunk + s->pos, e, len);
		s->pos += (uint32_t)len;
		return;
	}
	uint8_t rec[SPOOL_REC_HEADER_LEN + SPOOL_SAMPLES_FIXED +
		    SPOOL_ENTRY_MAX(MAX_DEPTH)];
	struct spool_samples h = { .tid = s->tid, .stream = s->tid,
				   .time_ns = s->time_ns, .weight = s->weight };
	struct spool_buf b;
	spool_buf_init(&b, rec, sizeof(rec));
	if (spool_put_samples(&b, &h, e, len) < 0)
		die("entry too long");
	stream_put(o, s, rec, b.len);
	s->batch = s->pos - (uint32_t)b.len;
}

static void
put_thread(struct out *o, struct stream *s, uint32_t event, uint64_t t)
{
	uint8_t rec[256];
	struct spool_buf b;
	struct spool_thread th = { .time_ns = t, .tid = s->tid, .event = event,
				   .name = { "gen", 3 } };
	spool_buf_init(&b, rec, sizeof(rec));
	spool_put_thread(&b, &th);
	stream_put(o, s, rec, b.len);
}

/* ---- the stacks ---- */

/* k stacks of depth PCs, innermost first; each continues a random outer
 * part of an earlier one with random functions. */
static uint64_t *
make_paths(const struct module *m, uint64_t k, uint32_t depth, uint64_t *seed)
{
	uint64_t *paths = xcalloc(k * depth, sizeof(*paths));
	for (uint64_t i = 0; i < k; i++) {
		uint64_t *p = paths + i * depth;
		uint32_t keep = i ? (uint32_t)(rnd(seed) % depth) : 0;
		if (keep)
			memcpy(p + depth - keep,
			       paths + rnd(seed) % i * depth + depth - keep,
			       keep * sizeof(*p));
		for (uint32_t j = 0; j < depth - keep; j++)
			p[j] = m->pcs[rnd(seed) % m->npcs];
	}
	return paths;
}

struct opts {
	uint64_t samples, stacks;
	uint32_t depth, threads;
	int batched, jitter;
	uint64_t seed;
	const char *module, *out;
};

static void
write_samples(const struct opts *op, const struct module *m, struct out *o,
	      struct stream *st)
{
	uint64_t seed = op->seed | 1, pcs[MAX_DEPTH];
	uint64_t *paths = op->stacks ? make_paths(m, op->stacks, op->depth,
						  &seed)
				     : make_paths(m, 1024, op->depth, &seed);
	uint8_t buf[SPOOL_REC_HEADER_LEN + 64 + SPOOL_ENTRY_MAX(MAX_DEPTH)];

	for (uint64_t i = 0; i < op->samples; i++) {
		struct stream *s = &st[i % op->threads];
		double u = (double)(rnd(&seed) >> 11) / 9007199254740992.0;
		uint64_t k = op->stacks ? (uint64_t)(u * u * op->stacks)
					: rnd(&seed) % 1024;
		memcpy(pcs, paths + k * op->depth, op->depth * sizeof(*pcs));
		if (!op->stacks) /* a new innermost PC: a stack of its own */
			pcs[0] = m->pcs[rnd(&seed) % m->npcs] + i % 4096 - 2048;
		struct spool_sample smp = {
			.time_ns = s->time_ns + 1000000, .tid = s->tid,
			.kind = SPOOL_SAMPLE_TIME, .depth = op->depth,
			.weight = op->jitter ? 500000 + rnd(&seed) % 1000001
					     : 1000000,
		};
		if (op->batched) {
			uint32_t id = op->stacks ? s->ids[k] : 0;
			int define = !id;
			if (define && op->stacks)
				id = s->ids[k] = ++s->next_id;
			size_t n = spool_encode_entry(buf, sizeof(buf),
						      s->time_ns, s->weight,
						      &smp, id, define, pcs);
			if (!n)
				die("entry does not fit");
			stream_entry(o, s, buf, n);
		} else {
			struct spool_buf b;
			spool_buf_init(&b, buf, sizeof(buf));
			spool_put_sample(&b, &smp, pcs);
			stream_put(o, s, buf, b.len);
		}
		s->time_ns = smp.time_ns;
		s->weight = smp.weight;
		o->samples++;
	}
	free(paths);
}

static void
write_head(const struct opts *op, const struct module *m, struct out *o,
	   struct stream *s0, uint64_t start)
{
	uint8_t rec[8192];
	struct spool_buf b;
	struct spool_process p = {
		.pid = 4242, .ppid = 1, .start_realtime_ns = start,
		.start_mono_ns = start, .timer = SPOOL_TIMER_PERF,
		.clock = SPOOL_CLOCK_CPU, .period_ns = 1000000,
		.requested_hz = 1000, .max_depth = SPOOL_MAX_DEPTH,
		.exe = { op->module, (uint32_t)strlen(op->module) },
		.cmdline = { "genspool", 8 },
		.flags = SPOOL_PROCESS_USER_ONLY,
	};
	spool_buf_init(&b, rec, sizeof(rec));
	spool_put_file_header(&b, CHUNK);
	spool_put_process(&b, &p);
	struct spool_module_load ml = {
		.time_ns = start, .base = BASE,
		.path = { op->module, (uint32_t)strlen(op->module) },
		.nsegments = m->nsegs,
	};
	spool_put_module_load(&b, &ml, m->segs);
	if (b.err)
		die("header does not fit");
	/* Chunk 0 is the first stream's. */
	memcpy(s0->chunk, rec, b.len);
	s0->has_chunk = 1;
	s0->off = 0;
	s0->pos = (uint32_t)b.len;
	o->next_off = CHUNK;
}

static void
write_spool(const struct opts *op)
{
	struct module m = { 0 };
	struct out o = { 0 };
	uint64_t start = 1000000000ull;
	read_module(op->module, &m);
	struct stream *st = xcalloc(op->threads, sizeof(*st));
	o.fd = open(op->out, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o.fd < 0)
		die("%s: %s", op->out, strerror(errno));
	write_head(op, &m, &o, &st[0], start);
	for (uint32_t t = 0; t < op->threads; t++) {
		st[t].tid = 5000 + t;
		st[t].time_ns = start;
		st[t].ids = xcalloc(op->stacks, sizeof(*st[t].ids));
		put_thread(&o, &st[t], SPOOL_THREAD_START, start);
	}
	write_samples(op, &m, &o, st);
	uint64_t end = start;
	for (uint32_t t = 0; t < op->threads; t++) {
		put_thread(&o, &st[t], SPOOL_THREAD_EXIT, st[t].time_ns);
		stream_flush(&o, &st[t]);
		end = st[t].time_ns > end ? st[t].time_ns : end;
		free(st[t].ids);
	}
	uint8_t rec[512];
	struct spool_buf b;
	struct spool_footer f = {
		.end_mono_ns = end, .utime_ns = o.samples * 1000000,
		.samples = o.samples, .threads = op->threads,
		.end_reason = SPOOL_END_EXIT,
	};
	spool_buf_init(&b, rec, sizeof(rec));
	spool_put_footer(&b, &f);
	if (pwrite(o.fd, rec, b.len, (off_t)o.next_off) != (ssize_t)b.len ||
	    close(o.fd) != 0)
		die("write: %s", strerror(errno));
	free(st);
	free(m.pcs);
}

/* ---- --stat ---- */

static int
stat_spool(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0 || fstat(fd, &sb) < 0)
		die("%s: %s", path, strerror(errno));
	size_t size = (size_t)sb.st_size;
	void *map = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0)
			 : MAP_FAILED;
	close(fd);
	struct spool_cursor c;
	struct spool_rec r;
	if (map == MAP_FAILED || spool_cursor_init(&c, map, size) < 0)
		die("%s: not a spool", path);
	uint64_t samples = 0, sample_bytes = 0, recs = 0, stacks = 0;
	while (spool_next(&c, &r) == SPOOL_OK) {
		uint64_t n = spool_time_samples(&r);
		recs++;
		if (!n)
			continue;
		samples += n;
		sample_bytes += SPOOL_REC_HEADER_LEN + (uint64_t)r.len;
		struct spool_samples h;
		struct spool_entry_cursor ec;
		struct spool_entry e;
		if (r.type != SPOOL_REC_SAMPLES || spool_get_samples(&r, &h))
			continue;
		spool_entries_begin(&ec, &h);
		while (spool_entries_next(&ec, &e) == 1)
			stacks += e.define;
	}
	printf("%s: %zu bytes, %llu records, %llu time samples, %llu stack "
	       "definitions, %llu bytes of sample records; per sample: "
	       "%.1f bytes of file, %.1f of sample records\n",
	       path, size, (unsigned long long)recs,
	       (unsigned long long)samples, (unsigned long long)stacks,
	       (unsigned long long)sample_bytes,
	       samples ? (double)size / (double)samples : 0.0,
	       samples ? (double)sample_bytes / (double)samples : 0.0);
	munmap(map, size);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts op = { .samples = 1000000, .stacks = 10000, .depth = 30,
			   .threads = 1, .batched = 1, .seed = 1,
			   .module = "/proc/self/exe" };
	int c;
	if (argc == 3 && strcmp(argv[1], "--stat") == 0)
		return stat_spool(argv[2]);
	while ((c = getopt(argc, argv, "n:k:d:t:f:m:s:j")) != -1) {
		switch (c) {
		case 'n': op.samples = strtoull(optarg, NULL, 0); break;
		case 'k': op.stacks = strtoull(optarg, NULL, 0); break;
		case 'd': op.depth = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 't': op.threads = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'f': op.batched = strcmp(optarg, "sample") != 0; break;
		case 'm': op.module = optarg; break;
		case 's': op.seed = strtoull(optarg, NULL, 0); break;
		case 'j': op.jitter = 1; break;
		default:
			fprintf(stderr, "usage: genspool [-n N] [-k K] [-d D] "
				"[-t T] [-f samples|sample] [-m ELF] [-s SEED] "
				"[-j] OUT | genspool --stat SPOOL\n");
			return 2;
		}
	}
	if (optind != argc - 1 || !op.threads || !op.depth ||
	    op.depth > MAX_DEPTH)
		die("one OUT, -t 1.., -d 1..%u", MAX_DEPTH);
	/* The path the analyzer will open: not its own /proc/self/exe. */
	static char module[PATH_MAX];
	if (!realpath(op.module, module))
		die("%s: %s", op.module, strerror(errno));
	op.module = module;
	op.out = argv[optind];
	write_spool(&op);
	return 0;
}
