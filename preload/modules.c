/*
 * modules: the module table (see modules.h).
 *
 * Entries are never freed, only retired and reused, and every change to one
 * is bracketed by its sequence counter (odd while changing), so a signal
 * handler can copy an entry without a lock and know whether the copy is
 * whole. All changes happen under one mutex, from dl_iterate_phdr callbacks
 * that copy what they need while the loader holds its own lock.
 *
 * Loads are noticed by polling (the writer checks the loader's dlpi_adds and
 * dlpi_subs counters each cycle) rather than by wrapping dlopen: a dlopen
 * wrapper would become the "caller" glibc uses to pick the RUNPATH and
 * $ORIGIN of the search, and so change which library the target loads.
 * A load record carries the time of the sync before the one that found it,
 * the earliest moment the module can have been mapped. Unloads are wrapped
 * (dlclose), because reading an unmapped module from a handler would crash.
 */
#include "modules.h"

#include "log.h"
#include "state.h"
#include "threads.h"
#include "unwind.h"
#include "writer.h"

#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* DWARF pointer encodings used in .eh_frame_hdr (LSB 5.0, 10.5). */
#define DW_EH_PE_absptr 0x00
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_udata8 0x04
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_sdata8 0x0c
#define DW_EH_PE_datarel 0x30

#define MODULES_MAX 1024
#define MODULE_SEGS 8
#define MODULE_PATH 512

struct module {
	_Atomic uint32_t seq; /* odd while the entry changes */
	uint32_t live;
	uint32_t permanent; /* loaded at start: glibc never unloads these */
	struct module_view v;
	uint32_t nseg;
	uint64_t seg_lo[MODULE_SEGS], seg_hi[MODULE_SEGS];
	/* Read only under the lock. */
	uint64_t phdr; /* dlpi_phdr: with base, identifies the mapping */
	char path[MODULE_PATH];
};

/* One module as found by dl_iterate_phdr, before it goes in the table. */
struct found {
	uint64_t base;
	uint64_t phdr;
	struct spool_segment segs[SPOOL_MAX_SEGMENTS];
	uint32_t nseg;
	uint8_t build_id[SPOOL_MAX_BUILD_ID];
	uint32_t build_id_len;
	struct module_view v; /* text range and unwind table */
	char path[MODULE_PATH];
};

static struct module table[MODULES_MAX];
static _Atomic uint32_t table_used; /* entries ever used (high-water) */
static _Atomic int unloading;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct found found[MODULES_MAX];
static uint32_t nfound;
static unsigned long long seen_adds, seen_subs;
static uint64_t last_sync_ns;
static int synced_once;
static char exe_path[MODULE_PATH];

static void
read_build_id(const struct dl_phdr_info *info, struct found *f)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			size_t name = (n->n_namesz + 3) & ~3u;
			size_t desc = (n->n_descsz + 3) & ~3u;
			const uint8_t *d = p + sizeof(*n) + name;
			if (d + desc > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(p + sizeof(*n), "GNU", 4) == 0 &&
			    n->n_descsz <= SPOOL_MAX_BUILD_ID) {
				memcpy(f->build_id, d, n->n_descsz);
				f->build_id_len = n->n_descsz;
				return;
			}
			p = d + desc;
		}
	}
}

static void
name_module(const struct dl_phdr_info *info, struct found *f)
{
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	const char *name = info->dlpi_name;
	if (vdso && (uint64_t)info->dlpi_phdr ==
			    vdso + ((const ElfW(Ehdr) *)vdso)->e_phoff)
		name = "[vdso]";
	else if (!name || !*name)
		name = exe_path;
	size_t n = strlen(name);
	if (n >= sizeof(f->path))
		n = sizeof(f->path) - 1;
	memcpy(f->path, name, n);
	f->path[n] = '\0';
}

/* async-signal-safe */
void
modules_parse_eh_hdr(const uint8_t *h, struct module_view *v)
{
	v->eh_table = v->eh_count = 0;
	if (!h || h[0] != 1 || h[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return;
	size_t ptr_size;
	switch (h[1] & 0x0f) {
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		ptr_size = 4;
		break;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
	case DW_EH_PE_absptr:
		ptr_size = 8;
		break;
	default:
		return;
	}
	if (h[2] != DW_EH_PE_udata4)
		return;
	uint32_t count;
	memcpy(&count, h + 4 + ptr_size, 4);
	v->eh_count = count;
	v->eh_table = v->eh_hdr + 4 + ptr_size + 4;
}

static void
find_text(struct found *f)
{
	f->v.base = f->base;
	f->v.text_lo = UINT64_MAX;
	f->v.text_hi = 0;
	for (uint32_t i = 0; i < f->nseg; i++) {
		uint64_t lo = f->base + f->segs[i].vaddr;
		uint64_t hi = lo + f->segs[i].memsz;
		if (!(f->segs[i].flags & PF_X))
			continue;
		if (lo < f->v.text_lo)
			f->v.text_lo = lo;
		if (hi > f->v.text_hi)
			f->v.text_hi = hi;
	}
	if (f->v.text_hi == 0)
		f->v.text_lo = 0;
}

static int
collect_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	(void)data;
	if (nfound >= MODULES_MAX)
		return 1;
	struct found *f = &found[nfound];
	memset(f, 0, sizeof(*f));
	f->base = info->dlpi_addr;
	f->phdr = (uint64_t)info->dlpi_phdr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_GNU_EH_FRAME)
			f->v.eh_hdr = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type != PT_LOAD || f->nseg >= SPOOL_MAX_SEGMENTS)
			continue;
		f->segs[f->nseg++] = (struct spool_segment){
			.vaddr = ph->p_vaddr, .memsz = ph->p_memsz,
			.offset = ph->p_offset, .flags = ph->p_flags,
		};
	}
	if (f->nseg == 0)
		return 0;
	name_module(info, f);
	/* The module's memory may be gone once the loader lock is released
	 * (another thread's dlclose), so everything is read here. */
	read_build_id(info, f);
	find_text(f);
	modules_parse_eh_hdr((const uint8_t *)f->v.eh_hdr, &f->v);
	seen_adds = info->dlpi_adds;
	seen_subs = info->dlpi_subs;
	nfound++;
	return 0;
}

static void
fill_entry(struct module *m, const struct found *f)
{
	m->v = f->v;
	m->nseg = 0;
	for (uint32_t i = 0; i < f->nseg && m->nseg < MODULE_SEGS; i++) {
		m->seg_lo[m->nseg] = f->base + f->segs[i].vaddr;
		m->seg_hi[m->nseg] = m->seg_lo[m->nseg] + f->segs[i].memsz;
		m->nseg++;
	}
	m->phdr = f->phdr;
	m->permanent = !synced_once;
	memcpy(m->path, f->path, sizeof(m->path));
}

static void
set_live(struct module *m, const struct found *f)
{
	atomic_fetch_add_explicit(&m->seq, 1, memory_order_acq_rel);
	if (f)
		fill_entry(m, f);
	m->live = f != NULL;
	atomic_fetch_add_explicit(&m->seq, 1, memory_order_acq_rel);
}

/* The vdso is no file on disk, so the analyzer could not read its symbols
 * later: its bytes follow its MODULE_LOAD as a MODULE_IMAGE (about 8 KiB).
 * The file image starts at its ELF header. The PT_LOAD segments end before
 * the section header table, which the analyzer needs too; the kernel maps
 * the whole image, so the table is taken as well when it lies within the
 * pages the segments occupy. Called under lock, hence the static buffer. */
#define VDSO_IMAGE_MAX (64u * 1024)

static uint8_t vdso_rec[VDSO_IMAGE_MAX + 64];

static uint64_t
vdso_image_size(const ElfW(Ehdr) *eh)
{
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const uint8_t *)eh +
						    eh->e_phoff);
	uint64_t end = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD &&
		    ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t mapped = (end + page - 1) & ~(page - 1);
	uint64_t sh_end = eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	if (eh->e_shoff && sh_end > end && sh_end <= mapped)
		end = sh_end;
	return end;
}

static void
emit_vdso_image(const struct found *f, uint64_t when)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return;
	uint64_t size = vdso_image_size(eh);
	if (size == 0 || size > VDSO_IMAGE_MAX) {
		log_msg("vdso image of %lu bytes not recorded; its frames "
			"will not be named", (unsigned long)size);
		return;
	}
	struct spool_buf b;
	spool_buf_init(&b, vdso_rec, sizeof(vdso_rec));
	struct spool_module_image rec = {
		.time_ns = when, .base = f->base,
		.data = (const uint8_t *)eh, .len = (uint32_t)size,
	};
	if (spool_put_module_image(&b, &rec) == 0)
		writer_control(vdso_rec, b.len);
}

static void
emit_load(const struct found *f, uint64_t when)
{
	uint8_t buf[2048];
	struct spool_buf b;
	spool_buf_init(&b, buf, sizeof(buf));
	struct spool_module_load rec = {
		.time_ns = when, .base = f->base,
		.path = { f->path, (uint32_t)strlen(f->path) },
		.build_id = f->build_id, .build_id_len = f->build_id_len,
		.nsegments = f->nseg,
	};
	if (spool_put_module_load(&b, &rec, f->segs) == 0)
		writer_control(buf, b.len);
	if (strcmp(f->path, "[vdso]") == 0)
		emit_vdso_image(f, when);
}

static void
emit_unload(const struct module *m, uint64_t when)
{
	uint8_t buf[1024];
	struct spool_buf b;
	spool_buf_init(&b, buf, sizeof(buf));
	struct spool_module_unload rec = {
		.time_ns = when, .base = m->v.base,
		.path = { m->path, (uint32_t)strlen(m->path) },
	};
	if (spool_put_module_unload(&b, &rec) == 0)
		writer_control(buf, b.len);
}

static int
same_mapping(const struct module *m, const struct found *f)
{
	return m->v.base == f->base && m->phdr == f->phdr &&
	       strcmp(m->path, f->path) == 0;
}

static struct module *
free_entry(void)
{
	uint32_t used = atomic_load(&table_used);
	for (uint32_t i = 0; i < used; i++)
		if (!table[i].live)
			return &table[i];
	if (used == MODULES_MAX)
		return NULL;
	atomic_store(&table_used, used + 1);
	return &table[used];
}

/* Under lock: retire entries that are gone, add those that are new. */
static void
apply_found(uint64_t load_time, uint64_t now)
{
	uint32_t used = atomic_load(&table_used);
	for (uint32_t i = 0; i < used; i++) {
		struct module *m = &table[i];
		uint32_t j = 0;
		while (m->live && j < nfound && !same_mapping(m, &found[j]))
			j++;
		if (!m->live || j < nfound)
			continue;
		emit_unload(m, now);
		set_live(m, NULL);
	}
	for (uint32_t j = 0; j < nfound; j++) {
		uint32_t i = 0;
		while (i < used && !(table[i].live && same_mapping(&table[i], &found[j])))
			i++;
		if (i < used)
			continue;
		struct module *m = free_entry();
		if (!m) {
			log_msg("more than %u modules loaded; later ones are not unwound",
				MODULES_MAX);
			break;
		}
		set_live(m, &found[j]);
		used = atomic_load(&table_used);
		emit_load(&found[j], load_time);
	}
	unwind_flush_cache();
}

int
modules_init(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	if (n < 0)
		strcpy(exe_path, "[exe]");
	else
		exe_path[n] = '\0';
	last_sync_ns = prof_state.start_mono_ns;
	return 0;
}

void
modules_sync(void)
{
	pthread_mutex_lock(&lock);
	uint64_t now = prof_now_ns();
	nfound = 0;
	dl_iterate_phdr(collect_cb, NULL);
	/* A module found now was mapped at some point after the last sync;
	 * the first sync finds what was there at the start. */
	apply_found(last_sync_ns, now);
	last_sync_ns = now;
	synced_once = 1;
	pthread_mutex_unlock(&lock);
}

void
modules_emit_all(void)
{
	pthread_mutex_lock(&lock);
	uint64_t now = prof_now_ns();
	nfound = 0;
	dl_iterate_phdr(collect_cb, NULL);
	uint32_t used = atomic_load(&table_used);
	for (uint32_t j = 0; j < nfound; j++)
		for (uint32_t i = 0; i < used; i++)
			if (table[i].live && same_mapping(&table[i], &found[j]))
				emit_load(&found[j], prof_state.start_mono_ns);
	last_sync_ns = now;
	pthread_mutex_unlock(&lock);
}

void
modules_prefork(void)
{
	pthread_mutex_lock(&lock);
}

void
modules_postfork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

void
modules_postfork_child(void)
{
	pthread_mutex_init(&lock, NULL);
}

static int
counters_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long long *c = data;
	(void)size;
	c[0] = info->dlpi_adds;
	c[1] = info->dlpi_subs;
	return 1; /* the first object is enough */
}

void
modules_poll(void)
{
	unsigned long long c[2] = { 0, 0 };
	dl_iterate_phdr(counters_cb, c);
	pthread_mutex_lock(&lock);
	int moved = c[0] != seen_adds || c[1] != seen_subs;
	pthread_mutex_unlock(&lock);
	if (moved)
		modules_sync();
}

/* async-signal-safe */
int
modules_lookup_text(uint64_t pc, struct module_view *out)
{
	uint32_t used = atomic_load_explicit(&table_used, memory_order_acquire);
	for (uint32_t i = 0; i < used; i++) {
		struct module *m = &table[i];
		uint32_t s = atomic_load_explicit(&m->seq, memory_order_acquire);
		if (s & 1 || !m->live || pc < m->v.text_lo || pc >= m->v.text_hi)
			continue;
		*out = m->v;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&m->seq, memory_order_relaxed) == s)
			return 0;
	}
	return -1;
}

/* async-signal-safe */
int
modules_readable(uint64_t addr, uint64_t len)
{
	int unload = atomic_load_explicit(&unloading, memory_order_acquire);
	uint32_t used = atomic_load_explicit(&table_used, memory_order_acquire);
	for (uint32_t i = 0; i < used; i++) {
		struct module *m = &table[i];
		uint32_t s = atomic_load_explicit(&m->seq, memory_order_acquire);
		if (s & 1 || !m->live || (unload && !m->permanent))
			continue;
		for (uint32_t k = 0; k < m->nseg && k < MODULE_SEGS; k++)
			if (addr >= m->seg_lo[k] && addr + len <= m->seg_hi[k])
				return 1;
	}
	return 0;
}

void
modules_unload_begin(void)
{
	/* A library loaded since the writer's last poll gets its load record
	 * before it goes: its samples would otherwise have no module. */
	modules_sync();
	atomic_fetch_add(&unloading, 1);
	threads_quiesce();
}

void
modules_unload_end(void)
{
	modules_sync();
	atomic_fetch_sub(&unloading, 1);
}
