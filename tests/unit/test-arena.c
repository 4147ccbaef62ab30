/*
 * Unit tests of the library's own small blocks (preload/base/arena.c),
 * built with real.c and sys.c below it (real.c only looks functions up;
 * it defines no wrapper): a block's size, alignment and ownership; the
 * requests refused (too large, a bad alignment); a freed block served
 * again to a request of its class and to no other; a resize in place
 * within the class's room only; blocks that never overlap, from several
 * threads too; the storage used up (16 blocks of the largest class) and
 * a freed block that serves its class again; the caller's signal mask
 * left as it was; and the fork hooks, which hold the lock with every
 * signal blocked. The arena is the process's: every check runs in a
 * process of its own (Check's fork mode), with all of it free.
 */
#include "arena.h"

#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define KiB 1024u
/* The largest request of the largest class (64 KiB with its header). */
#define LARGEST (64 * KiB - ARENA_ALIGN)

START_TEST(arena_alloc_size_owns)
{
	static const size_t sizes[] = { 0, 1, 15, 16, 17, 100, 1000, 4096,
					 30000, LARGEST };
	int local;
	void *heap = malloc(16);
	for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
		uint8_t *p = arena_alloc(sizes[i], 0);
		ck_assert_msg(p != NULL, "arena_alloc(%zu) failed", sizes[i]);
		ck_assert_uint_eq((uintptr_t)p % ARENA_ALIGN, 0);
		ck_assert_uint_eq(arena_size(p), sizes[i]);
		ck_assert(arena_owns(p));
		if (sizes[i])
			ck_assert(arena_owns(p + sizes[i] - 1));
		memset(p, 0xa5, sizes[i]);
		ck_assert_uint_eq(arena_size(p), sizes[i]);
	}
	ck_assert(!arena_owns(&local));
	ck_assert(!arena_owns(heap));
	ck_assert(!arena_owns(NULL));
	ck_assert(!arena_owns((void *)UINTPTR_MAX));
	free(heap);
}
END_TEST

static const struct {
	size_t n, align;
	int ok;
} align_cases[] = {
	/* Below ARENA_ALIGN, any alignment means ARENA_ALIGN (3 too). */
	{ 10, 0, 1 },      { 10, 1, 1 },       { 10, 8, 1 },
	{ 10, 16, 1 },     { 10, 32, 1 },      { 10, 64, 1 },
	{ 100, 256, 1 },   { 10, 4096, 1 },    { 1000, 2048, 1 },
	{ 10, 3, 1 },      { 10, 24, 0 },      { 10, 8192, 0 },
	{ 10, 48, 0 },     { LARGEST + 1, 0, 0 }, { 64 * KiB, 0, 0 },
	{ SIZE_MAX, 0, 0 }, { LARGEST, 32, 0 }, /* no room for the shift */
	{ 64 * KiB - 4096 - 16, 4096, 1 },
};

START_TEST(arena_align_table)
{
	size_t n = align_cases[_i].n, align = align_cases[_i].align;
	uint8_t *p = arena_alloc(n, align);
	if (!align_cases[_i].ok) {
		ck_assert_msg(p == NULL, "arena_alloc(%zu, %zu) gave a block", n,
			      align);
		return;
	}
	ck_assert_msg(p != NULL, "arena_alloc(%zu, %zu) failed", n, align);
	size_t want = align < ARENA_ALIGN ? ARENA_ALIGN : align;
	ck_assert_uint_eq((uintptr_t)p % want, 0);
	ck_assert_uint_eq(arena_size(p), n);
	memset(p, 0x5a, n);
	/* Freed, it serves again. */
	arena_free(p);
	uint8_t *q = arena_alloc(n, align);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq((uintptr_t)q % want, 0);
}
END_TEST

/* A freed block is the next one of its class (last in, first out);
 * a request of another class does not get it. */
START_TEST(arena_free_reuses_class)
{
	void *a = arena_alloc(100, 0), *b = arena_alloc(100, 0);
	ck_assert_ptr_ne(a, b);
	arena_free(a);
	arena_free(b);
	ck_assert_ptr_eq(arena_alloc(90, 0), b);
	void *big = arena_alloc(1000, 0);
	ck_assert_ptr_ne(big, a);
	ck_assert_ptr_eq(arena_alloc(100, 0), a);
	ck_assert_ptr_ne(arena_alloc(100, 0), a);
}
END_TEST

/* A block of 100 bytes is of the 128-byte class: 112 bytes after its
 * header, the most it can grow to in place. */
START_TEST(arena_resize_in_class)
{
	uint8_t *p = arena_alloc(100, 0);
	memset(p, 7, 100);
	ck_assert_ptr_eq(arena_resize(p, 112), p);
	ck_assert_uint_eq(arena_size(p), 112);
	ck_assert_ptr_null(arena_resize(p, 113));
	ck_assert_uint_eq(arena_size(p), 112);
	ck_assert_ptr_eq(arena_resize(p, 1), p);
	ck_assert_uint_eq(arena_size(p), 1);
	ck_assert_uint_eq(p[99], 7);
	/* An aligned block's room is what its offset leaves. */
	uint8_t *q = arena_alloc(10, 64);
	size_t room = 0;
	while (arena_resize(q, room + 1))
		room++;
	/* 90 bytes with the header and the shift: the 128-byte class, of
	 * which the header and the shift (16 to 64 bytes) are not room. */
	ck_assert_uint_ge(room, 128 - 64);
	ck_assert_uint_le(room, 128 - 16);
}
END_TEST

/* Blocks of many sizes, each filled with its own byte: none overwrites
 * another. */
START_TEST(arena_no_overlap)
{
	enum { N = 400 };
	static uint8_t *blocks[N];
	for (int i = 0; i < N; i++) {
		size_t n = (size_t)(i * 37 % 1500);
		blocks[i] = arena_alloc(n, i % 3 ? 0 : 64);
		ck_assert_ptr_nonnull(blocks[i]);
		memset(blocks[i], i & 0xff, n);
		if (i % 5 == 4) {
			arena_free(blocks[i - 2]);
			blocks[i - 2] = NULL;
		}
	}
	int wrong = 0;
	for (int i = 0; i < N; i++) {
		if (!blocks[i])
			continue;
		size_t n = arena_size(blocks[i]);
		ck_assert_uint_eq(n, (size_t)(i * 37 % 1500));
		for (size_t k = 0; k < n; k++)
			wrong |= blocks[i][k] != (i & 0xff);
	}
	ck_assert_int_eq(wrong, 0);
}
END_TEST

static void *
churn(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	uint8_t *mine[64];
	long wrong = 0;
	for (int round = 0; round < 2000; round++) {
		for (int i = 0; i < 64; i++) {
			mine[i] = arena_alloc(40 + i % 3 * 100, 0);
			if (!mine[i])
				return (void *)-1l;
			memset(mine[i], (int)id, arena_size(mine[i]));
		}
		for (int i = 0; i < 64; i++) {
			for (size_t k = 0; k < arena_size(mine[i]); k++)
				wrong += mine[i][k] != id;
			arena_free(mine[i]);
		}
	}
	return (void *)wrong;
}

/* Four threads taking and releasing blocks of three classes: no block
 * is handed to two of them at once. */
START_TEST(arena_threads)
{
	pthread_t th[4];
	for (uintptr_t i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, churn,
						(void *)(i + 1)), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		ck_assert_int_eq(pthread_join(th[i], &r), 0);
		ck_assert_int_eq((long)r, 0);
	}
}
END_TEST

/* 1 MiB of storage: 16 blocks of the largest class, then nothing of any
 * class; a freed block serves its own class again, and only it (free
 * blocks are not split). */
START_TEST(arena_exhausted)
{
	void *big[17];
	int n = 0;
	while (n < 17 && (big[n] = arena_alloc(LARGEST, 0)) != NULL)
		n++;
	ck_assert_int_eq(n, 16);
	ck_assert_ptr_null(arena_alloc(1, 0));
	ck_assert_ptr_null(arena_alloc(1000, 0));
	arena_free(big[3]);
	ck_assert_ptr_null(arena_alloc(1, 0));
	ck_assert_ptr_eq(arena_alloc(40000, 0), big[3]);
	ck_assert_ptr_null(arena_alloc(40000, 0));
}
END_TEST

/* The lock blocks every signal while held and gives the caller's mask
 * back. */
START_TEST(arena_mask_restored)
{
	sigset_t set, before, after;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	ck_assert_int_eq(pthread_sigmask(SIG_BLOCK, &set, NULL), 0);
	ck_assert_int_eq(pthread_sigmask(SIG_SETMASK, NULL, &before), 0);
	void *p = arena_alloc(64, 0);
	arena_free(p);
	ck_assert_int_eq(pthread_sigmask(SIG_SETMASK, NULL, &after), 0);
	for (int s = 1; s < NSIG; s++)
		ck_assert_int_eq(sigismember(&after, s),
				 sigismember(&before, s));
	ck_assert(sigismember(&after, SIGUSR2));
	ck_assert(!sigismember(&after, SIGUSR1));
}
END_TEST

/* prefork: the lock held and every signal blocked; postfork in parent
 * and child: the mask back and the arena usable in both. */
START_TEST(arena_fork_hooks)
{
	sigset_t mask;
	arena_prefork();
	ck_assert_int_eq(pthread_sigmask(SIG_SETMASK, NULL, &mask), 0);
	ck_assert(sigismember(&mask, SIGUSR1));
	ck_assert(sigismember(&mask, SIGTERM));
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	arena_postfork();
	if (pid == 0) {
		sigset_t m;
		pthread_sigmask(SIG_SETMASK, NULL, &m);
		void *p = arena_alloc(100, 0);
		_exit(p && arena_owns(p) && !sigismember(&m, SIGUSR1) ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(pthread_sigmask(SIG_SETMASK, NULL, &mask), 0);
	ck_assert(!sigismember(&mask, SIGUSR1));
	ck_assert_ptr_nonnull(arena_alloc(100, 0));
}
END_TEST

static Suite *
arena_suite(void)
{
	Suite *s = suite_create("preload:arena");
	TCase *tc = tcase_create("arena");

	tcase_add_test(tc, arena_alloc_size_owns);
	tcase_add_loop_test(tc, arena_align_table, 0, ARRAY_LEN(align_cases));
	tcase_add_test(tc, arena_free_reuses_class);
	tcase_add_test(tc, arena_resize_in_class);
	tcase_add_test(tc, arena_no_overlap);
	tcase_add_test(tc, arena_threads);
	tcase_add_test(tc, arena_exhausted);
	tcase_add_test(tc, arena_mask_restored);
	tcase_add_test(tc, arena_fork_hooks);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(arena_suite());
	int failed;

	/* The arena is the process's: a fresh one per check. */
	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
