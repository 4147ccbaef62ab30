/*
 * Unit tests of the spool appender (preload/core/appender.c), a core module of
 * the preload library built here on its own with the base below it
 * (state, log, the spool encoder): records of several streams land whole
 * in their chunks and read back in order; a stream goes on in a new chunk
 * when one is full and none crosses a chunk's end; a chunk a stream
 * closed half-full serves the next; a full file (RLIMIT_FSIZE) costs
 * records, never a fault; a forked child never writes into its parent's
 * chunks; the first of two endings writes the footer; SAMPLES entries
 * grow one record per chunk and a writer killed at any moment (SIGKILL)
 * leaves every entry it had stored readable and nothing damaged.
 */
#include "appender.h"
#include "gate.h"
#include "image-spool.h"
#include "spool.h"
#include "state.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

/* A fresh spool path in a directory of its own, and the process state an
 * image would have. */
static void
setup(void)
{
	image_spool_open(dir, "/tmp/test-appender-XXXXXX");
}

static void
teardown(void)
{
	image_spool_remove(dir);
}

/* A THREAD record of tid with a name of len bytes, into buf. */
static size_t
thread_rec(uint8_t *buf, size_t cap, uint32_t tid, size_t len)
{
	static const char name[4096];
	struct spool_buf b;
	struct spool_thread t = {
		.time_ns = tid, .tid = tid, .event = SPOOL_THREAD_NAME,
		.name = { name, (uint32_t)len },
	};
	spool_buf_init(&b, buf, cap);
	ck_assert_int_eq(spool_put_thread(&b, &t), 0);
	return b.len;
}

static uint8_t *
read_spool(size_t *size)
{
	int fd = open(prof_state.cfg.spool_path, O_RDONLY);
	struct stat st;
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	uint8_t *p = malloc((size_t)st.st_size + 1);
	ck_assert_int_eq(pread(fd, p, (size_t)st.st_size, 0), st.st_size);
	close(fd);
	*size = (size_t)st.st_size;
	return p;
}

/* Reads the spool back: the tids of its THREAD records in file order
 * (up to max), whether it has a footer, and its status at the end. */
static int
read_back(uint32_t *tids, size_t max, size_t *n, int *footer)
{
	size_t size;
	uint8_t *p = read_spool(&size);
	struct spool_cursor c;
	struct spool_rec r;
	struct spool_thread t;
	int st;
	ck_assert_int_eq(spool_cursor_init(&c, p, size), 0);
	ck_assert_uint_eq(c.chunk, APPENDER_CHUNK);
	*n = 0;
	*footer = 0;
	while ((st = spool_next(&c, &r)) == SPOOL_OK) {
		ck_assert_uint_le(r.offset % APPENDER_CHUNK + 8 + r.len,
				  APPENDER_CHUNK);
		if (r.type == SPOOL_REC_FOOTER)
			(*footer)++;
		if (r.type != SPOOL_REC_THREAD)
			continue;
		ck_assert_int_eq(spool_get_thread(&r, &t), 0);
		if (*n < max)
			tids[(*n)++] = t.tid;
	}
	free(p);
	return st;
}

START_TEST(appender_streams_read_back)
{
	struct appender_stream a = { 0 }, b = { 0 };
	uint8_t buf[4096];
	uint32_t tids[4000];
	size_t n;
	int footer;

	/* 3,000 records of 1 KiB from two streams: about 25 chunks each. */
	for (uint32_t i = 0; i < 3000; i++) {
		size_t len = thread_rec(buf, sizeof(buf), i, 1000);
		ck_assert_int_eq(appender_append(i % 2 ? &b : &a, buf, len), 0);
	}
	ck_assert_int_eq(appender_finish(SPOOL_END_EXIT, 0), 0);
	ck_assert_int_eq(read_back(tids, 4000, &n, &footer), SPOOL_END);
	ck_assert_uint_eq(n, 3000);
	ck_assert_int_eq(footer, 1);
	/* Each stream's records in its own order. */
	uint32_t next[2] = { 0, 1 };
	for (size_t i = 0; i < n; i++) {
		int s = tids[i] % 2;
		ck_assert_uint_eq(tids[i], next[s]);
		next[s] += 2;
	}
}
END_TEST

START_TEST(appender_closed_chunk_serves_next)
{
	struct appender_stream a = { 0 }, b = { 0 };
	uint8_t buf[256];
	size_t len = thread_rec(buf, sizeof(buf), 1, 100);

	ck_assert_int_eq(appender_append(&a, buf, len), 0);
	uint64_t off = a.off;
	uint32_t pos = a.pos;
	appender_close_stream(&a);
	ck_assert_ptr_null(a.base);
	ck_assert_int_eq(appender_append(&b, buf, len), 0);
	ck_assert_uint_eq(b.off, off);
	ck_assert_uint_eq(b.pos, pos + len);
}
END_TEST

START_TEST(appender_full_file_drops)
{
	struct appender_stream a = { 0 };
	uint8_t buf[4096];
	size_t len = thread_rec(buf, sizeof(buf), 7, 1000);
	struct rlimit rl = { 3 * APPENDER_CHUNK, 3 * APPENDER_CHUNK };
	uint32_t tids[200];
	size_t n;
	int footer, ok = 0, refused = 0;

	signal(SIGXFSZ, SIG_IGN);
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
	/* Room for chunks 0 and 1 and the footer after them: the third is
	 * refused, and so is every record after it, without a fault. */
	for (int i = 0; i < 200; i++) {
		int rc = appender_append(&a, buf, len);
		ck_assert(rc == 0 || rc == -ENOSPC);
		rc == 0 ? ok++ : refused++;
	}
	ck_assert_int_gt(ok, 100);
	ck_assert_int_gt(refused, 0);
	ck_assert_int_eq(read_back(tids, 200, &n, &footer), SPOOL_END);
	ck_assert_uint_eq(n, (size_t)ok);
}
END_TEST

START_TEST(appender_size_limit_stops)
{
	struct appender_stream a = { 0 };
	uint8_t buf[4096];
	size_t len = thread_rec(buf, sizeof(buf), 7, 1000);
	uint32_t tids[400];
	size_t n;
	int footer, ok = 0, refused = 0;

	/* 256 KiB of records, room for the footer kept: what is counted is
	 * the bytes written, not the chunks taken. */
	prof_state.cfg.max_size = 4 * APPENDER_CHUNK;
	ck_assert(gate_open());
	for (int i = 0; i < 400; i++) {
		int rc = appender_append(&a, buf, len);
		ck_assert(rc == 0 || rc == -EFBIG);
		rc == 0 ? ok++ : refused++;
	}
	ck_assert_int_eq(appender_drop_cause(-EFBIG), SPOOL_DROP_MAX_SIZE);
	ck_assert_int_gt(ok, 200);
	ck_assert_uint_le((size_t)ok * len, prof_state.cfg.max_size);
	ck_assert_int_gt(refused, 100);
	ck_assert(!gate_open());
	ck_assert_int_eq(appender_finish(SPOOL_END_EXIT, 0), 0);
	size_t size;
	uint8_t *p = read_spool(&size);
	/* The file: the records, the room left in the chunk the stream
	 * was filling and at the end of each before (less than a record),
	 * then the footer: over the limit by at most a chunk and the
	 * footer (the room kept for it, 512 bytes, is not used up). */
	ck_assert_uint_le(size, prof_state.cfg.max_size + APPENDER_CHUNK + 512);
	ck_assert_int_eq(read_back(tids, 400, &n, &footer), SPOOL_END);
	ck_assert_uint_eq(n, (size_t)ok);
	ck_assert_int_eq(footer, 1);
	/* The footer says what the limit was and when it was reached. */
	struct spool_cursor c;
	struct spool_rec r;
	struct spool_footer f = { 0 };
	ck_assert_int_eq(spool_cursor_init(&c, p, size), 0);
	while (spool_next(&c, &r) == SPOOL_OK)
		if (r.type == SPOOL_REC_FOOTER)
			ck_assert_int_eq(spool_get_footer(&r, &f), 0);
	free(p);
	ck_assert_uint_eq(f.size_limit, 4 * APPENDER_CHUNK);
	ck_assert_uint_ge(f.size_limit_ns, prof_state.start_mono_ns);
	ck_assert_uint_le(f.size_limit_ns, f.end_mono_ns);
	prof_state.cfg.max_size = 0;
	gate_size(0);
}
END_TEST

START_TEST(appender_child_never_writes)
{
	struct appender_stream a = { 0 };
	uint8_t buf[256];
	size_t len = thread_rec(buf, sizeof(buf), 1, 10);
	uint32_t tids[8];
	size_t n;
	int footer, status;

	ck_assert_int_eq(appender_append(&a, buf, len), 0);
	pid_t pid = fork();
	if (pid == 0) {
		/* The copy of the parent's stream, and the parent's spool. */
		len = thread_rec(buf, sizeof(buf), 2, 10);
		_exit(appender_append(&a, buf, len) == -ESRCH &&
			      appender_finish(SPOOL_END_EXIT, 0) == -EBADF ?
		      0 :
		      1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(status, 0);
	ck_assert_int_eq(appender_append(&a, buf, len), 0);
	ck_assert_int_eq(read_back(tids, 8, &n, &footer), SPOOL_END);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(tids[0], 1);
	ck_assert_uint_eq(tids[1], 1);
	ck_assert_int_eq(footer, 0);
}
END_TEST

START_TEST(appender_second_ending_waits)
{
	uint32_t tids[1];
	size_t n;
	int footer;

	ck_assert_int_eq(appender_finish(SPOOL_END_SIGNAL, SIGSEGV), 0);
	ck_assert_int_eq(appender_finish(SPOOL_END_EXIT, 0), -EALREADY);
	ck_assert_int_eq(read_back(tids, 1, &n, &footer), SPOOL_END);
	ck_assert_int_eq(footer, 1);
}
END_TEST


/* Encodes sample i of a stream (time i * 1000 + 5, weight 1000 + i % 3,
 * stack id i % 50 + 1, defined at its first use) after sample i - 1. */
static size_t
entry_of(uint8_t *buf, size_t cap, uint64_t i)
{
	uint64_t pcs[3] = { 0x401000 + i % 50, 0x402000, 0x403000 };
	struct spool_sample s = { .time_ns = i * 1000 + 5,
				  .weight = 1000 + i % 3, .depth = 3 };
	struct spool_sample prev = { .time_ns = i ? (i - 1) * 1000 + 5 : 0,
				     .weight = i ? 1000 + (i - 1) % 3 : 0 };
	return spool_encode_entry(buf, cap, prev.time_ns, prev.weight, &s,
				  (uint32_t)(i % 50 + 1), i < 50, pcs);
}

static uint64_t
prev_time_of(uint64_t i)
{
	return i ? (i - 1) * 1000 + 5 : 0;
}

static uint64_t
prev_weight_of(uint64_t i)
{
	return i ? 1000 + (i - 1) % 3 : 0;
}

/* Reads back every SAMPLES entry: checks each against entry_of's sample
 * and that the spool holds no other record than its PROCESS (and reads
 * to its end), and returns how many there are; *records gets the
 * SAMPLES records. */
static uint64_t
read_entries(size_t *records)
{
	size_t size;
	uint8_t *p = read_spool(&size);
	struct spool_cursor c;
	struct spool_rec r;
	uint64_t n = 0;
	*records = 0;
	int end;
	ck_assert_int_eq(spool_cursor_init(&c, p, size), 0);
	while ((end = spool_next(&c, &r)) == SPOOL_OK) {
		struct spool_samples h;
		struct spool_entry_cursor ec;
		struct spool_entry e;
		int st;
		/* Nothing else was written: a record of another type would
		 * be an entry's bytes read as a record header. */
		ck_assert(r.type == SPOOL_REC_PROCESS ||
			  r.type == SPOOL_REC_SAMPLES);
		if (r.type != SPOOL_REC_SAMPLES)
			continue;
		(*records)++;
		ck_assert_int_eq(spool_get_samples(&r, &h), 0);
		ck_assert_uint_eq(h.tid, 42);
		ck_assert_uint_eq(h.stream, 9);
		spool_entries_begin(&ec, &h);
		/* (One check per record: each of Check's marks a point
		 * through a pipe, a system call per entry.) */
		int wrong = 0;
		while ((st = spool_entries_next(&ec, &e)) == 1) {
			wrong |= e.time_ns != n * 1000 + 5 ||
				 e.weight != 1000 + n % 3 ||
				 e.id != n % 50 + 1 || e.define != (n < 50);
			n++;
		}
		ck_assert_int_eq(wrong, 0);
		ck_assert_int_eq(st, 0);
	}
	ck_assert_int_eq(end, SPOOL_END);
	free(p);
	return n;
}

START_TEST(appender_entries_grow_one_record)
{
	struct appender_stream a = { .id = 9 };
	uint8_t buf[256];
	size_t records;

	/* 20,000 entries of about 6 bytes: two chunks and a bit. */
	for (uint64_t i = 0; i < 20000; i++) {
		size_t len = entry_of(buf, sizeof(buf), i);
		ck_assert_uint_gt(len, 0);
		ck_assert_int_eq(appender_append_entry(&a, 42, prev_time_of(i),
						       prev_weight_of(i), buf,
						       len), 0);
	}
	ck_assert_uint_eq(appender_samples(), 20000);
	ck_assert_uint_eq(read_entries(&records), 20000);
	ck_assert_uint_le(records, 4);
}
END_TEST

/* A writer killed with SIGKILL at a random moment: every entry it had
 * stored (counted in shared memory once appender_append_entry returned)
 * reads back, at most one more, and no record is damaged. */
START_TEST(appender_entries_survive_sigkill)
{
	_Atomic uint64_t *done = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(done, MAP_FAILED);
	for (int round = 0; round < 20; round++) {
		*done = 0;
		ck_assert_int_eq(ftruncate(open(prof_state.cfg.spool_path,
						O_WRONLY), 0), 0);
		ck_assert_int_eq(unlink(prof_state.cfg.spool_path), 0);
		ck_assert_int_eq(appender_open(), 0);
		pid_t pid = fork();
		if (pid == 0) {
			/* The child is the image now (as after exec). */
			struct appender_stream a = { .id = 9 };
			prof_state.pid = getpid();
			prof_image_mark();
			uint8_t buf[256];
			for (uint64_t i = 0;; i++) {
				size_t len = entry_of(buf, sizeof(buf), i);
				if (appender_append_entry(&a, 42,
							  prev_time_of(i),
							  prev_weight_of(i),
							  buf, len))
					_exit(1);
				*done = i + 1;
			}
		}
		/* Killed a varying while after its first entry. */
		struct timespec ts = { 0, 100000 };
		for (int i = 0; i < 100000 && !*done; i++)
			nanosleep(&ts, NULL);
		ts.tv_nsec = 100000 + round * 150000;
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		int status;
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFSIGNALED(status));
		size_t records;
		uint64_t n = read_entries(&records);
		ck_assert_uint_ge(n, *done);
		ck_assert_uint_le(n, *done + 1);
		ck_assert_uint_gt(*done, 0);
	}
}
END_TEST

/* Runs of ALLOCS entries (allocations of size i at 0x10000 + 64 * i,
 * the release of each after it) between single SAMPLES entries: each run
 * grows one record of its type, a record of the other type ends it, and
 * only SAMPLES entries count as samples. */
START_TEST(appender_space_entries_interleave)
{
	struct appender_stream a = { .id = 9 };
	struct spool_space_chain chain = { 0 };
	uint8_t buf[256];
	uint64_t time_samples = 0;

	for (uint64_t i = 0; i < 3000; i++) {
		if (i % 10 == 0) {
			size_t len = entry_of(buf, sizeof(buf), time_samples);
			ck_assert_int_eq(appender_append_entry(
				&a, 42, prev_time_of(time_samples),
				prev_weight_of(time_samples), buf, len), 0);
			time_samples++;
			continue;
		}
		uint64_t pc = 0x401000;
		size_t len;
		if (i % 2) {
			struct spool_alloc al = {
				.time_ns = i, .size = i,
				.address = 0x10000 + 64 * i, .weight = 512,
				.depth = 1 };
			len = spool_encode_space_alloc(buf, sizeof(buf), &chain,
						       &al, 1, i == 1, &pc);
		} else {
			struct spool_free f = {
				.time_ns = i, .address = 0x10000 + 64 * (i - 1) };
			len = spool_encode_space_free(buf, sizeof(buf), &chain,
						      &f);
		}
		ck_assert_uint_gt(len, 0);
		ck_assert_int_eq(appender_append_space_entry(&a, 42, &chain,
							     buf, len), 0);
		/* The chain moves once the entry is stored, as the
		 * library's does. */
		chain.time_ns = i;
		chain.address = 0x10000 + 64 * (i % 2 ? i : i - 1);
		if (i % 2)
			chain.weight = 512;
	}
	ck_assert_uint_eq(appender_samples(), time_samples);

	size_t size;
	uint8_t *p = read_spool(&size);
	struct spool_cursor c;
	struct spool_rec r;
	uint64_t i = 0, samples_recs = 0, allocs_recs = 0;
	int wrong = 0;
	ck_assert_int_eq(spool_cursor_init(&c, p, size), 0);
	while (spool_next(&c, &r) == SPOOL_OK) {
		if (r.type == SPOOL_REC_SAMPLES) {
			ck_assert_uint_eq(spool_time_samples(&r), 1);
			wrong |= i % 10 != 0;
			i++;
			samples_recs++;
			continue;
		}
		ck_assert(r.type == SPOOL_REC_PROCESS ||
			  r.type == SPOOL_REC_ALLOCS);
		if (r.type != SPOOL_REC_ALLOCS)
			continue;
		struct spool_allocs h;
		struct spool_space_cursor sc;
		struct spool_space_entry e;
		int st;
		ck_assert_int_eq(spool_get_allocs(&r, &h), 0);
		ck_assert_uint_eq(h.tid, 42);
		ck_assert_uint_eq(h.stream, 9);
		spool_space_begin(&sc, &h);
		while ((st = spool_space_next(&sc, &e)) == 1) {
			wrong |= i % 10 == 0 || e.release != !(i % 2) ||
				 e.time_ns != i ||
				 e.address != 0x10000 + 64 * (i % 2 ? i : i - 1);
			if (!e.release)
				wrong |= e.size != i || e.weight != 512 ||
					 e.stack.id != 1 ||
					 e.stack.define != (i == 1);
			i++;
		}
		ck_assert_int_eq(st, 0);
		allocs_recs++;
	}
	ck_assert_int_eq(wrong, 0);
	ck_assert_uint_eq(i, 3000);
	ck_assert_uint_eq(samples_recs, time_samples);
	ck_assert_uint_eq(allocs_recs, time_samples);
	free(p);
}
END_TEST

static Suite *
appender_suite(void)
{
	Suite *s = suite_create("preload:appender");
	TCase *tc = tcase_create("appender");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, appender_streams_read_back);
	tcase_add_test(tc, appender_closed_chunk_serves_next);
	tcase_add_test(tc, appender_full_file_drops);
	tcase_add_test(tc, appender_size_limit_stops);
	tcase_add_test(tc, appender_child_never_writes);
	tcase_add_test(tc, appender_second_ending_waits);
	tcase_add_test(tc, appender_entries_grow_one_record);
	tcase_add_test(tc, appender_entries_survive_sigkill);
	tcase_add_test(tc, appender_space_entries_interleave);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(appender_suite());
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
