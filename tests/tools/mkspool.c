/*
 * mkspool: writes a spool from a textual description, for the analyzer's
 * golden tests. Usage: mkspool DESC OUT [SEDFILE]
 *
 * One directive per line; '#' starts a comment. Values are words or
 * "quoted strings" with \" \\ \xHH escapes; @BUILD@ and @SRC@ in a value
 * become $PROFRUN_BUILD_ROOT and $PROFRUN_SOURCE_ROOT, and @TMP@ the
 * golden test's scratch directory, $PROFRUN_GOLDEN_TMP. Numbers are
 * decimal or 0x hex.
 *
 *   process [pid=N] [timer=perf|posix|itimer|none] [clock=cpu|wall]
 *           [period=NS] [hz=N] [depth=N] [exe=PATH] [space=BYTES]
 *           [flags=user-only,perf-refused,perf-denied,perf-no-fd] [cmdline=ARGS]
 *       space= is the allocation sampling interval (default 0, off);
 *       user-only sets SPOOL_PROCESS_USER_ONLY, as the perf source does;
 *       perf-refused and perf-denied SPOOL_PROCESS_PERF_REFUSED (and
 *       _DENIED), perf-no-fd _REFUSED and _NO_FD, as an automatic choice
 *       that passed perf over does;
 *       cmdline= is stored as given (write \x00 between arguments;
 *       default "fixture").
 *   module path=PATH base=ADDR [time=NS] [buildid=HEX|none|file|of:ELF]
 *          [symbols=ELF] [seg=VADDR:MEMSZ]...
 *       Without seg= the PT_LOAD segments are read from the ELF file at
 *       PATH (or at symbols=ELF), whose function symbols then name
 *       frames. buildid defaults to that file's own ("file"); of:ELF
 *       takes another file's (a file changed since the run).
 *   image base=ADDR file=FILE [time=NS]
 *       A MODULE_IMAGE record holding FILE's bytes.
 *   unload path=PATH base=ADDR time=NS
 *   thread tid=N event=start|exit|name [name=NAME] [time=NS]
 *   sample tid=N time=NS weight=NS [flags=truncated,unwind,off-cpu]
 *          [repeat=N] [recurse=N]
 *          stack=FRAME,FRAME,...      (innermost frame first, as spooled)
 *       recurse=N repeats the innermost frame N more times (a recursion
 *       N + 1 deep), beyond the depth profrun writes.
 *       FRAME is NAME or NAME+OFF: the address of the function symbol NAME
 *       in the most recently loaded module that has it, plus OFF (default:
 *       the middle of the symbol); or an absolute 0xADDR.
 *   alloc tid=N time=NS size=N addr=ADDR weight=N [fn=NAME] [repeat=N]
 *         [flags=truncated,unwind,untracked] stack=FRAME,...
 *       An ALLOC (sampled allocation); fn is a counted function's name
 *       (default malloc). Repeated ones advance time by 1000 ns and the
 *       address by 0x1000.
 *   free tid=N time=NS addr=ADDR
 *   calls tid=N [NAME=COUNT]...
 *       A CALL_COUNTS record; NAME is a counted function's name (malloc,
 *       free, ...).
 *   arcs tid=N [time=NS] [missed=N] [arc=FN,SITE,COUNT]...
 *       A CALL_ARCS record: COUNT calls of the function at FRAME FN (give
 *       NAME+0, its entry) from the return address FRAME SITE.
 *   footer [utime=NS] [stime=NS] [samples=N] [threads=N] [CAUSE=N]...
 *       samples defaults to the number of samples written; CAUSE is a
 *       drop cause name (ring-full, no-ring, ...).
 *   synth tid=N samples=N [depth=N] [paths=N] [seed=N] [weight=NS]
 *         [time=NS] [distinct=ADDR]
 *       For benchmarks: samples samples over paths random stacks (default
 *       10000) of depth frames (default 30), made of the functions of the
 *       most recently loaded module. Stacks share call paths the way a
 *       program's do (each starts with a random part of an earlier one)
 *       and are picked with a skew toward the first ones. distinct=ADDR
 *       instead gives every frame of every sample a PC of its own, ADDR,
 *       ADDR + 16 and so on (the worst case for memory: nothing shared).
 *   synthmods count=N path=PATH base=ADDR [step=BYTES] [size=BYTES]
 *             [time=NS] [every=NS] [life=NS]
 *       For the scale tests: N loads of PATH (read from no file: one
 *       segment of size bytes, default 0x10000), the k-th at base + k *
 *       step (default 0x1000, so neighbours overlap) and time + k * every
 *       (default 1000), unloaded life ns later (default 500; 0: never).
 *       Frames at these addresses are given as 0xADDR.
 *   perfmap text=STRING [pid=N] [part=N] [flags=N]
 *       A PERF_MAP record: lines of a perf map ("START SIZE name", \x0a
 *       between them); pid defaults to 1, part to 0, flags to 1 (LAST).
 *   record type=N [len=N]             a record of that type, zero payload
 *   badlen                            a record header with an impossible
 *                                     length
 *   cut N                             drop the last N bytes of the file
 *
 * Repeated samples advance time by 1000 ns each.
 *
 * With MKSPOOL_SAMPLES=batched in the environment, time samples (sample
 * and synth) are written as SAMPLES records (format 2.3) instead of
 * SAMPLE records, and allocations and releases (alloc and free) as ALLOCS
 * records (format 2.5, one per line) instead of ALLOC and FREE, each
 * thread's stacks defined once and referred to after that by either kind
 * (stream = tid): the golden tests run some cases both ways to check
 * that the two read the same.
 *
 * Where a frame was given by name, the analyzer may still show it as
 * BASENAME+0xOFFSET (a stripped or broken file), and the offset depends
 * on how the compiler laid out the fixture. SEDFILE receives one sed
 * command per named frame rewriting that form into BASENAME+NAME+OFF, so
 * expected reports can be written without knowing the layout; and one
 * rewriting each build-id read from a file into @BUILDID:BASENAME@.
 */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_WORDS 64
#define MAX_MODULES 64
#define MAX_SYMS 4096
#define REC_BUF (1u << 20)

struct sym {
	char *name;
	uint64_t value, size;
};

struct module {
	const char *base_name; /* of the path the spool records */
	uint64_t base;
	struct sym *syms;
	size_t nsyms;
};

struct gen {
	const char *desc;
	int line;
	FILE *out;
	uint8_t *buf;
	struct module mods[MAX_MODULES];
	size_t nmods;
	uint64_t samples;
	uint64_t cut;
	FILE *sed;
	bool batched;  /* MKSPOOL_SAMPLES=batched */
	struct bstream *streams;
	size_t nstreams;
};

/* A thread's stream of SAMPLES entries (batched mode). */
struct bstream {
	uint32_t tid;
	uint64_t time_ns, weight; /* of the previous entry */
	size_t nstacks;
	struct bstack {
		uint16_t flags;
		uint32_t depth;
		uint64_t *pcs;
	} *stacks;
	uint8_t *entries; /* of the record being made */
	size_t len;
	uint64_t rec_time, rec_weight;
	struct spool_space_chain space; /* of the previous ALLOCS entry */
};

static struct gen g;

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "mkspool: %s:%d: ", g.desc, g.line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- description parsing ---- */

struct word {
	char *key;   /* NULL for a bare word */
	char *val;
	size_t len;  /* of val (it may hold NUL bytes) */
};

static void
append(char **s, size_t *len, size_t *cap, const char *p, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*s = realloc(*s, *cap);
		if (!*s)
			die("out of memory");
	}
	memcpy(*s + *len, p, n);
	*len += n;
	(*s)[*len] = '\0';
}

/* Appends one source character of a value, expanding @BUILD@ / @SRC@. */
static const char *
value_char(const char *p, char **s, size_t *len, size_t *cap)
{
	static const struct { const char *tag, *env; } vars[] = {
		{ "@BUILD@", "PROFRUN_BUILD_ROOT" },
		{ "@SRC@", "PROFRUN_SOURCE_ROOT" },
		{ "@TMP@", "PROFRUN_GOLDEN_TMP" },
	};
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		size_t tl = strlen(vars[i].tag);
		if (strncmp(p, vars[i].tag, tl) != 0)
			continue;
		const char *v = getenv(vars[i].env);
		if (!v)
			die("%s is not set", vars[i].env);
		append(s, len, cap, v, strlen(v));
		return p + tl;
	}
	if (*p == '\\' && p[1] == 'x' && p[2] && p[3]) {
		char hex[3] = { p[2], p[3], 0 };
		char c = (char)strtoul(hex, NULL, 16);
		append(s, len, cap, &c, 1);
		return p + 4;
	}
	if (*p == '\\' && p[1]) {
		append(s, len, cap, p + 1, 1);
		return p + 2;
	}
	append(s, len, cap, p, 1);
	return p + 1;
}

static const char *
parse_value(const char *p, struct word *w)
{
	size_t cap = 0;
	bool quoted = *p == '"';
	w->val = NULL;
	w->len = 0;
	append(&w->val, &w->len, &cap, "", 0);
	if (quoted)
		p++;
	while (*p && (quoted ? *p != '"' : (*p != ' ' && *p != '\t')))
		p = value_char(p, &w->val, &w->len, &cap);
	if (quoted) {
		if (*p != '"')
			die("unterminated string");
		p++;
	}
	return p;
}

static size_t
split(char *line, struct word *words)
{
	size_t n = 0;
	char *p = line;
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			return n;
		if (n == MAX_WORDS)
			die("too many words");
		struct word *w = &words[n++];
		char *eq = strchr(p, '=');
		char *sp = p + strcspn(p, " \t");
		w->key = NULL;
		if (eq && eq < sp && *p != '"') {
			w->key = strndup(p, (size_t)(eq - p));
			p = eq + 1;
		}
		p = (char *)parse_value(p, w);
	}
}

static uint64_t
num(const char *s)
{
	char *end;
	errno = 0;
	uint64_t v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		die("bad number '%s'", s);
	return v;
}

static const struct word *
find(const struct word *w, size_t n, const char *key)
{
	for (size_t i = 1; i < n; i++)
		if (w[i].key && strcmp(w[i].key, key) == 0)
			return &w[i];
	return NULL;
}

static uint64_t
num_or(const struct word *w, size_t n, const char *key, uint64_t dflt)
{
	const struct word *x = find(w, n, key);
	return x ? num(x->val) : dflt;
}

static const struct word *
need(const struct word *w, size_t n, const char *key)
{
	const struct word *x = find(w, n, key);
	if (!x)
		die("'%s' needs %s=", w[0].val, key);
	return x;
}

static uint32_t
pick(const char *what, const char *val, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], val) == 0)
			return (uint32_t)i;
	die("unknown %s '%s'", what, val);
}

/* ---- output ---- */

static void
flush_record(struct spool_buf *b)
{
	if (b->err)
		die("record does not fit");
	if (fwrite(b->data, 1, b->len, g.out) != b->len)
		die("write: %s", strerror(errno));
}

/* ---- ELF files named by module directives ---- */

struct elf_info {
	struct spool_segment segs[SPOOL_MAX_SEGMENTS];
	uint32_t nsegs;
	uint8_t build_id[64];
	uint32_t build_id_len;
};

static void
elf_symbols(Elf *elf, struct module *m)
{
	Elf_Scn *scn = NULL;
	m->syms = calloc(MAX_SYMS, sizeof(*m->syms));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t count = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < count && m->nsyms < MAX_SYMS; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) ||
			    GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			const char *nm = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!nm)
				continue;
			struct sym *y = &m->syms[m->nsyms++];
			y->name = strdup(nm);
			y->value = s.st_value;
			y->size = s.st_size;
		}
	}
}

static void
elf_build_id(Elf *elf, struct elf_info *info)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		GElf_Nhdr nh;
		size_t off = 0, no, dof;
		while (d && (off = gelf_getnote(d, off, &nh, &no, &dof))) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz > 64)
				continue;
			memcpy(info->build_id, (uint8_t *)d->d_buf + dof,
			       nh.n_descsz);
			info->build_id_len = nh.n_descsz;
		}
	}
}

/* Reads segments, build-id and symbols of path; false when it is not a
 * readable ELF file (the module then needs seg=). */
static bool
read_elf(const char *path, struct elf_info *info, struct module *m)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	size_t nph;
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return false;
	}
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    info->nsegs == SPOOL_MAX_SEGMENTS)
			continue;
		info->segs[info->nsegs++] = (struct spool_segment){
			ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_flags,
		};
	}
	elf_build_id(elf, info);
	elf_symbols(elf, m);
	elf_end(elf);
	close(fd);
	return true;
}

static size_t
parse_hex(const char *s, uint8_t *out, size_t max)
{
	size_t n = strlen(s) / 2;
	if (n > max || strlen(s) % 2)
		die("bad build-id '%s'", s);
	for (size_t i = 0; i < n; i++) {
		char b[3] = { s[2 * i], s[2 * i + 1], 0 };
		out[i] = (uint8_t)strtoul(b, NULL, 16);
	}
	return n;
}

static void
module_segments(const struct word *w, size_t n, struct elf_info *info)
{
	info->nsegs = 0;
	for (size_t i = 1; i < n; i++) {
		if (!w[i].key || strcmp(w[i].key, "seg") != 0)
			continue;
		char *colon = strchr(w[i].val, ':');
		if (!colon || info->nsegs == SPOOL_MAX_SEGMENTS)
			die("seg= wants VADDR:MEMSZ");
		*colon = '\0';
		info->segs[info->nsegs++] = (struct spool_segment){
			num(w[i].val), num(colon + 1), 0, 5,
		};
	}
}

/* ---- directives ---- */

static void
do_process(struct spool_buf *b, const struct word *w, size_t n)
{
	static const char *const timers[] = { "none", "perf", "posix", "itimer" };
	static const char *const clocks[] = { NULL, "cpu", "wall" };
	const struct word *exe = find(w, n, "exe");
	const struct word *t = find(w, n, "timer"), *c = find(w, n, "clock");
	const struct word *flags = find(w, n, "flags");
	const struct word *cmd = find(w, n, "cmdline");
	struct spool_process p = {
		.pid = (uint32_t)num_or(w, n, "pid", 1000),
		.ppid = 1,
		.timer = t ? pick("timer", t->val, timers, 4) : SPOOL_TIMER_PERF,
		.clock = c ? pick("clock", c->val, clocks, 3) : SPOOL_CLOCK_CPU,
		.period_ns = num_or(w, n, "period", 1000000),
		.requested_hz = (uint32_t)num_or(w, n, "hz", 1000),
		.max_depth = (uint32_t)num_or(w, n, "depth", SPOOL_MAX_DEPTH),
		.exe = { exe ? exe->val : "/usr/bin/fixture",
			 (uint32_t)(exe ? exe->len : 16) },
		.cmdline = { cmd ? cmd->val : "fixture",
			     (uint32_t)(cmd ? cmd->len : 7) },
		.space_interval = num_or(w, n, "space", 0),
	};
	if (flags && strstr(flags->val, "user-only"))
		p.flags |= SPOOL_PROCESS_USER_ONLY;
	if (flags && strstr(flags->val, "perf-refused"))
		p.flags |= SPOOL_PROCESS_PERF_REFUSED;
	if (flags && strstr(flags->val, "perf-denied"))
		p.flags |= SPOOL_PROCESS_PERF_REFUSED |
			   SPOOL_PROCESS_PERF_DENIED;
	if (flags && strstr(flags->val, "perf-no-fd"))
		p.flags |= SPOOL_PROCESS_PERF_REFUSED |
			   SPOOL_PROCESS_PERF_NO_FD;
	spool_put_process(b, &p);
}

/* Writes the sed command that turns a build-id read from file (a given
 * one, literal, is left as it is) into @BUILDID:BASENAME@. */
static void
sed_build_id(const struct elf_info *info, const char *file, bool literal)
{
	const char *slash = strrchr(file, '/');

	if (!g.sed || literal || !info->build_id_len)
		return;
	fputs("s/", g.sed);
	for (uint32_t i = 0; i < info->build_id_len; i++)
		fprintf(g.sed, "%02x", info->build_id[i]);
	fprintf(g.sed, "/@BUILDID:%s@/g\n", slash ? slash + 1 : file);
}

static void
do_module(struct spool_buf *b, const struct word *w, size_t n)
{
	const struct word *path = need(w, n, "path");
	const struct word *bid = find(w, n, "buildid");
	struct elf_info info = { .nsegs = 0 };
	struct module *m = &g.mods[g.nmods];

	if (g.nmods == MAX_MODULES)
		die("too many modules");
	const struct word *symbols = find(w, n, "symbols");
	const char *elf = symbols ? symbols->val : path->val;
	const char *slash = strrchr(path->val, '/');
	m->base_name = strdup(slash ? slash + 1 : path->val);
	m->base = num(need(w, n, "base")->val);
	if (!find(w, n, "seg") && !read_elf(elf, &info, m))
		die("%s is no ELF file: give seg=", elf);
	if (find(w, n, "seg"))
		module_segments(w, n, &info);
	if (bid && strcmp(bid->val, "none") == 0) {
		info.build_id_len = 0;
	} else if (bid && strncmp(bid->val, "of:", 3) == 0) {
		struct elf_info other = { .nsegs = 0 };
		struct module scratch = { .nsyms = 0 };
		if (!read_elf(bid->val + 3, &other, &scratch))
			die("%s is no ELF file", bid->val + 3);
		memcpy(info.build_id, other.build_id, other.build_id_len);
		info.build_id_len = other.build_id_len;
		for (size_t k = 0; k < scratch.nsyms; k++)
			free(scratch.syms[k].name);
		free(scratch.syms);
	} else if (bid && strcmp(bid->val, "file") != 0) {
		info.build_id_len = (uint32_t)parse_hex(bid->val, info.build_id,
							 sizeof(info.build_id));
	}
	/* A build-id read from a file depends on the build: the expected
	 * output names it @BUILDID:FILE@. */
	if (!bid || strcmp(bid->val, "none") != 0)
		sed_build_id(&info, bid && strncmp(bid->val, "of:", 3) == 0 ?
					    bid->val + 3 : elf,
			     bid && strncmp(bid->val, "of:", 3) != 0 &&
				     strcmp(bid->val, "file") != 0);
	struct spool_module_load ml = {
		.time_ns = num_or(w, n, "time", 0),
		.base = m->base,
		.path = { path->val, (uint32_t)path->len },
		.build_id = info.build_id,
		.build_id_len = info.build_id_len,
		.nsegments = info.nsegs,
	};
	spool_put_module_load(b, &ml, info.segs);
	g.nmods++;
}

static void
do_unload(struct spool_buf *b, const struct word *w, size_t n)
{
	const struct word *path = need(w, n, "path");
	struct spool_module_unload mu = {
		.time_ns = num(need(w, n, "time")->val),
		.base = num(need(w, n, "base")->val),
		.path = { path->val, (uint32_t)path->len },
	};
	spool_put_module_unload(b, &mu);
}

static void
do_image(struct spool_buf *b, const struct word *w, size_t n)
{
	const char *path = need(w, n, "file")->val;
	FILE *f = fopen(path, "rb");
	static uint8_t data[REC_BUF / 2];
	if (!f)
		die("%s: %s", path, strerror(errno));
	size_t len = fread(data, 1, sizeof(data), f);
	if (ferror(f) || !feof(f))
		die("%s: cannot read it whole", path);
	fclose(f);
	struct spool_module_image im = {
		.time_ns = num_or(w, n, "time", 0),
		.base = num(need(w, n, "base")->val),
		.data = data,
		.len = (uint32_t)len,
	};
	spool_put_module_image(b, &im);
}

static void
do_thread(struct spool_buf *b, const struct word *w, size_t n)
{
	static const char *const events[] = { NULL, "start", "exit", "name" };
	const struct word *name = find(w, n, "name");
	struct spool_thread t = {
		.time_ns = num_or(w, n, "time", 0),
		.tid = (uint32_t)num(need(w, n, "tid")->val),
		.event = pick("event", need(w, n, "event")->val, events, 4),
		.name = { name ? name->val : "", (uint32_t)(name ? name->len : 0) },
	};
	spool_put_thread(b, &t);
}

static void
note_offset(const struct module *m, const struct sym *s, uint64_t off)
{
	fputs("s/", g.sed);
	for (const char *c = m->base_name; *c; c++) {
		if (strchr(".[]*^$\\/", *c))
			fputc('\\', g.sed);
		fputc(*c, g.sed);
	}
	fprintf(g.sed, "+0x%llx\\b/", (unsigned long long)(s->value + off));
	for (const char *c = m->base_name; *c; c++) {
		if (strchr("/&\\", *c))
			fputc('\\', g.sed);
		fputc(*c, g.sed);
	}
	fprintf(g.sed, "+%s+%llu/g\n", s->name, (unsigned long long)off);
}

/* Writes the sed commands that turn the unnamed forms of a named frame
 * back into its name (see the top of the file): its own offset, and the
 * function's start, by which the analyzer names the unnamed PCs of a
 * function its unwind tables know. */
static void
note_frame(const struct module *m, const struct sym *s, uint64_t off)
{
	if (!g.sed)
		return;
	note_offset(m, s, off);
	if (off)
		note_offset(m, s, 0);
}

/* The address a FRAME word stands for. */
static uint64_t
frame_pc(char *frame)
{
	if (strncmp(frame, "0x", 2) == 0)
		return num(frame);
	char *plus = strchr(frame, '+');
	if (plus)
		*plus = '\0';
	for (size_t i = g.nmods; i-- > 0;) {
		const struct module *m = &g.mods[i];
		for (size_t k = 0; k < m->nsyms; k++) {
			const struct sym *s = &m->syms[k];
			if (strcmp(s->name, frame) != 0)
				continue;
			uint64_t off = plus ? num(plus + 1) : s->size / 2;
			note_frame(m, s, off);
			return m->base + s->value + off;
		}
	}
	die("no module has a function '%s'", frame);
}

static uint32_t
parse_stack(char *list, uint64_t *pcs)
{
	uint32_t depth = 0;
	for (char *f = strtok(list, ","); f; f = strtok(NULL, ",")) {
		if (depth == SPOOL_MAX_DEPTH)
			die("stack too deep");
		pcs[depth++] = frame_pc(f);
	}
	return depth;
}

static struct bstream *
bstream(uint32_t tid)
{
	for (size_t i = 0; i < g.nstreams; i++)
		if (g.streams[i].tid == tid)
			return &g.streams[i];
	g.streams = realloc(g.streams, (g.nstreams + 1) * sizeof(*g.streams));
	if (!g.streams)
		die("out of memory");
	struct bstream *st = &g.streams[g.nstreams++];
	memset(st, 0, sizeof(*st));
	st->tid = tid;
	st->entries = malloc(REC_BUF / 2);
	if (!st->entries)
		die("out of memory");
	return st;
}

/* Writes the stream's pending entries as one SAMPLES record. */
static void
bstream_flush(struct spool_buf *b, struct bstream *st)
{
	if (!st->len)
		return;
	struct spool_samples h = { .tid = st->tid, .stream = st->tid,
				   .time_ns = st->rec_time,
				   .weight = st->rec_weight };
	b->len = 0;
	spool_put_samples(b, &h, st->entries, st->len);
	flush_record(b);
	b->len = 0;
	st->len = 0;
}

static void
flush_batched(struct spool_buf *b);

/* The id of a stack in the stream, taken by the stack when new
 * (*define set then). */
static uint32_t
bstack_id(struct bstream *st, uint16_t flags, uint32_t depth,
	  const uint64_t *pcs, int *define)
{
	for (size_t i = 0; i < st->nstacks; i++) {
		const struct bstack *k = &st->stacks[i];
		if (k->flags == flags && k->depth == depth &&
		    !memcmp(k->pcs, pcs, depth * sizeof(*pcs))) {
			*define = 0;
			return (uint32_t)i + 1;
		}
	}
	st->stacks = realloc(st->stacks, (st->nstacks + 1) * sizeof(*st->stacks));
	uint64_t *copy = malloc((depth + 1) * sizeof(*copy));
	if (!st->stacks || !copy)
		die("out of memory");
	memcpy(copy, pcs, depth * sizeof(*pcs));
	st->stacks[st->nstacks++] = (struct bstack){ flags, depth, copy };
	*define = 1;
	return (uint32_t)st->nstacks;
}

/* Writes the len bytes of entries made in st->entries as an ALLOCS record
 * whose first entry follows prev. */
static void
put_allocs_record(struct spool_buf *b, struct bstream *st,
		  const struct spool_space_chain *prev, size_t len)
{
	struct spool_allocs h = { .tid = st->tid, .stream = st->tid,
				  .prev = *prev };
	b->len = 0;
	spool_put_allocs(b, &h, st->entries, len);
	flush_record(b);
	b->len = 0;
}

/* An alloc line's allocations (the time and address moving as in
 * do_alloc) as an ALLOCS record of their thread's stream. */
static void
put_allocs(struct spool_buf *b, struct spool_alloc *a, const uint64_t *pcs,
	   uint64_t repeat)
{
	flush_batched(b);
	struct bstream *st = bstream(a->tid);
	int define;
	uint32_t id = bstack_id(st,
				spool_alloc_stack_flags(a->flags),
				a->depth, pcs, &define);
	struct spool_space_chain first = st->space;
	size_t len = 0;
	for (uint64_t i = 0; i < repeat; i++) {
		if (len + SPOOL_SPACE_ENTRY_MAX(a->depth) > REC_BUF / 2 - 64) {
			put_allocs_record(b, st, &first, len);
			first = st->space;
			len = 0;
		}
		size_t n = spool_encode_space_alloc(st->entries + len,
						    REC_BUF / 2 - len,
						    &st->space, a, id,
						    define && i == 0, pcs);
		if (!n)
			die("entry does not fit");
		len += n;
		st->space = (struct spool_space_chain){ a->time_ns, a->address,
							a->weight };
		a->time_ns += 1000;
		a->address += 0x1000;
	}
	put_allocs_record(b, st, &first, len);
}

/* A free line as an ALLOCS record of its thread's stream. */
static void
put_release(struct spool_buf *b, const struct spool_free *f)
{
	flush_batched(b);
	struct bstream *st = bstream(f->tid);
	struct spool_space_chain first = st->space;
	size_t n = spool_encode_space_free(st->entries, REC_BUF / 2, &first, f);
	if (!n)
		die("entry does not fit");
	st->space.time_ns = f->time_ns;
	st->space.address = f->address;
	put_allocs_record(b, st, &first, n);
}

/* Adds a time sample to its thread's pending SAMPLES record. */
static void
put_batched(struct spool_buf *b, const struct spool_sample *s,
	    const uint64_t *pcs)
{
	struct bstream *st = bstream(s->tid);
	int define;
	uint32_t id = bstack_id(st, s->flags, s->depth, pcs, &define);
	if (st->len + SPOOL_ENTRY_MAX(s->depth) > REC_BUF / 2 - 64)
		bstream_flush(b, st);
	if (!st->len) {
		st->rec_time = st->time_ns;
		st->rec_weight = st->weight;
	}
	size_t n = spool_encode_entry(st->entries + st->len,
				      REC_BUF / 2 - st->len, st->time_ns,
				      st->weight, s, id, define, pcs);
	if (!n)
		die("entry does not fit");
	st->len += n;
	st->time_ns = s->time_ns;
	st->weight = s->weight;
}

/* A time sample as a SAMPLE record, or batched. */
static void
put_time_sample(struct spool_buf *b, const struct spool_sample *s,
		const uint64_t *pcs)
{
	b->len = 0;
	if (g.batched && s->kind == SPOOL_SAMPLE_TIME) {
		put_batched(b, s, pcs);
		return;
	}
	spool_put_sample(b, s, pcs);
	flush_record(b);
}

static void
flush_batched(struct spool_buf *b)
{
	for (size_t i = 0; i < g.nstreams; i++)
		bstream_flush(b, &g.streams[i]);
	b->len = 0;
}

static void
do_sample(struct spool_buf *b, const struct word *w, size_t n)
{
	uint64_t pcs[SPOOL_MAX_DEPTH];
	const struct word *flags = find(w, n, "flags");
	const struct word *stack = find(w, n, "stack");
	struct spool_sample s = {
		.time_ns = num(need(w, n, "time")->val),
		.tid = (uint32_t)num(need(w, n, "tid")->val),
		.kind = (uint16_t)num_or(w, n, "kind", SPOOL_SAMPLE_TIME),
		.weight = num(need(w, n, "weight")->val),
	};
	if (flags && strstr(flags->val, "truncated"))
		s.flags |= SPOOL_SAMPLE_TRUNCATED;
	if (flags && strstr(flags->val, "unwind"))
		s.flags |= SPOOL_SAMPLE_UNWIND_ERR;
	if (flags && strstr(flags->val, "off-cpu"))
		s.flags |= SPOOL_SAMPLE_OFF_CPU;
	s.depth = stack ? parse_stack(stack->val, pcs) : 0;
	uint64_t recurse = num_or(w, n, "recurse", 0);
	uint64_t *all = pcs;
	if (recurse) {
		if (!s.depth || recurse > (REC_BUF - 256) / 8 - s.depth)
			die("recurse= wants a stack and fewer frames");
		all = calloc(s.depth + recurse, sizeof(*all));
		if (!all)
			die("out of memory");
		for (uint64_t i = 0; i < recurse; i++)
			all[i] = pcs[0];
		memcpy(all + recurse, pcs, s.depth * sizeof(*pcs));
		s.depth += (uint32_t)recurse;
	}
	uint64_t repeat = num_or(w, n, "repeat", 1);
	for (uint64_t i = 0; i < repeat; i++) {
		put_time_sample(b, &s, all);
		s.time_ns += 1000;
		g.samples++;
	}
	flush_batched(b);
	if (all != pcs)
		free(all);
	b->len = 0;
}

static uint32_t
alloc_fn(const char *name)
{
	for (uint32_t id = 0; id < SPOOL_ALLOC_FN_MAX_; id++)
		if (strcmp(name, spool_alloc_fn_name(id)) == 0)
			return id;
	die("unknown counted function '%s'", name);
}

static void
do_alloc(struct spool_buf *b, const struct word *w, size_t n)
{
	uint64_t pcs[SPOOL_MAX_DEPTH];
	const struct word *flags = find(w, n, "flags");
	const struct word *stack = find(w, n, "stack");
	const struct word *fn = find(w, n, "fn");
	struct spool_alloc a = {
		.time_ns = num(need(w, n, "time")->val),
		.tid = (uint32_t)num(need(w, n, "tid")->val),
		.size = num(need(w, n, "size")->val),
		.address = num(need(w, n, "addr")->val),
		.weight = num(need(w, n, "weight")->val),
		.fn = fn ? alloc_fn(fn->val) : SPOOL_ALLOC_FN_MALLOC,
	};
	if (flags && strstr(flags->val, "truncated"))
		a.flags |= SPOOL_SAMPLE_TRUNCATED;
	if (flags && strstr(flags->val, "unwind"))
		a.flags |= SPOOL_SAMPLE_UNWIND_ERR;
	if (flags && strstr(flags->val, "untracked"))
		a.flags |= SPOOL_ALLOC_UNTRACKED;
	a.depth = stack ? parse_stack(stack->val, pcs) : 0;
	uint64_t repeat = num_or(w, n, "repeat", 1);
	if (g.batched) {
		put_allocs(b, &a, pcs, repeat);
		return;
	}
	for (uint64_t i = 0; i < repeat; i++) {
		b->len = 0;
		spool_put_alloc(b, &a, pcs);
		flush_record(b);
		a.time_ns += 1000;
		a.address += 0x1000;
	}
	b->len = 0;
}

static void
do_free(struct spool_buf *b, const struct word *w, size_t n)
{
	struct spool_free f = {
		.time_ns = num(need(w, n, "time")->val),
		.tid = (uint32_t)num(need(w, n, "tid")->val),
		.address = num(need(w, n, "addr")->val),
	};
	if (g.batched)
		put_release(b, &f);
	else
		spool_put_free(b, &f);
}

static void
do_calls(struct spool_buf *b, const struct word *w, size_t n)
{
	uint64_t counts[SPOOL_ALLOC_FN_MAX_] = { 0 };
	for (size_t i = 1; i < n; i++)
		if (w[i].key && strcmp(w[i].key, "tid") != 0)
			counts[alloc_fn(w[i].key)] = num(w[i].val);
	spool_put_call_counts(b, (uint32_t)num(need(w, n, "tid")->val), counts,
			      SPOOL_ALLOC_FN_MAX_);
}

static void
do_arcs(struct spool_buf *b, const struct word *w, size_t n)
{
	struct spool_call_arc arcs[64];
	struct spool_call_arcs ca = {
		.time_ns = num_or(w, n, "time", 0),
		.tid = (uint32_t)num(need(w, n, "tid")->val),
		.missed = num_or(w, n, "missed", 0),
	};
	for (size_t i = 1; i < n; i++) {
		if (!w[i].key || strcmp(w[i].key, "arc") != 0)
			continue;
		if (ca.n == 64)
			die("too many arcs");
		char *v = strdup(w[i].val);
		char *fn = strtok(v, ","), *site = strtok(NULL, ",");
		char *count = strtok(NULL, ",");
		if (!fn || !site || !count)
			die("arc=%s: want FN,SITE,COUNT", w[i].val);
		uint64_t c = num(count);
		uint64_t f = frame_pc(fn);
		arcs[ca.n++] = (struct spool_call_arc){ f, frame_pc(site), c };
		free(v);
	}
	spool_put_call_arcs(b, &ca, arcs);
}

/* xorshift64: fast, and the same spool for the same seed everywhere. */
static uint64_t
rnd(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* The PCs the synthetic stacks use: the middle of each function of the
 * last module that is long enough to hold a return address. */
static uint64_t *
synth_pcs(size_t *n)
{
	const struct module *m = g.nmods ? &g.mods[g.nmods - 1] : NULL;
	uint64_t *pcs = calloc(m ? m->nsyms + 1 : 1, sizeof(*pcs));
	*n = 0;
	for (size_t i = 0; m && i < m->nsyms; i++)
		if (m->syms[i].size >= 2)
			pcs[(*n)++] = m->base + m->syms[i].value +
				      m->syms[i].size / 2;
	if (*n == 0)
		die("synth needs a module with function symbols");
	return pcs;
}

/* npaths stacks of depth PCs, root first; each copies a random outer part
 * of an earlier one and continues with random functions. */
static uint64_t *
synth_paths(uint64_t npaths, uint32_t depth, uint64_t *seed)
{
	size_t nfn;
	uint64_t *fn = synth_pcs(&nfn);
	uint64_t *paths = calloc(npaths * depth, sizeof(*paths));
	if (!paths)
		die("out of memory");
	for (uint64_t k = 0; k < npaths; k++) {
		uint64_t *pk = paths + k * depth;
		uint32_t keep = 0;
		if (k) {
			keep = (uint32_t)(rnd(seed) % depth);
			memcpy(pk, paths + rnd(seed) % k * depth,
			       keep * sizeof(*pk));
		}
		for (uint32_t i = keep; i < depth; i++)
			pk[i] = fn[rnd(seed) % nfn];
	}
	free(fn);
	return paths;
}

static void
do_synth(struct spool_buf *b, const struct word *w, size_t n)
{
	uint64_t pcs[SPOOL_MAX_DEPTH];
	uint64_t count = num(need(w, n, "samples")->val);
	uint64_t npaths = num_or(w, n, "paths", 10000);
	uint64_t seed = num_or(w, n, "seed", 1) | 1;
	uint32_t depth = (uint32_t)num_or(w, n, "depth", 30);
	struct spool_sample s = {
		.time_ns = num_or(w, n, "time", 0),
		.tid = (uint32_t)num(need(w, n, "tid")->val),
		.kind = SPOOL_SAMPLE_TIME,
		.weight = num_or(w, n, "weight", 1000000),
		.depth = depth,
	};

	if (depth == 0 || depth > SPOOL_MAX_DEPTH || npaths == 0)
		die("synth wants depth=1..%u and paths > 0", SPOOL_MAX_DEPTH);
	uint64_t next_pc = num_or(w, n, "distinct", 0);
	uint64_t *paths = next_pc ? NULL : synth_paths(npaths, depth, &seed);
	for (uint64_t i = 0; i < count; i++) {
		/* u^2 with u uniform in [0, 1): early paths are hot. */
		double u = (double)(rnd(&seed) >> 11) / 9007199254740992.0;
		const uint64_t *pk = paths ? paths + (uint64_t)(u * u * npaths) *
							     depth
					   : NULL;
		for (uint32_t j = 0; j < depth; j++)
			pcs[j] = pk ? pk[depth - 1 - j] : (next_pc += 16);
		put_time_sample(b, &s, pcs);
		s.time_ns += 1000;
	}
	flush_batched(b);
	g.samples += count;
	b->len = 0;
	free(paths);
}

static void
do_synthmods(struct spool_buf *b, const struct word *w, size_t n)
{
	const struct word *path = need(w, n, "path");
	uint64_t count = num(need(w, n, "count")->val);
	uint64_t base = num(need(w, n, "base")->val);
	uint64_t step = num_or(w, n, "step", 0x1000);
	uint64_t every = num_or(w, n, "every", 1000);
	uint64_t life = num_or(w, n, "life", 500);
	uint64_t t = num_or(w, n, "time", 0);
	struct spool_segment seg = { 0, num_or(w, n, "size", 0x10000), 0, 5 };

	for (uint64_t k = 0; k < count; k++, t += every) {
		struct spool_module_load ml = {
			.time_ns = t, .base = base + k * step,
			.path = { path->val, (uint32_t)path->len },
			.nsegments = 1,
		};
		b->len = 0;
		spool_put_module_load(b, &ml, &seg);
		flush_record(b);
		if (!life)
			continue;
		struct spool_module_unload mu = {
			.time_ns = t + life, .base = ml.base, .path = ml.path,
		};
		b->len = 0;
		spool_put_module_unload(b, &mu);
		flush_record(b);
	}
	b->len = 0;
}

static void
do_footer(struct spool_buf *b, const struct word *w, size_t n)
{
	struct spool_footer f = {
		.end_mono_ns = num_or(w, n, "end", 0),
		.utime_ns = num_or(w, n, "utime", 0),
		.stime_ns = num_or(w, n, "stime", 0),
		.samples = num_or(w, n, "samples", g.samples),
		.threads = (uint32_t)num_or(w, n, "threads", 1),
	};
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++)
		f.drops[c] = num_or(w, n, spool_drop_name(c), 0);
	spool_put_footer(b, &f);
}

static void
do_record(struct spool_buf *b, const struct word *w, size_t n, bool bad)
{
	uint32_t type = bad ? SPOOL_REC_SAMPLE
			    : (uint32_t)num(need(w, n, "type")->val);
	uint32_t len = bad ? 0xfffffff0u : (uint32_t)num_or(w, n, "len", 0);
	if (len > REC_BUF - 8 && !bad)
		die("len too large");
	for (int i = 0; i < 4; i++) {
		b->data[i] = (uint8_t)(type >> (8 * i));
		b->data[4 + i] = (uint8_t)(len >> (8 * i));
	}
	memset(b->data + 8, 0, bad ? 0 : len);
	b->len = 8 + (bad ? 0 : len);
}

static void
do_perfmap(struct spool_buf *b, const struct word *w, size_t n)
{
	const struct word *text = need(w, n, "text");
	struct spool_perf_map m = {
		.pid = (uint32_t)num_or(w, n, "pid", 1),
		.part = (uint32_t)num_or(w, n, "part", 0),
		.flags = (uint32_t)num_or(w, n, "flags", SPOOL_PERF_MAP_LAST),
		.text = { text->val, (uint32_t)text->len },
	};
	if (spool_put_perf_map(b, &m) < 0)
		die("perfmap text too long");
}

static void
directive(struct spool_buf *b, struct word *w, size_t n)
{
	const char *d = w[0].val;
	b->len = 0;
	if (strcmp(d, "process") == 0)
		do_process(b, w, n);
	else if (strcmp(d, "module") == 0)
		do_module(b, w, n);
	else if (strcmp(d, "unload") == 0)
		do_unload(b, w, n);
	else if (strcmp(d, "image") == 0)
		do_image(b, w, n);
	else if (strcmp(d, "thread") == 0)
		do_thread(b, w, n);
	else if (strcmp(d, "sample") == 0)
		do_sample(b, w, n);
	else if (strcmp(d, "synth") == 0)
		do_synth(b, w, n);
	else if (strcmp(d, "synthmods") == 0)
		do_synthmods(b, w, n);
	else if (strcmp(d, "footer") == 0)
		do_footer(b, w, n);
	else if (strcmp(d, "alloc") == 0)
		do_alloc(b, w, n);
	else if (strcmp(d, "free") == 0)
		do_free(b, w, n);
	else if (strcmp(d, "calls") == 0)
		do_calls(b, w, n);
	else if (strcmp(d, "arcs") == 0)
		do_arcs(b, w, n);
	else if (strcmp(d, "perfmap") == 0)
		do_perfmap(b, w, n);
	else if (strcmp(d, "record") == 0 || strcmp(d, "badlen") == 0)
		do_record(b, w, n, d[0] == 'b');
	else if (strcmp(d, "cut") == 0 && n == 2)
		g.cut = num(w[1].val);
	else
		die("unknown directive '%s'", d);
	flush_record(b);
}

static void
free_words(struct word *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(w[i].key);
		free(w[i].val);
	}
}

int
main(int argc, char **argv)
{
	struct word words[MAX_WORDS];
	struct spool_buf b;
	char line[8192];

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: mkspool DESC OUT [SEDFILE]\n");
		return 2;
	}
	if (argc == 4 && !(g.sed = fopen(argv[3], "w"))) {
		perror(argv[3]);
		return 1;
	}
	g.desc = argv[1];
	const char *mode = getenv("MKSPOOL_SAMPLES");
	g.batched = mode && strcmp(mode, "batched") == 0;
	FILE *in = fopen(argv[1], "r");
	g.out = fopen(argv[2], "w+");
	g.buf = malloc(REC_BUF);
	if (!in || !g.out || !g.buf)
		die("%s", strerror(errno));
	spool_buf_init(&b, g.buf, REC_BUF);
	spool_put_file_header(&b, 0);
	flush_record(&b);
	while (fgets(line, sizeof(line), in)) {
		g.line++;
		line[strcspn(line, "\n")] = '\0';
		size_t n = split(line, words);
		if (n)
			directive(&b, words, n);
		free_words(words, n);
	}
	fflush(g.out);
	long size = ftell(g.out);
	if (g.cut && ftruncate(fileno(g.out), size - (long)g.cut) != 0)
		die("truncate: %s", strerror(errno));
	if (fclose(g.out) != 0)
		die("close: %s", strerror(errno));
	fclose(in);
	if (g.sed && fclose(g.sed) != 0)
		die("sed file: %s", strerror(errno));
	for (size_t i = 0; i < g.nmods; i++) {
		free((char *)g.mods[i].base_name);
		for (size_t k = 0; k < g.mods[i].nsyms; k++)
			free(g.mods[i].syms[k].name);
		free(g.mods[i].syms);
	}
	for (size_t i = 0; i < g.nstreams; i++) {
		for (size_t k = 0; k < g.streams[i].nstacks; k++)
			free(g.streams[i].stacks[k].pcs);
		free(g.streams[i].stacks);
		free(g.streams[i].entries);
	}
	free(g.streams);
	free(g.buf);
	return 0;
}
