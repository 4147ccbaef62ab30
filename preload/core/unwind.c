/*
 * unwind: libunwind with our own accessors (see unwind.h).
 *
 * The address space uses libunwind's per-thread cache of register-state
 * rules, so in steady state a frame costs a cache lookup and a few stack
 * reads. find_proc_info hands libunwind the .eh_frame_hdr search table of
 * the module that holds the IP, which is what its own dl_iterate_phdr
 * callback would have found.
 *
 * Layer: core; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "unwind.h"

#include "modules.h"
#include "range.h"
#include "real.h"
#include "state.h"
#include "spool.h"
#include "threads.h"

#include <dlfcn.h>
#include <errno.h>
#include <libunwind.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Exported by libunwind (the same search its local address space uses for
 * tables found through dl_iterate_phdr) but not declared in its headers. */
extern int
_Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
				   unw_dyn_info_t *di, unw_proc_info_t *pi,
				   int need_unwind_info, void *arg);

/* Reads outside the stack and the modules cost a system call each; a
 * sample gets this many, so that a handler can never take longer than a
 * sampling period on a stack it cannot make sense of. */
#define UNWIND_SLOW_READS 64

struct unwind_arg {
	const ucontext_t *uc;
	const struct thread_slot *t;
	int slow_reads_left;
	/* A copy of another thread's stack from snap_lo on (unwind_blocked),
	 * read in place of the stack itself. */
	const uint8_t *snap;
	uint64_t snap_lo, snap_len;
	/* The memo this walk is remembered in (unwind_stack_memo), or NULL. */
	struct unwind_memo *memo;
};


/* Remembers that the walk read val under key. async-signal-safe */
static inline void
memo_note(struct unwind_arg *a, uint64_t key, uint64_t val)
{
	struct unwind_memo *m = a->memo;
	if (!m || m->nreads > UNWIND_MEMO_READS)
		return;
	if (m->nreads == UNWIND_MEMO_READS) {
		m->nreads++; /* too many: not kept */
		return;
	}
	m->key[m->nreads] = key;
	m->val[m->nreads++] = val;
}

/* The walk read something no memo can check again. async-signal-safe */
static inline void
memo_spoil(struct unwind_arg *a)
{
	if (a->memo)
		a->memo->nreads = UNWIND_MEMO_READS + 1;
}

static unw_addr_space_t addr_space;
static __thread int active __attribute__((tls_model("initial-exec")));

/* async-signal-safe */
int
unwind_active(void)
{
	return active;
}

/* The module holding ip when the table does not have it yet: a library
 * loaded since the table's last sync (its load is recorded now, so that
 * the analyzer can name its frames). The C library's _dl_find_object
 * finds it without a lock;
 * its unwind table's header is read through the kernel (another thread
 * could be unloading it), as is everything libunwind then reads of it
 * (read_word: it is in no module the table knows). async-signal-safe */
static int
find_unlisted(uint64_t ip, struct module_view *m)
{
	struct dl_find_object fo;
	uint8_t hdr[MODULES_EH_HDR_LEN];

	if (_dl_find_object((void *)(uintptr_t)ip, &fo) != 0)
		return -1;
	modules_announce(&fo);
	if (!fo.dlfo_eh_frame)
		return -1;
	struct iovec local = { hdr, sizeof(hdr) };
	struct iovec remote = { fo.dlfo_eh_frame, sizeof(hdr) };
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) !=
	    (ssize_t)sizeof(hdr))
		return -1;
	memset(m, 0, sizeof(*m));
	m->text_lo = (uint64_t)(uintptr_t)fo.dlfo_map_start;
	m->text_hi = (uint64_t)(uintptr_t)fo.dlfo_map_end;
	m->eh_hdr = (uint64_t)(uintptr_t)fo.dlfo_eh_frame;
	modules_parse_eh_hdr(hdr, m);
	return 0;
}

/* async-signal-safe */
static int
find_proc_info(unw_addr_space_t as, unw_word_t ip, unw_proc_info_t *pi,
	       int need_unwind_info, void *arg)
{
	struct module_view m;
	if (modules_lookup_text(ip, &m) < 0 && find_unlisted(ip, &m) < 0)
		return -UNW_ENOINFO;
	if (!m.eh_table)
		return -UNW_ENOINFO;
	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m.text_lo;
	di.end_ip = m.text_hi;
	di.u.rti.segbase = m.eh_hdr;
	di.u.rti.table_data = m.eh_table;
	di.u.rti.table_len = m.eh_count * 8 / sizeof(unw_word_t);
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi,
						  need_unwind_info, arg);
}

/* async-signal-safe */
static void
put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi, void *arg)
{
	/* libunwind frees the DWARF tables it allocated itself. */
}

/* async-signal-safe */
static int
get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr, void *arg)
{
	return -UNW_ENOINFO;
}

/* async-signal-safe */
static int
read_word(struct unwind_arg *a, unw_word_t addr, unw_word_t *val)
{
	const struct thread_slot *t = a->t;
	if (addr & 7)
		return -UNW_EINVAL;
	if (a->snap && range_within(a->snap_lo, a->snap_len, addr, 8)) {
		memcpy(val, a->snap + (addr - a->snap_lo), sizeof(*val));
		return 0;
	}
	if (t && range_holds(t->stack_lo, t->stack_hi, addr, 8)) {
		*val = *(const unw_word_t *)addr;
		memo_note(a, addr, *val);
		return 0;
	}
	/* A module's memory: its unwind tables, the same until the module
	 * table changes (which voids every memo). */
	if (modules_readable(addr, 8)) {
		*val = *(const unw_word_t *)addr;
		return 0;
	}
	memo_spoil(a);
	if (a->slow_reads_left-- <= 0)
		return -UNW_EINVAL;
	struct iovec local = { val, sizeof(*val) };
	struct iovec remote = { (void *)addr, sizeof(*val) };
	if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != sizeof(*val))
		return -UNW_EINVAL;
	return 0;
}

/* async-signal-safe */
static int
access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
	   void *arg)
{
	if (write)
		return -UNW_EINVAL;
	return read_word(arg, addr, val);
}

/* libunwind's x86-64 register numbers to ucontext gregs. */
static const int greg_of[] = {
	[UNW_X86_64_RAX] = REG_RAX, [UNW_X86_64_RDX] = REG_RDX,
	[UNW_X86_64_RCX] = REG_RCX, [UNW_X86_64_RBX] = REG_RBX,
	[UNW_X86_64_RSI] = REG_RSI, [UNW_X86_64_RDI] = REG_RDI,
	[UNW_X86_64_RBP] = REG_RBP, [UNW_X86_64_RSP] = REG_RSP,
	[UNW_X86_64_R8] = REG_R8, [UNW_X86_64_R9] = REG_R9,
	[UNW_X86_64_R10] = REG_R10, [UNW_X86_64_R11] = REG_R11,
	[UNW_X86_64_R12] = REG_R12, [UNW_X86_64_R13] = REG_R13,
	[UNW_X86_64_R14] = REG_R14, [UNW_X86_64_R15] = REG_R15,
	[UNW_X86_64_RIP] = REG_RIP,
};

/* async-signal-safe */
static int
access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t *val, int write,
	   void *arg)
{
	struct unwind_arg *a = arg;
	if (write || reg < 0 || reg > UNW_X86_64_RIP)
		return -UNW_EBADREG;
	*val = (unw_word_t)a->uc->uc_mcontext.gregs[greg_of[reg]];
	memo_note(a, ((uint64_t)reg << 1) | 1, *val);
	return 0;
}

static int
access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t *val,
	     int write, void *arg)
{
	return -UNW_EBADREG;
}

static int
resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	return -UNW_EINVAL;
}

static int
get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf, size_t len,
	      unw_word_t *offp, void *arg)
{
	return -UNW_ENOINFO;
}

static unw_accessors_t accessors = {
	.find_proc_info = find_proc_info,
	.put_unwind_info = put_unwind_info,
	.get_dyn_info_list_addr = get_dyn_info_list_addr,
	.access_mem = access_mem,
	.access_reg = access_reg,
	.access_fpreg = access_fpreg,
	.resume = resume,
	.get_proc_name = get_proc_name,
};

/* Set while libunwind sets itself up (unwind_init): the pipe it opens
 * then is ours (preload.c's pipe2 wrapper moves it out of the program's
 * way). */
static int initialising;

/* async-signal-safe */
int
unwind_initialising(void)
{
	return initialising;
}

/* After the module table changed: libunwind's cached rules may be of a
 * module that is gone (modules_on_change). */
static void
flush_cache(void)
{
	if (addr_space)
		unw_flush_cache(addr_space, 0, 0);
}

static int
setup(void)
{
	addr_space = unw_create_addr_space(&accessors, 0);
	if (!addr_space)
		return -ENOMEM;
	unw_set_caching_policy(addr_space, UNW_CACHE_PER_THREAD);
	modules_on_change(flush_cache);
	/* One walk of our own stack now, so that libunwind's lazy set-up
	 * (locks, memory pools) happens here and not in a signal handler. */
	ucontext_t uc;
	uint64_t pcs[4];
	uint16_t flags;
	if (getcontext(&uc) == 0)
		unwind_stack(&uc, NULL, pcs, 4, &flags);
	return 0;
}

int
unwind_init(void)
{
	initialising = 1;
	int rc = setup();
	initialising = 0;
	return rc;
}

static uint32_t
walk(struct unwind_arg *arg, uint64_t *pcs, uint32_t max, uint16_t *flags);

/* async-signal-safe */
uint32_t
unwind_stack(const ucontext_t *uc, const struct thread_slot *t,
	     uint64_t *pcs, uint32_t max, uint16_t *flags)
{
	struct unwind_arg arg = { uc, t, UNWIND_SLOW_READS, NULL, 0, 0, NULL };
	return walk(&arg, pcs, max, flags);
}

/* Whether every value memo m's walk read is still the same for thread t
 * from context uc. async-signal-safe */
static int
memo_holds(const struct unwind_memo *m, const ucontext_t *uc,
	   const struct thread_slot *t)
{
	for (uint32_t i = 0; i < m->nreads; i++) {
		uint64_t key = m->key[i], now;
		if (key & 1) {
			now = (uint64_t)uc->uc_mcontext.gregs[greg_of[key >> 1]];
		} else {
			if (!range_holds(t->stack_lo, t->stack_hi, key, 8))
				return 0;
			now = *(const uint64_t *)(uintptr_t)key;
		}
		if (now != m->val[i])
			return 0;
	}
	return 1;
}

/* async-signal-safe */
uint32_t
unwind_stack_memo(const ucontext_t *uc, const struct thread_slot *t,
		  struct unwind_memo *memo, uint64_t *pcs, uint32_t max,
		  uint16_t *flags)
{
	uint32_t ep = modules_epoch();
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];

	if (!t || max > UNWIND_MEMO_DEPTH)
		return unwind_stack(uc, t, pcs, max, flags);
	if (memo->epoch == ep && memo->nreads <= UNWIND_MEMO_READS &&
	    memo->max == max && memo->pcs[0] == pc &&
	    memo_holds(memo, uc, t)) {
		memcpy(pcs, memo->pcs, memo->depth * sizeof(*pcs));
		*flags = memo->flags;
		return memo->depth;
	}
	memo->epoch = 0; /* void while it is rewritten */
	memo->nreads = 0;
	struct unwind_arg arg = { uc, t, UNWIND_SLOW_READS, NULL, 0, 0, memo };
	uint32_t n = walk(&arg, pcs, max, flags);
	if (memo->nreads <= UNWIND_MEMO_READS) {
		memcpy(memo->pcs, pcs, n * sizeof(*pcs));
		memo->depth = n;
		memo->flags = *flags;
		memo->max = max;
		memo->epoch = ep;
	}
	return n;
}

uint32_t
unwind_blocked(uint64_t pc, uint64_t sp, const uint8_t *stack, uint64_t len,
	       uint64_t *pcs, uint32_t max, uint16_t *flags)
{
	ucontext_t uc;
	memset(&uc, 0, sizeof(uc));
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
	/* No thread slot: the stack is read from the copy, or through the
	 * kernel beyond it, since the thread may wake, exit and have its
	 * stack unmapped meanwhile. */
	struct unwind_arg arg = { &uc, NULL, UNWIND_SLOW_READS, stack, sp, len,
				  NULL };
	return walk(&arg, pcs, max, flags);
}

/* async-signal-safe */
static uint32_t
walk(struct unwind_arg *arg, uint64_t *pcs, uint32_t max, uint16_t *flags)
{
	const ucontext_t *uc = arg->uc;
	unw_cursor_t cursor;
	unw_word_t ip;
	uint32_t n = 0;
	*flags = 0;
	pcs[n++] = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	active++;
	if (unw_init_remote(&cursor, addr_space, arg) < 0) {
		*flags |= SPOOL_SAMPLE_UNWIND_ERR;
		active--;
		return n;
	}
	for (;;) {
		int rc = unw_step(&cursor);
		if (rc == 0)
			break;
		if (rc < 0) {
			*flags |= SPOOL_SAMPLE_UNWIND_ERR;
			break;
		}
		if (n == max) {
			*flags |= SPOOL_SAMPLE_TRUNCATED;
			break;
		}
		if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
			break;
		pcs[n++] = ip;
	}
	active--;
	return n;
}

