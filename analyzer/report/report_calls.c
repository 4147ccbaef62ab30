/*
 * report_calls: the call-count listing (see report_calls.h).
 */
#include "report_calls.h"

#include <stdlib.h>
#include <string.h>

#include "spool.h"
#include "textesc.h"
#include "xmalloc.h"

/* "1,234,567" into buf. */
static const char *
with_commas(char *buf, size_t cap, uint64_t v)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)v);
	size_t k = 0;
	for (int i = 0; i < n && k + 1 < cap; i++) {
		if (i > 0 && (n - i) % 3 == 0 && k + 2 < cap)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
	return buf;
}

struct row {
	uint64_t count;
	const char *name;
};

static int
cmp_row(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* One listing of counts (indexed by enum spool_alloc_fn). */
static void
listing(FILE *out, const uint64_t *calls)
{
	struct row rows[SPOOL_ALLOC_FN_MAX_];
	char buf[32];
	size_t n = 0;
	int width = 1;

	for (uint32_t id = 0; id < SPOOL_ALLOC_FN_MAX_; id++) {
		if (!calls[id])
			continue;
		rows[n++] = (struct row){ calls[id], spool_alloc_fn_name(id) };
		int w = (int)strlen(with_commas(buf, sizeof(buf), calls[id]));
		if (w > width)
			width = w;
	}
	qsort(rows, n, sizeof(*rows), cmp_row);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%*s\t%s\n", width,
			with_commas(buf, sizeof(buf), rows[i].count),
			rows[i].name);
	if (!n)
		fputs("No calls.\n", out);
}

/* The malloc family's counts, all threads, then each thread's when there
 * are several. */
static void
alloc_counts(FILE *out, const struct profile *p)
{
	size_t nthreads = 0;

	listing(out, p->hdr.space.calls);
	for (size_t i = 0; i < p->nthreads; i++)
		nthreads += p->threads[i].has_calls;
	if (nthreads < 2)
		return;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct profile_thread *t = &p->threads[i];
		if (!t->has_calls)
			continue;
		fprintf(out, "\nThread %u", t->tid);
		if (t->name) {
			fputs(" (", out);
			textesc_put(out, t->name);
			fputc(')', out);
		}
		fputs(":\n", out);
		listing(out, t->calls);
	}
}

static int
cmp_func_calls(const void *pa, const void *pb, void *arg)
{
	const struct profile *p = arg;
	const struct profile_func *a = &p->funcs[*(const uint32_t *)pa];
	const struct profile_func *b = &p->funcs[*(const uint32_t *)pb];
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* The functions compiled with -finstrument-functions (exact counts of
 * every call, callcount.h), most called first; hidden ones left out. */
static void
instrumented_counts(FILE *out, const struct profile *p)
{
	uint32_t *ids = xcalloc(p->nfuncs + 1, sizeof(*ids));
	size_t n = 0;
	char buf[32];
	int width = 1;

	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct profile_func *f = &p->funcs[i];
		if (!(f->flags & PROFILE_FUNC_COUNTED) ||
		    (f->flags & PROFILE_FUNC_HIDDEN))
			continue;
		ids[n++] = (uint32_t)i;
		int w = (int)strlen(with_commas(buf, sizeof(buf), f->calls));
		if (w > width)
			width = w;
	}
	qsort_r(ids, n, sizeof(*ids), cmp_func_calls, (void *)p);
	for (size_t i = 0; i < n; i++) {
		const struct profile_func *f = &p->funcs[ids[i]];
		fprintf(out, "%*s\t%s\n", width,
			with_commas(buf, sizeof(buf), f->calls), f->text);
	}
	free(ids);
}

void
report_calls_write(FILE *out, const struct profile *p)
{
	bool arcs = profile_has_calls(p);

	if (!p->hdr.space.has_calls && !arcs) {
		fputs("No call counts: the spool has no CALL_COUNTS record (a "
		      "program killed before it ended, or an older profrun).\n",
		      out);
		return;
	}
	if (p->hdr.space.has_calls)
		alloc_counts(out, p);
	if (!arcs)
		return;
	if (p->hdr.space.has_calls)
		fputc('\n', out);
	fputs("Functions compiled with -finstrument-functions:\n", out);
	instrumented_counts(out, p);
}
