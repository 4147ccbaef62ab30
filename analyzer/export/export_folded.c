/*
 * export_folded: folded stacks, the input of the flame graph tools
 * (FlameGraph's flamegraph.pl, inferno, speedscope); see export.h.
 *
 * One line per calling-context-tree node that has weight of its own:
 *   outermost;...;leaf COUNT
 * the labels of the functions on the node's path joined by ';', a space,
 * and COUNT: the node's self samples in a time profile (what
 * stackcollapse-perf writes), its self bytes in a space profile (what
 * memory flame graphs show; flamegraph.pl --countname=bytes). The counts
 * thus add up to the samples, resp. the sampled bytes, of the report.
 * Lines come depth-first with siblings by label (byte order): the same
 * profile always gives the same file, and files diff well.
 *
 * The tools split a line at its last space and the stack at ';', and some
 * trim whitespace, so names are made safe: ';' becomes ':'; control
 * characters (C0 with newline and tab, DEL, C1) and the line and
 * paragraph separators U+2028 and U+2029 become '?'; a space at either
 * end of a name becomes '_'; bytes that are not UTF-8 become U+FFFD (as
 * in the JSON report); an empty name is "?". Two names may then read the
 * same; their lines stay apart, and the tools add such lines up. Weight
 * of the tree's root itself (samples without any frame) is the line
 * "[no frames] COUNT".
 */
#include "export.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xmalloc.h"

#define NO_FRAMES "[no frames]"

/* Control characters and what some readers take for the end of a line:
 * JavaScript's '.' (speedscope) stops at U+2028 and U+2029, Python's
 * splitlines() at those and at U+0085. */
static bool
unsafe_char(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 ||
	       cp == 0x2029;
}

/* Writes name as a safe frame (see the top of the file). */
void
export_folded_put_frame(FILE *out, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t n = strlen(name);

	if (!n) {
		fputc('?', out);
		return;
	}
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = json_utf8_decode(s + i, n - i, &cp);
		if (k == 0) {
			fputs("\xef\xbf\xbd", out); /* U+FFFD */
			i++;
		} else if (unsafe_char(cp)) {
			fputc('?', out);
			i += k;
		} else if (k > 1) {
			fwrite(s + i, 1, k, out);
			i += k;
		} else {
			if (cp == ';')
				cp = ':';
			else if (cp == ' ' && (i == 0 || i + 1 == n))
				cp = '_';
			fputc((int)cp, out);
			i++;
		}
	}
}

/* The weight a line counts for node x. */
static uint64_t
count_of(const struct profile *p, uint32_t x)
{
	const struct profile_node *n = &p->nodes[x];
	return p->hdr.kind == PROFILE_KIND_SPACE ? n->self : n->self_samples;
}

/* Pushes x's children onto the walk's stack, the first by label on top. */
static void
push_kids(const struct profile *p, uint32_t x, uint32_t **st, size_t *depth,
	  size_t *cap)
{
	size_t first = *depth;

	for (uint32_t c = p->nodes[x].first_child; c != PROFILE_NONE;
	     c = p->nodes[c].next_sibling) {
		if (!p->nodes[c].total_samples && !p->nodes[c].total)
			continue;
		xgrow(st, cap, *depth + 1, sizeof(**st));
		(*st)[(*depth)++] = c;
	}
	/* Without kids, *st may still be NULL: neither qsort_r nor pointer
	 * arithmetic may see it. */
	if (*depth - first > 1)
		qsort_r(*st + first, *depth - first, sizeof(**st),
			profile_cmp_nodes_by_label, (void *)p);
	for (size_t i = first, j = *depth; i + 1 < j; i++, j--) {
		uint32_t t = (*st)[i];
		(*st)[i] = (*st)[j - 1];
		(*st)[j - 1] = t;
	}
}

/* The path of node x, outermost first, into *path; returns its length. */
static size_t
path_of(const struct profile *p, uint32_t x, uint32_t **path, size_t *cap)
{
	size_t n = 0;

	for (uint32_t y = x; y != PROFILE_ROOT; y = p->nodes[y].parent) {
		xgrow(path, cap, n + 1, sizeof(**path));
		(*path)[n++] = y;
	}
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = (*path)[i];
		(*path)[i] = (*path)[n - 1 - i];
		(*path)[n - 1 - i] = t;
	}
	return n;
}

int
export_folded_write(FILE *out, const struct profile *p,
		    const struct export_opts *opts)
{
	uint32_t *st = NULL, *path = NULL;
	size_t depth = 0, cap = 0, path_cap = 0;

	(void)opts;
	if (!p->nnodes)
		return 0;
	if (count_of(p, PROFILE_ROOT))
		fprintf(out, NO_FRAMES " %llu\n",
			(unsigned long long)count_of(p, PROFILE_ROOT));
	push_kids(p, PROFILE_ROOT, &st, &depth, &cap);
	while (depth) {
		uint32_t x = st[--depth];
		uint64_t count = count_of(p, x);
		if (count) {
			size_t n = path_of(p, x, &path, &path_cap);
			for (size_t i = 0; i < n; i++) {
				if (i)
					fputc(';', out);
				export_folded_put_frame(
					out,
					p->funcs[p->nodes[path[i]].func].label);
			}
			fprintf(out, " %llu\n", (unsigned long long)count);
		}
		push_kids(p, x, &st, &depth, &cap);
	}
	free(path);
	free(st);
	return 0;
}
