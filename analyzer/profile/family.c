/*
 * family: the spools of a process tree (see family.h).
 */
#include "family.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blob.h"
#include "diag.h"
#include "spool.h"
#include "xmalloc.h"

/* Reads what the listing and the tree need, the samples of the window
 * w (NULL: all); returns 0 or -1 (an error line was printed when
 * loud). */
static int
read_proc(struct family_proc *fp, const char *path, bool loud,
	  const struct family_window *w)
{
	uint64_t lo = 0, hi = UINT64_MAX; /* the window, CLOCK_MONOTONIC */
	struct blob b;
	struct spool_cursor c;
	struct spool_rec r;

	memset(fp, 0, sizeof(*fp));
	fp->parent = FAMILY_NONE;
	if (loud) {
		if (blob_open_spool(path, &b, &c) < 0)
			return -1;
	} else {
		if (blob_open(path, &b) < 0)
			return -1;
		if (spool_cursor_init(&c, b.data, b.size) < 0) {
			blob_close(&b);
			return -1;
		}
	}
	fp->path = xstrdup(path);
	size_t dropped = 0;
	while (c.pos < blob_shrunk(&b) && spool_next(&c, &r) == SPOOL_OK) {
		struct spool_process pr;
		struct spool_footer ft;
		/* Not the whole spool resident (as the loader, loader.h). */
		if (r.offset - dropped >= BLOB_WINDOW)
			dropped = blob_drop(&b, dropped, (size_t)r.offset);
		switch (r.type) {
		case SPOOL_REC_PROCESS:
			if (fp->has_process || spool_get_process(&r, &pr))
				break;
			fp->has_process = true;
			fp->pid = pr.pid;
			fp->ppid = pr.ppid;
			fp->start_mono_ns = pr.start_mono_ns;
			if (w) {
				lo = pr.start_mono_ns + w->from_ns;
				hi = w->to_ns == UINT64_MAX ? UINT64_MAX :
					pr.start_mono_ns + w->to_ns;
			}
			fp->exe = xstrndup(pr.exe.ptr, pr.exe.len);
			fp->cmdline = xstrndup(pr.cmdline.ptr, pr.cmdline.len);
			/* (Other control characters are escaped when the
			 * line is written.) */
			for (uint32_t i = 0; i < pr.cmdline.len; i++)
				if (fp->cmdline[i] == '\0')
					fp->cmdline[i] = ' ';
			for (size_t i = strlen(fp->cmdline);
			     i > 0 && fp->cmdline[i - 1] == ' '; i--)
				fp->cmdline[i - 1] = '\0';
			break;
		case SPOOL_REC_SAMPLE:
		case SPOOL_REC_SAMPLES:
			fp->samples += spool_time_samples_between(&r, lo, hi);
			break;
		case SPOOL_REC_ALLOC:
		case SPOOL_REC_ALLOCS:
			fp->allocs += spool_space_samples_between(&r, lo, hi);
			break;
		case SPOOL_REC_FOOTER:
			if (spool_get_footer(&r, &ft))
				break;
			fp->complete = true;
			fp->cpu_ns = ft.utime_ns + ft.stime_ns;
			fp->end_reason = ft.end_reason;
			fp->end_signal = ft.end_signal;
			break;
		default:
			break;
		}
	}
	if (loud && blob_shrunk(&b) != SIZE_MAX)
		diag_warn("%s: the file shrank while it was read (at offset "
			  "%zu); its line covers the %llu samples before it",
			  path, blob_shrunk(&b),
			  (unsigned long long)fp->samples);
	blob_close(&b);
	return 0;
}

static void
proc_free(struct family_proc *fp)
{
	free(fp->path);
	free(fp->exe);
	free(fp->cmdline);
}

/* Whether name is base.DIGITS or base.DIGITS.DIGITS. */
static bool
family_name(const char *name, const char *base, size_t blen)
{
	if (strncmp(name, base, blen) != 0 || name[blen] != '.')
		return false;
	const char *s = name + blen + 1;
	for (int part = 0; part < 2; part++) {
		size_t d = strspn(s, "0123456789");
		if (d == 0)
			return false;
		s += d;
		if (*s == '\0')
			return true;
		if (*s != '.')
			return false;
		s++;
	}
	return false;
}

/* Whether name is base.DIGITS.DIGITS.tmp: the spool profrun writes for
 * base, renamed to base at the end (profrun(1)); read under this name
 * when profrun was killed first. */
static bool
temp_name(const char *name, size_t blen)
{
	const char *s = name + blen;
	for (int part = 0; part < 2; part++) {
		if (*s++ != '.')
			return false;
		size_t d = strspn(s, "0123456789");
		if (d == 0)
			return false;
		s += d;
	}
	return strcmp(s, ".tmp") == 0;
}

struct cand {
	struct family_proc p;
	bool taken;
};

static int
by_start(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->p.start_mono_ns != y->p.start_mono_ns)
		return x->p.start_mono_ns < y->p.start_mono_ns ? -1 : 1;
	return strcmp(x->p.path, y->p.path);
}

/* Reads the spools named like the family of path in its directory: the
 * names path.PID[.N], and when path itself is such a name, its base and
 * the base's other children. */
static struct cand *
read_candidates(const char *path, size_t *n, const struct family_window *w)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path + 1))
			  : xstrdup("");
	const char *file = slash ? slash + 1 : path;
	size_t flen = strlen(file), blen = flen;
	struct cand *cs = NULL;
	size_t cap = 0;

	/* A child's spool as the root, or the temporary spool of the base:
	 * the siblings share the base. */
	for (size_t i = 1; i < flen; i++)
		if (file[i] == '.' &&
		    (family_name(file, file, i) || temp_name(file, i))) {
			blen = i;
			break;
		}
	*n = 0;
	DIR *d = opendir(*dir ? dir : ".");
	if (!d) {
		free(dir);
		return NULL;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		bool mine = family_name(e->d_name, file, flen) ||
			    (blen < flen &&
			     (family_name(e->d_name, file, blen) ||
			      (strncmp(e->d_name, file, blen) == 0 &&
			       e->d_name[blen] == '\0')));
		if (!mine || strcmp(e->d_name, file) == 0)
			continue;
		char *p = xmalloc(strlen(dir) + strlen(e->d_name) + 1);
		strcpy(p, dir);
		strcat(p, e->d_name);
		xgrow(&cs, &cap, *n + 1, sizeof(*cs));
		memset(&cs[*n], 0, sizeof(cs[*n]));
		if (read_proc(&cs[*n].p, p, false, w) == 0 &&
		    cs[*n].p.has_process)
			(*n)++;
		else if (cs[*n].p.path)
			proc_free(&cs[*n].p);
		free(p);
	}
	closedir(d);
	free(dir);
	if (*n > 1) /* (cs is NULL when the directory has no candidate) */
		qsort(cs, *n, sizeof(*cs), by_start);
	return cs;
}

/* The latest process of procs[0..n) but skip with this pid that started
 * before start, or FAMILY_NONE. */
static uint32_t
latest(const struct family_proc *procs, size_t n, size_t skip, uint32_t pid,
       uint64_t start)
{
	uint32_t best = FAMILY_NONE;
	for (size_t i = 0; i < n; i++) {
		const struct family_proc *q = &procs[i];
		if (i != skip && q->pid == pid && q->start_mono_ns <= start &&
		    (best == FAMILY_NONE ||
		     q->start_mono_ns >= procs[best].start_mono_ns))
			best = (uint32_t)i;
	}
	return best;
}

uint32_t
family_parent_of(const struct family_proc *procs, size_t n, size_t i)
{
	const struct family_proc *c = &procs[i];
	if (!c->has_process)
		return FAMILY_NONE;
	uint32_t par = latest(procs, n, i, c->pid, c->start_mono_ns);
	if (par == FAMILY_NONE)
		par = latest(procs, n, i, c->ppid, c->start_mono_ns);
	return par;
}

static void
add(struct family *f, const struct family_proc *p)
{
	xgrow(&f->procs, &f->cap, f->n + 1, sizeof(*f->procs));
	f->procs[f->n++] = *p;
}

/* Orders the tree depth-first (parents before children, siblings by
 * start), recomputing parent indexes. */
static void
order_tree(struct family *f)
{
	size_t n = f->n, k = 0, top = 0;
	struct family_proc *out = xcalloc(n ? n : 1, sizeof(*out));
	uint32_t *newidx = xcalloc(n ? n : 1, sizeof(*newidx));
	uint32_t *stack = xcalloc(n ? n : 1, sizeof(*stack));

	stack[top++] = 0;
	while (top) {
		uint32_t v = stack[--top];
		newidx[v] = (uint32_t)k;
		out[k++] = f->procs[v];
		/* Children pushed latest first, so they pop in start order. */
		for (size_t i = n; i-- > 1;)
			if (f->procs[i].parent == v)
				stack[top++] = (uint32_t)i;
	}
	for (size_t i = 0; i < n; i++)
		if (out[i].parent != FAMILY_NONE)
			out[i].parent = newidx[out[i].parent];
	free(f->procs);
	free(newidx);
	free(stack);
	f->procs = out;
	f->cap = n;
}

int
family_read(struct family *f, const char *path, bool children)
{
	return family_read_window(f, path, children, NULL);
}

int
family_read_window(struct family *f, const char *path, bool children,
		   const struct family_window *w)
{
	struct family_proc root;
	size_t nc;

	memset(f, 0, sizeof(*f));
	if (read_proc(&root, path, true, w) < 0)
		return -1;
	add(f, &root);
	if (!children || !root.has_process)
		return 0;
	struct cand *cs = read_candidates(path, &nc, w);
	for (size_t i = 0; i < nc; i++) {
		struct family_proc *c = &cs[i].p;
		if (c->start_mono_ns < f->procs[0].start_mono_ns)
			continue;
		uint32_t par = latest(f->procs, f->n, SIZE_MAX, c->pid,
				      c->start_mono_ns);
		if (par == FAMILY_NONE)
			par = latest(f->procs, f->n, SIZE_MAX, c->ppid,
				     c->start_mono_ns);
		if (par == FAMILY_NONE)
			continue;
		c->parent = par;
		c->depth = f->procs[par].depth + 1;
		cs[i].taken = true;
		add(f, c);
	}
	for (size_t i = 0; i < nc; i++)
		if (!cs[i].taken)
			proc_free(&cs[i].p);
	free(cs);
	order_tree(f);
	return 0;
}

void
family_free(struct family *f)
{
	for (size_t i = 0; i < f->n; i++)
		proc_free(&f->procs[i]);
	free(f->procs);
	memset(f, 0, sizeof(*f));
}
