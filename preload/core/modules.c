/*
 * modules: the module table (see modules.h).
 *
 * Entries are never freed, only retired and reused, and every change to one
 * is bracketed by its sequence counter (odd while changing), so a signal
 * handler can copy an entry without a lock and know whether the copy is
 * whole. All changes happen under one mutex, from dl_iterate_phdr callbacks
 * that copy what they need while the loader holds its own lock.
 *
 * Layer: core. modules_lookup_text, modules_readable, modules_parse_eh_hdr
 * and modules_announce are async-signal-safe; the rest takes the table's
 * lock and the loader's.
 *
 * Loads are not seen by wrapping dlopen: a dlopen wrapper would become the
 * "caller" glibc uses to pick the RUNPATH and $ORIGIN of the search, and so
 * change which library the target loads. They are noticed two ways. The
 * unwinder, meeting a PC in no module the table has (a library loaded
 * since, by dlopen or by the C library itself: NSS, iconv), finds it with
 * _dl_find_object and announces it at once with a load record made from
 * its mapped headers (modules_announce). And the table catches up, with
 * records for whatever was not announced, wherever a program thread can
 * take the loader's lock: on dlclose, in a sampled allocation's slow path
 * (modules_poll, which only tries the table's lock), at thread creation,
 * fork, exec and exit. A load record carries the time of the sync before
 * the one that found it, the earliest moment the module can have been
 * mapped. Unloads are wrapped (dlclose), because reading an unmapped module
 * from a handler would crash.
 */
#include "modules.h"

#include "log.h"
#include "notes.h"
#include "range.h"
#include "state.h"
#include "threads.h"
#include "appender.h"

#include <elf.h>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/uio.h>
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

/* The table's epoch: bumped whenever it changes, so that what was worked
 * out from it (a thread's memo of a walk, unwind.c) is known to be stale. */
static _Atomic uint32_t epoch = 1;
/* Called after the table was brought up to date (modules_on_change). */
static void (*_Atomic change_hook)(void);

/* async-signal-safe */
static void
bump_epoch(void)
{
	uint32_t next = atomic_load(&epoch) + 1;
	atomic_store_explicit(&epoch, next ? next : 1, memory_order_release);
}

/* async-signal-safe */
uint32_t
modules_epoch(void)
{
	return atomic_load_explicit(&epoch, memory_order_acquire);
}

void
modules_on_change(void (*hook)(void))
{
	atomic_store(&change_hook, hook);
}

static struct found found[MODULES_MAX];
static uint32_t nfound;
static unsigned long long seen_adds, seen_subs;
static _Atomic uint64_t last_sync_ns;
static int synced_once;
static char exe_path[MODULE_PATH];

static void
read_build_id(const struct dl_phdr_info *info, struct found *f)
{
	for (int i = 0; i < info->dlpi_phnum && !f->build_id_len; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE)
			f->build_id_len = notes_build_id(
				(const uint8_t *)(info->dlpi_addr + ph->p_vaddr),
				ph->p_memsz, f->build_id, SPOOL_MAX_BUILD_ID);
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

/* async-signal-safe */
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
	uint64_t end = 0, seg_end, sh_end;
	/* The kernel's headers, but the sums are checked all the same: an
	 * end that does not fit in 64 bits is as large as can be. */
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (__builtin_add_overflow(ph[i].p_offset, ph[i].p_filesz,
					   &seg_end))
			return UINT64_MAX;
		if (seg_end > end)
			end = seg_end;
	}
	if (end > VDSO_IMAGE_MAX)
		return end;
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t mapped = (end + page - 1) & ~(page - 1);
	if (eh->e_shoff &&
	    !__builtin_add_overflow(eh->e_shoff,
				    (uint64_t)eh->e_shnum * eh->e_shentsize,
				    &sh_end) &&
	    sh_end > end && sh_end <= mapped)
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
		threads_emit(vdso_rec, b.len);
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
		threads_emit(buf, b.len);
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
		threads_emit(buf, b.len);
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

/* Load biases (plus one: the executable's can be 0) of modules announced
 * by modules_announce that the table has not taken in yet. */
#define ANNOUNCED_MAX 32
static _Atomic uint64_t announced[ANNOUNCED_MAX];

/* Whether base was announced; forgets it. Under lock. */
static int
announced_take(uint64_t base)
{
	for (int i = 0; i < ANNOUNCED_MAX; i++) {
		uint64_t v = base + 1;
		if (atomic_compare_exchange_strong(&announced[i], &v, 0))
			return 1;
	}
	return 0;
}

/* Copies len bytes at addr of this process through the kernel: the
 * module may be unloaded meanwhile. Returns 0 or -1. async-signal-safe */
static int
copy_in(void *dst, uint64_t addr, size_t len)
{
	struct iovec local = { dst, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
			       (ssize_t)len ? 0 : -1;
}

/* The GNU build-id among the notes of [addr, addr + len), read through
 * the kernel. async-signal-safe */
static void
copy_build_id(uint64_t addr, uint64_t len, struct spool_module_load *rec,
	      uint8_t *out)
{
	uint8_t notes[512];
	if (len > sizeof(notes))
		len = sizeof(notes);
	if (copy_in(notes, addr, len) < 0)
		return;
	rec->build_id_len = notes_build_id(notes, len, out, SPOOL_MAX_BUILD_ID);
	if (rec->build_id_len)
		rec->build_id = out;
}

/* Reads the path of link map lm into path (NUL-terminated). Returns 0 or
 * -1. async-signal-safe */
static int
copy_path(const struct link_map *lm, char *path, size_t cap)
{
	struct link_map copy;
	if (copy_in(&copy, (uint64_t)(uintptr_t)lm, sizeof(copy)) < 0 ||
	    !copy.l_name)
		return -1;
	/* Page by page: the string may end just before an unmapped page. */
	size_t have = 0;
	uint64_t at = (uint64_t)(uintptr_t)copy.l_name;
	while (have < cap - 1) {
		size_t n = 4096 - (size_t)(at & 4095);
		if (n > cap - 1 - have)
			n = cap - 1 - have;
		if (copy_in(path + have, at, n) < 0)
			return -1;
		path[have + n] = '\0';
		if (strlen(path + have) < n)
			return 0;
		have += n;
		at += n;
	}
	path[cap - 1] = '\0';
	return 0;
}

/* Claims base in the announced set; 0 when it was there already or the
 * set is full (then nothing is announced: the table's next sync records
 * the module). async-signal-safe */
static int
announced_claim(uint64_t base)
{
	for (int i = 0; i < ANNOUNCED_MAX; i++)
		if (atomic_load(&announced[i]) == base + 1)
			return 0;
	for (int i = 0; i < ANNOUNCED_MAX; i++) {
		uint64_t zero = 0;
		if (atomic_compare_exchange_strong(&announced[i], &zero, base + 1))
			return 1;
	}
	return 0;
}

/* Fills f with what the table and a load record need of the object
 * _dl_find_object described, from its mapped headers read through the
 * kernel. Returns 0 or -1. async-signal-safe */
static int
found_from_object(const struct dl_find_object *fo, struct found *f)
{
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph[64];
	struct spool_module_load rec;

	memset(f, 0, sizeof(*f));
	uint64_t start = (uint64_t)(uintptr_t)fo->dlfo_map_start;
	if (copy_in(&f->base, (uint64_t)(uintptr_t)&fo->dlfo_link_map->l_addr,
		    sizeof(f->base)) < 0 ||
	    copy_path(fo->dlfo_link_map, f->path, sizeof(f->path)) < 0 ||
	    !f->path[0])
		return -1;
	/* The ELF header is where the first segment (file offset 0) is
	 * mapped, the lowest address of the object. */
	if (copy_in(&eh, start, sizeof(eh)) < 0 ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phnum == 0 ||
	    eh.e_phnum > 64 || eh.e_phentsize != sizeof(ElfW(Phdr)) ||
	    copy_in(ph, start + eh.e_phoff, eh.e_phnum * sizeof(ph[0])) < 0)
		return -1;
	f->phdr = start + eh.e_phoff;
	memset(&rec, 0, sizeof(rec));
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_PHDR)
			f->phdr = f->base + ph[i].p_vaddr;
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			f->v.eh_hdr = f->base + ph[i].p_vaddr;
		if (ph[i].p_type == PT_NOTE && !rec.build_id_len)
			copy_build_id(f->base + ph[i].p_vaddr, ph[i].p_memsz,
				      &rec, f->build_id);
		if (ph[i].p_type == PT_LOAD && f->nseg < SPOOL_MAX_SEGMENTS)
			f->segs[f->nseg++] = (struct spool_segment){
				.vaddr = ph[i].p_vaddr, .memsz = ph[i].p_memsz,
				.offset = ph[i].p_offset, .flags = ph[i].p_flags,
			};
	}
	f->build_id_len = rec.build_id_len;
	if (f->nseg == 0)
		return -1;
	find_text(f);
	uint8_t hdr[MODULES_EH_HDR_LEN];
	if (f->v.eh_hdr && copy_in(hdr, f->v.eh_hdr, sizeof(hdr)) == 0)
		modules_parse_eh_hdr(hdr, &f->v);
	return 0;
}

/* The load record of f, into the calling thread's stream (or the shared
 * one for a thread of the profiler's own). async-signal-safe */
static void
announce(const struct found *f, uint64_t when)
{
	uint8_t buf[2048];
	struct spool_buf b;
	struct spool_module_load rec = {
		.time_ns = when, .base = f->base,
		.path = { f->path, (uint32_t)strlen(f->path) },
		.build_id = f->build_id, .build_id_len = f->build_id_len,
		.nsegments = f->nseg,
	};
	spool_buf_init(&b, buf, sizeof(buf));
	if (spool_put_module_load(&b, &rec, f->segs) < 0)
		return;
	struct thread_slot *t = threads_self();
	int rc = t ? appender_append(&t->stream, buf, b.len)
		   : appender_shared(buf, b.len);
	if (rc < 0)
		prof_drop(appender_drop_cause(rc));
}

/* async-signal-safe */
void
modules_announce(const struct dl_find_object *fo)
{
	struct found f;
	uint64_t base;
	/* Announced already, while the table's lock was held: the walks
	 * through it until the table catches up need not read its headers
	 * again (a handful of system calls a frame). */
	if (copy_in(&base, (uint64_t)(uintptr_t)&fo->dlfo_link_map->l_addr,
		    sizeof(base)) < 0)
		return;
	for (int i = 0; i < ANNOUNCED_MAX; i++)
		if (atomic_load_explicit(&announced[i], memory_order_relaxed) ==
		    base + 1)
			return;
	if (found_from_object(fo, &f) < 0)
		return;
	/* The table takes the module now unless its lock is held (by the
	 * interrupted thread itself, perhaps): the walks after this one
	 * then find it there rather than read it through the kernel. */
	int added = 0, listed = 0;
	if (pthread_mutex_trylock(&lock) == 0) {
		uint32_t used = atomic_load(&table_used);
		for (uint32_t i = 0; i < used && !listed; i++)
			listed = table[i].live && same_mapping(&table[i], &f);
		struct module *m = listed ? NULL : free_entry();
		if (m) {
			set_live(m, &f);
			bump_epoch();
			added = 1;
		}
		pthread_mutex_unlock(&lock);
	}
	if (listed || (!added && !announced_claim(f.base)))
		return;
	/* Mapped at some point after the table's last sync. */
	announce(&f, atomic_load(&last_sync_ns));
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
		if (!announced_take(found[j].base))
			emit_load(&found[j], load_time);
	}
	bump_epoch();
	void (*hook)(void) = atomic_load(&change_hook);
	if (hook)
		hook();
}

int
modules_init(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_path, sizeof(exe_path) - 1);
	if (n < 0)
		strcpy(exe_path, "[exe]");
	else
		exe_path[n] = '\0';
	atomic_store(&last_sync_ns, prof_state.start_mono_ns);
	return 0;
}

/* Under lock. */
static void
sync_locked(void)
{
	uint64_t now = prof_now_ns();
	nfound = 0;
	dl_iterate_phdr(collect_cb, NULL);
	/* A module found now was mapped at some point after the last sync;
	 * the first sync finds what was there at the start. */
	apply_found(atomic_load(&last_sync_ns), now);
	atomic_store(&last_sync_ns, now);
	synced_once = 1;
}

void
modules_sync(void)
{
	pthread_mutex_lock(&lock);
	sync_locked();
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
	atomic_store(&last_sync_ns, now);
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
	/* Only tried: a thread loading a library holds the loader's lock
	 * and may allocate, and its allocation may come here while another
	 * thread holds ours and waits for the loader's. */
	if (pthread_mutex_trylock(&lock) != 0)
		return;
	unsigned long long c[2] = { 0, 0 };
	dl_iterate_phdr(counters_cb, c);
	if (c[0] != seen_adds || c[1] != seen_subs)
		sync_locked();
	pthread_mutex_unlock(&lock);
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
			if (range_holds(m->seg_lo[k], m->seg_hi[k], addr, len))
				return 1;
	}
	return 0;
}

void
modules_unload_begin(void)
{
	/* A library loaded since the table's last poll gets its load record
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
