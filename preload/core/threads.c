/*
 * threads: the slot table (see threads.h). Layer: core.
 *
 * A new thread is attached from a trampoline (preload.c's pthread_create
 * wrapper) that runs before the target's start routine, so it is sampled
 * from its first instruction; a pthread key destructor detaches it on
 * every way out (return or pthread_exit). The slot is claimed in the
 * creating thread and passed to the trampoline as its argument, so no
 * memory is allocated on the target's heap.
 */
#include "threads.h"

#include "altstack.h"
#include "log.h"
#include "real.h"
#include "state.h"
#include "timer.h"
#include "sys.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static struct thread_slot slots[THREADS_MAX];
static _Atomic uint32_t slots_used;
static pthread_key_t exit_key;
static __thread struct thread_slot *self __attribute__((tls_model("initial-exec")));

static struct threads_hooks hooks;

/* async-signal-safe */
struct thread_slot *
threads_self(void)
{
	return self;
}

/* async-signal-safe */
uint32_t
threads_used(void)
{
	return atomic_load_explicit(&slots_used, memory_order_acquire);
}

/* async-signal-safe */
struct stacks_table *
threads_stacks(struct thread_slot *t)
{
	if (!t->stream.id)
		t->stream.id = stacks_new_stream();
	return stacks_table_for(&t->stacks, t->stream.id);
}

struct thread_slot *
threads_slot(uint32_t i)
{
	return &slots[i];
}

struct thread_slot *
threads_claim(void)
{
	for (uint32_t i = 0; i < THREADS_MAX; i++) {
		int expect = THREAD_FREE;
		if (!atomic_compare_exchange_strong(&slots[i].state, &expect,
						    THREAD_CLAIMED))
			continue;
		uint32_t used = atomic_load(&slots_used);
		while (used <= i &&
		       !atomic_compare_exchange_weak(&slots_used, &used, i + 1))
			;
		return &slots[i];
	}
	return NULL;
}

/* Clock ticks per second of /proc's times. */
static uint64_t clk_tck = 100;

/* The CPU time of thread tid of this process so far, and its user-mode
 * part (SPOOL_CPU_UNKNOWN when not known). Returns 0, or -1 when the
 * thread is gone. async-signal-safe */
static int
thread_cpu(pid_t tid, uint64_t *cpu, uint64_t *user)
{
	int me = tid == (pid_t)sys_call(SYS_gettid);
	clockid_t clk = me ? CLOCK_THREAD_CPUTIME_ID : prof_thread_clock(tid);
	struct timespec ts;
	if (clock_gettime(clk, &ts) != 0)
		return -1;
	*cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	*user = SPOOL_CPU_UNKNOWN;
	if (me) {
		struct rusage ru;
		if (getrusage(RUSAGE_THREAD, &ru) == 0)
			*user = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
				(uint64_t)ru.ru_utime.tv_usec * 1000u;
		return 0;
	}
	/* utime is the 14th field of stat, the 12th after the name's ")". */
	char path[64], buf[512];
	log_snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	char *p = strrchr(buf, ')');
	for (int field = 2; p && field < 14; field++)
		p = strchr(p + 1, ' ');
	if (p)
		*user = strtoull(p + 1, NULL, 10) * (1000000000u / clk_tck);
	return 0;
}

/* Encodes a THREAD record into buf (128 bytes); returns its length or 0.
 * cpu: the thread's CPU time in this image when known (EXIT, CPU). */
static size_t
encode_thread(uint8_t *buf, pid_t tid, uint32_t event, const char *name,
	      const struct thread_slot *cpu)
{
	struct spool_buf b;
	spool_buf_init(&b, buf, 128);
	struct spool_thread rec = {
		.time_ns = prof_now_ns(), .tid = (uint32_t)tid, .event = event,
		.name = { name, (uint32_t)strnlen(name, 16) },
	};
	uint64_t now, user;
	if (cpu && thread_cpu(tid, &now, &user) == 0) {
		rec.has_cpu = 1;
		rec.cpu_ns = now > cpu->cpu_base_ns ? now - cpu->cpu_base_ns : 0;
		rec.user_ns = user == SPOOL_CPU_UNKNOWN ||
					      cpu->user_base_ns == SPOOL_CPU_UNKNOWN
				      ? SPOOL_CPU_UNKNOWN
			      : user > cpu->user_base_ns ? user - cpu->user_base_ns
							 : 0;
	}
	return spool_put_thread(&b, &rec) == 0 ? b.len : 0;
}

/* Maps the slot's room for deep stacks, once, when --max-depth asks for
 * it. Not in a signal handler. */
static void
map_deep(struct thread_slot *t)
{
	if (t->deep || prof_state.cfg.max_depth <= SPOOL_MAX_DEPTH)
		return;
	void *p = mmap(NULL, sizeof(struct thread_deep), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p != MAP_FAILED)
		t->deep = p;
}

/* The thread's CPU time so far is not this image's: it is taken off. */
static void
set_cpu_base(struct thread_slot *t)
{
	if (thread_cpu(t->tid, &t->cpu_base_ns, &t->user_base_ns) != 0)
		t->cpu_base_ns = 0, t->user_base_ns = 0;
}

/* Records the calling thread's start or exit in its own stream. */
static void
record_thread(struct thread_slot *t, uint32_t event)
{
	char name[17] = "";
	uint8_t buf[128];
	/* The system call, not prctl(): the library's own prctl wrapper
	 * (process life) would be a call upward, and its first look-up of
	 * the real one is not safe in a handler that adopts a thread. */
	if (event != SPOOL_THREAD_EXIT)
		sys_call(SYS_prctl, PR_GET_NAME, name);
	size_t len = encode_thread(buf, t->tid, event, name,
				   event == SPOOL_THREAD_EXIT ? t : NULL);
	if (len)
		threads_push(t, buf, len);
}

static void
find_stack(struct thread_slot *t)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	t->stack_lo = t->stack_hi = 0;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return;
	if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
		t->stack_lo = (uint64_t)addr;
		t->stack_hi = (uint64_t)addr + size;
	}
	pthread_attr_destroy(&attr);
}

int
threads_attach(struct thread_slot *t)
{
	/* First: the handlers may run from the timer's first signal. */
	altstack_give(&t->altstack);
	t->tid = gettid();
	t->adopted = 0;
	t->pthread = pthread_self();
	set_cpu_base(t);
	map_deep(t);
	t->busy = THREAD_IDLE;
	atomic_store(&t->deferred_ns, 0);
	atomic_store(&t->perf_fd, -1);
	atomic_store(&t->has_timer, 0);
	memset(&t->stream, 0, sizeof(t->stream));
	find_stack(t);
	if (hooks.attached)
		hooks.attached(t);
	record_thread(t, SPOOL_THREAD_START);
	atomic_fetch_add(&prof_state.threads_seen, 1);
	self = t;
	pthread_setspecific(exit_key, t);
	atomic_store(&t->state, THREAD_LIVE);
	int rc = timer_thread_start(t);
	static _Atomic int warned;
	if (rc < 0 && !atomic_exchange(&warned, 1))
		log_msg("cannot arm the CPU timer of thread %d (%s); it is not "
			"sampled (profanalyze names the threads left so)",
			(int)t->tid, strerror(-rc));
	return rc;
}

void
threads_detach_self(void)
{
	struct thread_slot *t = self;
	if (!t)
		return;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, prof_state.cfg.sig);
	real_mask(SIG_BLOCK, &set, NULL);
	timer_thread_stop(t);
	if (hooks.leaving)
		hooks.leaving(t);
	record_thread(t, SPOOL_THREAD_EXIT);
	self = NULL;
	appender_close_stream(&t->stream);
	/* Before the slot goes back: its next thread gets the stack. */
	altstack_take_back(&t->altstack);
	atomic_store(&t->state, THREAD_FREE);
}

static void
exit_key_destructor(void *p)
{
	(void)p;
	/* Profiling ended early (seccomp, preload.c): a thread's exit
	 * makes no system call of ours, which a filter may refuse. */
	if (!prof_state.initialised)
		return;
	threads_detach_self();
}

/* async-signal-safe */
int
threads_push(struct thread_slot *t, const void *rec, size_t len)
{
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	int rc = appender_append(&t->stream, rec, len);
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	if (rc == -ENOSPC || rc == -EFBIG)
		prof_drop(appender_drop_cause(rc));
	return rc;
}

/* async-signal-safe */
int
threads_emit(const void *rec, size_t len)
{
	struct thread_slot *t = self;
	if (t)
		return threads_push(t, rec, len);
	int rc = appender_shared(rec, len);
	if (rc == -ENOSPC || rc == -EFBIG || rc == -EBUSY)
		prof_drop(appender_drop_cause(rc));
	return rc;
}

_Atomic uint32_t threads_walker_seq;

void
threads_quiesce(void)
{
	uint32_t s0 = atomic_load(&threads_walker_seq);
	while ((s0 & 1) && atomic_load(&threads_walker_seq) == s0)
		sched_yield();
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		uint32_t s = atomic_load(&slots[i].handler_seq);
		while ((s & 1) && atomic_load(&slots[i].handler_seq) == s)
			sched_yield();
	}
}

void
threads_stop_all_timers(void)
{
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++)
		if (atomic_load(&slots[i].state) == THREAD_LIVE)
			timer_thread_stop(&slots[i]);
}

struct thread_slot *
threads_postfork_child(void)
{
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = &slots[i];
		/* (The child's copy of the parent's event counts nothing and
		 * signals nobody; closing it only frees the number.) */
		timer_close_perf(t, 0);
		/* POSIX timers are not inherited by fork; nothing to delete. */
		atomic_store(&t->has_timer, 0);
		atomic_store(&t->handler_seq, 0);
		appender_forget_stream(&t->stream);
		if (t != self)
			atomic_store(&t->state, THREAD_FREE);
	}
	atomic_store(&prof_state.threads_seen, 0);
	if (self) {
		self->tid = gettid();
		self->busy = THREAD_IDLE;
		atomic_store(&self->deferred_ns, 0);
		set_cpu_base(self); /* (a new process's clocks start at 0) */
	}
	return self;
}

void
threads_child_started(void)
{
	if (!self)
		return;
	record_thread(self, SPOOL_THREAD_START);
	atomic_store(&prof_state.threads_seen, 1);
}

void
threads_record_name(pthread_t thread, const char *name)
{
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = &slots[i];
		if (atomic_load(&t->state) != THREAD_LIVE ||
		    !pthread_equal(t->pthread, thread))
			continue;
		uint8_t buf[128];
		size_t len = encode_thread(buf, t->tid, SPOOL_THREAD_NAME, name,
					   NULL);
		if (len)
			threads_emit(buf, len);
		return;
	}
}

/* Threads already running when the library starts (created by another
 * library's constructor, or by clone) get a slot and a timer aimed at
 * them; each binds to its slot in the handler, at its first sample. */
static void
adopt_existing(void)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	if (!dir)
		return;
	while ((e = readdir(dir)) != NULL) {
		pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);
		if (tid <= 0 || tid == gettid())
			continue;
		struct thread_slot *t = threads_claim();
		if (!t)
			break;
		memset(&t->stream, 0, sizeof(t->stream));
		t->tid = tid;
		t->adopted = 1;
		set_cpu_base(t);
		map_deep(t);
		atomic_store(&t->bound, 0);
		t->stack_lo = t->stack_hi = 0;
		atomic_store(&t->perf_fd, -1);
		atomic_store(&t->has_timer, 0);
		char path[64], name[17] = "";
		log_snprintf(path, sizeof(path), "/proc/self/task/%d/comm", (int)tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, name, 16);
			close(fd);
			name[n > 0 ? n : 0] = '\0';
			name[strcspn(name, "\n")] = '\0';
		}
		uint8_t buf[128];
		size_t len = encode_thread(buf, tid, SPOOL_THREAD_START, name, NULL);
		if (len)
			threads_emit(buf, len);
		atomic_fetch_add(&prof_state.threads_seen, 1);
		atomic_store(&t->state, THREAD_LIVE);
		timer_thread_start(t);
	}
	closedir(dir);
}

/* The mapping of /proc/self/maps that holds addr. async-signal-safe */
static int
mapping_of(uint64_t addr, uint64_t *lo, uint64_t *hi)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char buf[4096];
	size_t have = 0;
	int found = -1;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n')) != NULL) {
			char *dash;
			uint64_t a = strtoull(line, &dash, 16);
			uint64_t b = *dash == '-' ? strtoull(dash + 1, NULL, 16) : 0;
			if (addr >= a && addr < b) {
				*lo = a;
				*hi = b;
				found = 0;
				goto out;
			}
			line = nl + 1;
		}
		have = (size_t)(buf + have - line);
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0; /* a line longer than the buffer: skip it */
	}
out:
	close(fd);
	return found;
}

/* async-signal-safe */
struct thread_slot *
threads_adopt_self(uint64_t sp)
{
	pid_t tid = (pid_t)sys_call(SYS_gettid);
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = &slots[i];
		if (!t->adopted || t->tid != tid ||
		    atomic_load(&t->state) != THREAD_LIVE ||
		    atomic_exchange(&t->bound, 1))
			continue;
		uint64_t lo, hi;
		if (mapping_of(sp, &lo, &hi) == 0) {
			t->stack_lo = lo;
			t->stack_hi = hi;
		}
		/* (This first signal runs where the thread was; the next
		 * ones on the stack given here.) */
		altstack_give(&t->altstack);
		self = t;
		return t;
	}
	return NULL;
}

void
threads_reap_adopted(void)
{
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = &slots[i];
		char path[64];
		if (!t->adopted || atomic_load(&t->state) != THREAD_LIVE)
			continue;
		log_snprintf(path, sizeof(path), "/proc/self/task/%d", (int)t->tid);
		if (access(path, F_OK) == 0)
			continue;
		timer_thread_stop(t);
		uint8_t buf[128];
		size_t len = encode_thread(buf, t->tid, SPOOL_THREAD_EXIT, "", NULL);
		if (len)
			threads_emit(buf, len);
		/* (Its thread is gone: no handler of it can be appending.) */
		appender_close_stream(&t->stream);
		atomic_store(&t->state, THREAD_FREE);
	}
}

void
threads_record_cpu(void)
{
	uint32_t used = threads_used();
	for (uint32_t i = 0; i < used; i++) {
		struct thread_slot *t = &slots[i];
		uint8_t buf[128];
		if (atomic_load(&t->state) != THREAD_LIVE)
			continue;
		size_t len = encode_thread(buf, t->tid, SPOOL_THREAD_CPU, "", t);
		if (len)
			threads_emit(buf, len);
	}
}

int
threads_init(const struct threads_hooks *h)
{
	hooks = *h;
	long tck = sysconf(_SC_CLK_TCK);
	if (tck > 0 && tck <= 1000000000)
		clk_tck = (uint64_t)tck;
	if (pthread_key_create(&exit_key, exit_key_destructor) != 0)
		return -EAGAIN;
	struct thread_slot *t = threads_claim();
	if (!t)
		return -ENOSPC;
	int rc = threads_attach(t);
	if (rc == 0)
		adopt_existing();
	return rc;
}
