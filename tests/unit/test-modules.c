/*
 * Unit tests of the loaded-module table (preload/core/modules.c), built
 * with the base below it (state, log, sys, notes) and the spool encoder,
 * over the test process's own modules: after modules_init and a sync,
 * the text of the test executable and of the C library is found by a PC
 * in it and nothing by a PC in no module's text; modules_readable holds
 * the modules' segments (globals, code) and nothing else (the stack, an
 * unmapped page, ranges past a segment's end or wrapping past the top of
 * the address space); the first sync emits a load record for each
 * module; a library dlopen'ed (the analyzer's fixture, tests/
 * libfixture2.so) is found after the next sync, which changes the epoch
 * and emits its load record; while an unload is bracketed only the
 * modules loaded at the start stay readable, and after dlclose its
 * unload record is emitted and its text no longer found; a library
 * announced from _dl_find_object is in the table at once and gets one
 * load record, not a second at the next sync, also when the table's lock
 * was held and it went in at that sync; and the .eh_frame_hdr
 * decoding, table-driven.
 *
 * Test doubles: the module table calls upward into threads.c
 * (threads_emit, threads_self, threads_quiesce) and the appender
 * (appender_append, appender_shared), which would bring the thread
 * table, the unwinder and libunwind with them. This file defines the
 * five: threads_self has no slot, threads_quiesce counts its calls, and
 * the records given to threads_emit and appender_shared are kept (their
 * MODULE_LOAD and MODULE_UNLOAD records decoded) for the checks.
 * Every check runs in a process of its own (the table is the
 * process's).
 */
#include "appender.h"
#include "modules.h"
#include "spool.h"
#include "state.h"
#include "threads.h"

#include <check.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- test doubles ---- */

struct seen {
	uint32_t type; /* SPOOL_REC_MODULE_LOAD or _UNLOAD */
	int shared;    /* given to appender_shared, not threads_emit */
	uint64_t time_ns, base;
	char path[512];
};
static struct seen seen[2048];
static int nseen, quiesced, images;

static void
keep(const void *rec, size_t len, int shared)
{
	struct spool_rec r;
	uint32_t h[2];
	ck_assert_uint_ge(len, SPOOL_REC_HEADER_LEN);
	memcpy(h, rec, sizeof(h));
	r.type = h[0];
	r.len = h[1];
	r.payload = (const uint8_t *)rec + SPOOL_REC_HEADER_LEN;
	r.offset = 0;
	ck_assert_uint_eq(r.len + SPOOL_REC_HEADER_LEN, len);
	if (r.type == SPOOL_REC_MODULE_IMAGE) {
		struct spool_module_image m;
		ck_assert_int_eq(spool_get_module_image(&r, &m), 0);
		/* The vdso's bytes, from its ELF header. */
		ck_assert_uint_gt(m.len, 64);
		ck_assert_int_eq(memcmp(m.data, ELFMAG, SELFMAG), 0);
		images++;
		return;
	}
	if (r.type != SPOOL_REC_MODULE_LOAD && r.type != SPOOL_REC_MODULE_UNLOAD)
		return;
	ck_assert_int_lt(nseen, (int)ARRAY_LEN(seen));
	struct seen *s = &seen[nseen++];
	struct spool_str path;
	s->type = r.type;
	s->shared = shared;
	if (r.type == SPOOL_REC_MODULE_LOAD) {
		struct spool_module_load m;
		ck_assert_int_eq(spool_get_module_load(&r, &m), 0);
		s->time_ns = m.time_ns;
		s->base = m.base;
		path = m.path;
	} else {
		struct spool_module_unload m;
		ck_assert_int_eq(spool_get_module_unload(&r, &m), 0);
		s->time_ns = m.time_ns;
		s->base = m.base;
		path = m.path;
	}
	ck_assert_uint_lt(path.len, sizeof(s->path));
	memcpy(s->path, path.ptr, path.len);
	s->path[path.len] = '\0';
}

int
threads_emit(const void *rec, size_t len)
{
	keep(rec, len, 0);
	return 0;
}

int
appender_shared(const void *rec, size_t len)
{
	keep(rec, len, 1);
	return 0;
}

int
appender_append(struct appender_stream *s, const void *rec, size_t len)
{
	(void)s;
	(void)rec;
	(void)len;
	ck_abort_msg("appender_append: threads_self has no slot here");
	return -1;
}

struct thread_slot *
threads_self(void)
{
	return NULL;
}

void
threads_quiesce(void)
{
	quiesced++;
}

/* ---- helpers ---- */

/* The records kept of type whose path ends with suffix. */
static int
count_seen(uint32_t type, const char *suffix)
{
	int n = 0;
	size_t ls = strlen(suffix);
	for (int i = 0; i < nseen; i++) {
		size_t lp = strlen(seen[i].path);
		n += seen[i].type == type && lp >= ls &&
		     strcmp(seen[i].path + lp - ls, suffix) == 0;
	}
	return n;
}

static int global_var = 42;

__attribute__((noinline)) static int
local_function(int x)
{
	return x * 3 + global_var;
}

static void
setup(void)
{
	memset(&prof_state, 0, sizeof(prof_state));
	prof_state.pid = getpid();
	prof_state.start_mono_ns = prof_now_ns();
	nseen = 0;
	quiesced = 0;
	images = 0;
	ck_assert_int_eq(modules_init(), 0);
}

/* The path of the analyzer's fixture library name in the build tree. */
static void
fixture_path(char *out, size_t cap, const char *name)
{
	const char *root = getenv("PROFRUN_BUILD_ROOT");
	ck_assert_msg(root != NULL, "PROFRUN_BUILD_ROOT is not set");
	snprintf(out, cap, "%s/tests/%s", root, name);
}

/* The end of the executable's last PT_LOAD segment. */
static int
exe_end_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	uint64_t *end = data;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD &&
		    info->dlpi_addr + ph->p_vaddr + ph->p_memsz > *end)
			*end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1; /* the first object is the executable */
}

/* ---- checks ---- */

START_TEST(modules_empty_before_sync)
{
	struct module_view v;
	uint64_t pc = (uint64_t)(uintptr_t)local_function;
	ck_assert_int_eq(modules_lookup_text(pc, &v), -1);
	ck_assert_int_eq(modules_readable((uint64_t)(uintptr_t)&global_var, 4), 0);
	ck_assert_uint_ne(modules_epoch(), 0);
}
END_TEST

START_TEST(modules_lookup_text_finds)
{
	struct module_view v, libc;
	uint64_t pc = (uint64_t)(uintptr_t)local_function;
	uint32_t e0 = modules_epoch();
	modules_sync();
	ck_assert_uint_ne(modules_epoch(), e0);
	ck_assert_int_eq(local_function(1), 45);
	ck_assert_int_eq(modules_lookup_text(pc, &v), 0);
	ck_assert_uint_le(v.text_lo, pc);
	ck_assert_uint_gt(v.text_hi, pc);
	ck_assert_uint_le(v.base, v.text_lo);
	/* The executable's unwind table was found and decoded. */
	ck_assert_uint_ne(v.eh_hdr, 0);
	ck_assert_uint_gt(v.eh_count, 0);
	ck_assert_uint_eq(v.eh_table, v.eh_hdr + 12);
	/* A C library function: another module. */
	Dl_info di;
	void *fn = dlsym(RTLD_DEFAULT, "getpid");
	ck_assert_ptr_nonnull(fn);
	ck_assert_int_ne(dladdr(fn, &di), 0);
	ck_assert_int_eq(modules_lookup_text((uint64_t)(uintptr_t)fn, &libc), 0);
	ck_assert_uint_ne(libc.text_lo, v.text_lo);
	ck_assert_uint_eq(libc.base, (uint64_t)(uintptr_t)di.dli_fbase);
}
END_TEST

/* Addresses in no module's text. */
START_TEST(modules_lookup_text_misses)
{
	struct module_view v;
	int local = 0;
	void *heap = malloc(64);
	void *page = mmap(NULL, 4096, PROT_READ | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(page, MAP_FAILED);
	modules_sync();
	const uint64_t misses[] = {
		0, 1, (uint64_t)(uintptr_t)&local, (uint64_t)(uintptr_t)heap,
		(uint64_t)(uintptr_t)page, UINT64_MAX, UINT64_MAX - 7,
		/* data, not text */
		(uint64_t)(uintptr_t)&global_var,
	};
	for (size_t i = 0; i < ARRAY_LEN(misses); i++)
		ck_assert_msg(modules_lookup_text(misses[i], &v) == -1,
			      "0x%llx found in a module's text",
			      (unsigned long long)misses[i]);
	free(heap);
	munmap(page, 4096);
}
END_TEST

START_TEST(modules_readable_ranges)
{
	int local = 0;
	uint64_t end = 0;
	void *page = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	ck_assert_ptr_ne(page, MAP_FAILED);
	munmap((uint8_t *)page + 4096, 4096);
	modules_sync();
	dl_iterate_phdr(exe_end_cb, &end);
	ck_assert_uint_ne(end, 0);
	const uint64_t g = (uint64_t)(uintptr_t)&global_var;
	const struct {
		uint64_t addr, len;
		int readable;
	} cases[] = {
		{ g, sizeof(global_var), 1 },
		{ (uint64_t)(uintptr_t)local_function, 16, 1 },
		{ end - 8, 8, 1 },
		{ end - 8, 9, 0 },   /* past the segment's end */
		{ end, 1, 0 },
		{ g, UINT64_MAX, 0 }, /* wraps */
		{ g, UINT64_MAX - g + 1, 0 },
		{ (uint64_t)(uintptr_t)&local, 4, 0 }, /* the stack */
		{ (uint64_t)(uintptr_t)page, 8, 0 },   /* anonymous */
		{ (uint64_t)(uintptr_t)page + 4096, 8, 0 }, /* unmapped */
		{ 0, 8, 0 },
		{ UINT64_MAX - 7, 8, 0 },  /* the top of the address space */
		{ UINT64_MAX - 7, 16, 0 }, /* and past it */
		{ UINT64_MAX, 1, 0 },
	};
	for (size_t i = 0; i < ARRAY_LEN(cases); i++)
		ck_assert_msg(modules_readable(cases[i].addr, cases[i].len) ==
				      cases[i].readable,
			      "case %zu: [0x%llx, +%llu) want %d", i,
			      (unsigned long long)cases[i].addr,
			      (unsigned long long)cases[i].len,
			      cases[i].readable);
	munmap(page, 4096);
}
END_TEST

/* The first sync emits a load for each module loaded (at the start's
 * time), the executable by its path and the vdso by its name, followed
 * by the vdso's image (it is no file on disk); a second
 * sync with nothing changed emits nothing and calls the hook again. */
static int hook_calls;

static void
hook(void)
{
	hook_calls++;
}

START_TEST(modules_first_sync_records)
{
	char exe[512];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	modules_on_change(hook);
	modules_sync();
	ck_assert_int_eq(hook_calls, 1);
	ck_assert_int_ge(nseen, 3);
	ck_assert_int_eq(count_seen(SPOOL_REC_MODULE_LOAD, exe), 1);
	ck_assert_int_eq(count_seen(SPOOL_REC_MODULE_LOAD, "[vdso]"), 1);
	ck_assert_int_eq(images, 1);
	ck_assert_int_ge(count_seen(SPOOL_REC_MODULE_LOAD, ".so.6"), 1);
	ck_assert_int_eq(count_seen(SPOOL_REC_MODULE_UNLOAD, ""), 0);
	for (int i = 0; i < nseen; i++) {
		ck_assert_uint_eq(seen[i].time_ns, prof_state.start_mono_ns);
		ck_assert_int_eq(seen[i].shared, 0);
	}
	int first = nseen;
	modules_sync();
	ck_assert_int_eq(nseen, first);
	ck_assert_int_eq(hook_calls, 2);
}
END_TEST

/* A library dlopen'ed: found after the next sync, which changes the
 * epoch and emits its load; while an unload is bracketed, it is not
 * readable and the executable is; after dlclose, its unload is emitted
 * and its text is no longer found. */
START_TEST(modules_dlopen_dlclose)
{
	char path[1024];
	struct module_view v;
	fixture_path(path, sizeof(path), "libfixture2.so");
	modules_sync();
	int first = nseen;
	uint64_t before = prof_now_ns();
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "dlopen %s: %s", path, dlerror());
	uint64_t fn = (uint64_t)(uintptr_t)dlsym(h, "fy_main");
	ck_assert_uint_ne(fn, 0);
	ck_assert_int_eq(modules_lookup_text(fn, &v), -1);
	ck_assert_int_eq(modules_readable(fn, 4), 0);
	uint32_t e0 = modules_epoch();
	modules_sync();
	ck_assert_uint_ne(modules_epoch(), e0);
	ck_assert_int_eq(modules_lookup_text(fn, &v), 0);
	ck_assert(fn >= v.text_lo && fn < v.text_hi);
	ck_assert_int_eq(modules_readable(fn, 4), 1);
	ck_assert_int_eq(nseen, first + 1);
	ck_assert_int_eq(count_seen(SPOOL_REC_MODULE_LOAD, "/libfixture2.so"), 1);
	/* Mapped after the sync before: its time. */
	ck_assert_uint_le(seen[first].time_ns, before);
	ck_assert_uint_eq(seen[first].base, v.base);

	modules_unload_begin();
	ck_assert_int_eq(quiesced, 1);
	ck_assert_int_eq(modules_readable(fn, 4), 0);
	ck_assert_int_eq(modules_readable((uint64_t)(uintptr_t)&global_var, 4), 1);
	ck_assert_int_eq(dlclose(h), 0);
	e0 = modules_epoch();
	modules_unload_end();
	ck_assert_uint_ne(modules_epoch(), e0);
	ck_assert_int_eq(count_seen(SPOOL_REC_MODULE_UNLOAD, "/libfixture2.so"), 1);
	ck_assert_int_eq(modules_lookup_text(fn, &v), -1);
	ck_assert_int_eq(modules_readable(fn, 4), 0);
}
END_TEST

/* Announced from _dl_find_object (as the unwinder does for a PC in no
 * known module): in the table at once, one load record (to the shared
 * stream: this thread has no slot), and no second one at the next
 * sync. */
START_TEST(modules_announce_once)
{
	char path[1024];
	struct module_view v;
	struct dl_find_object fo;
	fixture_path(path, sizeof(path), "libfixture2.so");
	modules_sync();
	int first = nseen;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "dlopen %s: %s", path, dlerror());
	void *fn = dlsym(h, "fy_leaf");
	ck_assert_int_eq(_dl_find_object(fn, &fo), 0);
	uint32_t e0 = modules_epoch();
	modules_announce(&fo);
	ck_assert_uint_ne(modules_epoch(), e0);
	ck_assert_int_eq(modules_lookup_text((uint64_t)(uintptr_t)fn, &v), 0);
	ck_assert_int_eq(nseen, first + 1);
	ck_assert_int_eq(seen[first].shared, 1);
	ck_assert_int_eq(count_seen(SPOOL_REC_MODULE_LOAD, "/libfixture2.so"), 1);
	modules_announce(&fo);
	modules_sync();
	ck_assert_int_eq(nseen, first + 1);
	ck_assert_int_eq(modules_lookup_text((uint64_t)(uintptr_t)fn, &v), 0);
}
END_TEST

/* Announced while the table's lock is held (here by the fork hook, as
 * by an interrupted thread): not in the table yet, but its load record
 * is emitted once, and the sync that takes it in emits no second one. */
START_TEST(modules_announce_while_locked)
{
	char path[1024];
	struct module_view v;
	struct dl_find_object fo;
	fixture_path(path, sizeof(path), "libfixture2.so");
	modules_sync();
	int first = nseen;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "dlopen %s: %s", path, dlerror());
	void *fn = dlsym(h, "fy_leaf");
	ck_assert_int_eq(_dl_find_object(fn, &fo), 0);
	modules_prefork();
	modules_announce(&fo);
	modules_announce(&fo);
	modules_postfork_parent();
	ck_assert_int_eq(modules_lookup_text((uint64_t)(uintptr_t)fn, &v), -1);
	ck_assert_int_eq(nseen, first + 1);
	ck_assert_int_eq(count_seen(SPOOL_REC_MODULE_LOAD, "/libfixture2.so"), 1);
	modules_sync();
	ck_assert_int_eq(modules_lookup_text((uint64_t)(uintptr_t)fn, &v), 0);
	ck_assert_int_eq(nseen, first + 1);
}
END_TEST

/* .eh_frame_hdr: version 1, eh_frame_ptr encoding, fde_count encoding
 * (udata4), table encoding (datarel | sdata4), then the pointer and the
 * count. */
static const struct {
	uint8_t h[MODULES_EH_HDR_LEN];
	uint64_t count, table_off; /* 0, 0: refused */
} eh_cases[] = {
	{ { 1, 0x1b, 0x03, 0x3b, 1, 2, 3, 4, 7, 0, 0, 0 }, 7, 12 },
	{ { 1, 0x03, 0x03, 0x3b, 1, 2, 3, 4, 0, 1, 0, 0 }, 256, 12 },
	{ { 1, 0x0c, 0x03, 0x3b, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0 }, 9, 16 },
	{ { 1, 0x00, 0x03, 0x3b, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0 }, 2, 16 },
	{ { 2, 0x1b, 0x03, 0x3b, 1, 2, 3, 4, 7, 0, 0, 0 }, 0, 0 },  /* version */
	{ { 1, 0x1b, 0x03, 0x03, 1, 2, 3, 4, 7, 0, 0, 0 }, 0, 0 },  /* table */
	{ { 1, 0x1b, 0x0b, 0x3b, 1, 2, 3, 4, 7, 0, 0, 0 }, 0, 0 },  /* count */
	{ { 1, 0x1f, 0x03, 0x3b, 1, 2, 3, 4, 7, 0, 0, 0 }, 0, 0 },  /* ptr */
	{ { 1, 0xff, 0x03, 0x3b, 1, 2, 3, 4, 7, 0, 0, 0 }, 0, 0 },  /* omit */
};

START_TEST(modules_parse_eh_hdr_table)
{
	struct module_view v = { .eh_hdr = 0x10000, .eh_table = 5,
				 .eh_count = 5 };
	modules_parse_eh_hdr(eh_cases[_i].h, &v);
	ck_assert_uint_eq(v.eh_count, eh_cases[_i].count);
	ck_assert_uint_eq(v.eh_table,
			  eh_cases[_i].table_off ? 0x10000 + eh_cases[_i].table_off
						 : 0);
	v.eh_table = v.eh_count = 5;
	modules_parse_eh_hdr(NULL, &v);
	ck_assert_uint_eq(v.eh_table, 0);
	ck_assert_uint_eq(v.eh_count, 0);
}
END_TEST

static Suite *
modules_suite(void)
{
	Suite *s = suite_create("preload:modules");
	TCase *tc = tcase_create("modules");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, modules_empty_before_sync);
	tcase_add_test(tc, modules_lookup_text_finds);
	tcase_add_test(tc, modules_lookup_text_misses);
	tcase_add_test(tc, modules_readable_ranges);
	tcase_add_test(tc, modules_first_sync_records);
	tcase_add_test(tc, modules_dlopen_dlclose);
	tcase_add_test(tc, modules_announce_once);
	tcase_add_test(tc, modules_announce_while_locked);
	tcase_add_loop_test(tc, modules_parse_eh_hdr_table, 0,
			    ARRAY_LEN(eh_cases));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(modules_suite());
	int failed;

	/* The table is the process's: a fresh one per check. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
