/*
 * callcount: exact call counts in the reports (see callcount.h).
 */
#include "callcount.h"

#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

static const char *
base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void
callcount_header(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	if (!profile_has_calls(p) && !h->calls_missed)
		return;
	bool *seen = xcalloc(p->nmodules + 1, sizeof(*seen));
	const char *sep = "";
	fputs("Calls counted exactly (-finstrument-functions) in:", out);
	for (size_t i = 0; i < p->nfuncs; i++) {
		uint32_t m = p->funcs[i].module;
		if (!(p->funcs[i].flags & PROFILE_FUNC_COUNTED) ||
		    m == PROFILE_NONE || seen[m])
			continue;
		seen[m] = true;
		fprintf(out, "%s %s", sep, base_name(p->modules[m].path));
		sep = ",";
	}
	if (!*sep)
		fputs(" none", out);
	fputs(".\n", out);
	if (h->calls_missed)
		fprintf(out, "%llu calls could not be counted (the counter was "
			"busy or full).\n", (unsigned long long)h->calls_missed);
	fputc('\n', out);
	free(seen);
}

/* Milliseconds per call, in at most 7 characters. */
static void
per_call(char *buf, size_t len, uint64_t weight_ns, uint64_t calls)
{
	double ms = (double)weight_ns / 1e6 / (double)calls;
	if (ms == 0)
		snprintf(buf, len, "0");
	else if (ms >= 0.01)
		snprintf(buf, len, "%.2f", ms);
	else
		snprintf(buf, len, "%.1e", ms);
}

void
callcount_flat_columns(const struct profile *p, uint32_t f, char *calls,
		       char *self_per, char *total_per, size_t len)
{
	const struct profile_func *fn = &p->funcs[f];
	calls[0] = self_per[0] = total_per[0] = '\0';
	if (!(fn->flags & PROFILE_FUNC_COUNTED))
		return;
	snprintf(calls, len, "%llu", (unsigned long long)fn->calls);
	/* Counts are the whole run's: over a window's time they would
	 * say nothing. */
	if (!fn->calls || p->hdr.window)
		return;
	per_call(self_per, len, fn->self, fn->calls);
	per_call(total_per, len, fn->total, fn->calls);
}

void
callcount_graph_primary(const struct profile *p, uint32_t f, char *buf,
			size_t len)
{
	const struct profile_func *fn = &p->funcs[f];
	buf[0] = '\0';
	if (!(fn->flags & PROFILE_FUNC_COUNTED))
		return;
	uint64_t self = 0, idx;
	if (hmap_get(&p->arc_ids, (uint64_t)f << 32 | f, &idx))
		self = p->arcs[idx].count;
	if (self)
		snprintf(buf, len, "%llu+%llu",
			 (unsigned long long)(fn->calls - self),
			 (unsigned long long)self);
	else
		snprintf(buf, len, "%llu", (unsigned long long)fn->calls);
}

void
callcount_graph_edge(const struct profile *p, const struct profile_edge *e,
		     char *buf, size_t len)
{
	buf[0] = '\0';
	if (!e->counted || e->callee == PROFILE_NONE)
		return;
	snprintf(buf, len, "%llu/%llu", (unsigned long long)e->calls,
		 (unsigned long long)p->funcs[e->callee].calls);
}
