/*
 * export_lispworks: the LispWorks profiler tree file (see export.h).
 *
 * The file is UTF-8 text: a first line "LispWorks Profiler Tree: NAME",
 * then one line per node of the calling-context tree, depth first,
 *   Depth|Count|Call-Count|Seen-Count|Top-Count|Name
 * where Count is the node's own figure and the rest is the "function
 * info", repeated at every occurrence of the function. Our figures map
 * onto LispWorks' definitions as follows, in samples for time and space
 * profiles alike (a sample is a tick of the timer or a sampled
 * allocation; the tree counts how often code was seen, not how long):
 *   - Count: the samples whose path passes through the node (its total
 *     samples): how often the function was seen with that chain of
 *     callers. A recursive call is a branch of its own, so nested
 *     occurrences each count the samples below them.
 *   - Seen-Count: the function's total samples, each sample counted once
 *     however often the function is on its stack.
 *   - Top-Count: the function's self samples. With hiding, a hidden
 *     callee's samples are its displayed caller's, as in every report.
 *   - Call-Count: we sample and do not count calls, so it is 0 (as
 *     LispWorks writes when it did not record them), except for the
 *     profiler's wrappers of the malloc family, whose exact call counts
 *     the spool may hold.
 * Threads share one tree, as in the outline; --thread picks one.
 *
 * Depth 0 is the root of the tree, the string "root" (names of nodes that
 * are not code are Lisp strings: the root, the markers of cut stacks and
 * "..." for hidden code). Siblings come heaviest first, then by label,
 * the outline's order; no node is left out for a threshold.
 */
#include "export.h"

#include <stdlib.h>
#include <string.h>

#include "space.h"
#include "json.h"
#include "xmalloc.h"

#define ROOT_NAME "root"

/* What replaces a line end inside a name or the tree's name: the control
 * pictures U+2424 and U+240D, so the line stays one line and a reader
 * still sees where the break was. Other control characters, C1 ones
 * (U+0080..U+009F) included, are written as \xNN a byte and a backslash
 * doubled, as in the text reports (textesc.h), so that no escape sequence
 * reaches a terminal. Bytes that are not UTF-8 become U+FFFD, as in the
 * JSON export. */
#define PICTURE_LF "\xe2\x90\xa4"
#define PICTURE_CR "\xe2\x90\x8d"
#define REPLACEMENT "\xef\xbf\xbd"

/* Writes s as valid UTF-8 without line ends; in a Lisp string (quoted)
 * '"' and '\' are escaped as the Lisp reader wants them. */
static void
put_text(FILE *out, const char *s, bool quoted)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);

	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t len = json_utf8_decode(u + i, n - i, &cp);
		if (len == 0) {
			fputs(REPLACEMENT, out);
			i++;
			continue;
		}
		if (u[i] == '\n')
			fputs(PICTURE_LF, out);
		else if (u[i] == '\r')
			fputs(PICTURE_CR, out);
		else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
			for (size_t j = i; j < i + len; j++)
				fprintf(out, "%s\\x%02x", quoted ? "\\" : "",
					u[j]);
		else if (u[i] == '"' && quoted)
			fputs("\\\"", out);
		else if (u[i] == '\\')
			/* Doubled in a name too, as textesc.h does: a name
			 * holding "\x1b" is not an escaped one. */
			fputs(quoted ? "\\\\\\\\" : "\\\\", out);
		else
			fwrite(u + i, 1, len, out);
		i += len;
	}
}

/* Markers of cut stacks and "..." are not code: LispWorks writes such
 * nodes' names as strings. */
static bool
is_code(const struct profile_func *f)
{
	return !(f->flags & (PROFILE_FUNC_PSEUDO | PROFILE_FUNC_ELLIPSIS));
}

static void
put_name(FILE *out, const struct profile *p, uint32_t func)
{
	if (func == PROFILE_NONE) {
		fputs("\"" ROOT_NAME "\"", out);
		return;
	}
	const struct profile_func *f = &p->funcs[func];
	if (is_code(f)) {
		put_text(out, f->label, false);
		return;
	}
	fputc('"', out);
	put_text(out, f->label, true);
	fputc('"', out);
}

/* Exact calls, known only for the malloc-family wrappers (as --json). */
static uint64_t
call_count(const struct profile *p, uint32_t func)
{
	int fn = space_wrapper_fn(p, func);
	if (fn < 0 || !p->hdr.space.has_calls)
		return 0;
	return p->hdr.space.calls[fn];
}

static void
put_node(FILE *out, const struct profile *p, uint32_t x, uint32_t depth)
{
	const struct profile_node *n = &p->nodes[x];
	uint64_t seen = n->total_samples, top = n->self_samples, calls = 0;

	if (n->func != PROFILE_NONE) {
		const struct profile_func *f = &p->funcs[n->func];
		seen = f->total_samples;
		top = f->self_samples;
		calls = call_count(p, n->func);
	}
	fprintf(out, "%u|%llu|%llu|%llu|%llu|", depth,
		(unsigned long long)n->total_samples, (unsigned long long)calls,
		(unsigned long long)seen, (unsigned long long)top);
	put_name(out, p, n->func);
	fputc('\n', out);
}

/* A node still to be written, and its depth. */
struct pending {
	uint32_t node, depth;
};

/* Preorder with an explicit stack: stacks can be thousands of frames
 * deep. Each node's children are pushed sorted in reverse, so the first
 * comes out next. */
static void
put_tree(FILE *out, const struct profile *p)
{
	struct pending *st = xmalloc(sizeof(*st));
	uint32_t *kids = NULL;
	size_t nst = 0, st_cap = 1, kids_cap = 0;

	st[nst++] = (struct pending){ PROFILE_ROOT, 0 };
	while (nst) {
		struct pending t = st[--nst];
		put_node(out, p, t.node, t.depth);
		size_t k = 0;
		for (uint32_t c = p->nodes[t.node].first_child; c != PROFILE_NONE;
		     c = p->nodes[c].next_sibling) {
			xgrow(&kids, &kids_cap, k + 1, sizeof(*kids));
			kids[k++] = c;
		}
		if (k > 1)
			qsort_r(kids, k, sizeof(*kids), profile_cmp_nodes_heaviest, (void *)p);
		xgrow(&st, &st_cap, nst + k, sizeof(*st));
		while (k-- > 0)
			st[nst++] = (struct pending){ kids[k], t.depth + 1 };
	}
	free(st);
	free(kids);
}

/* Comment lines (LispWorks skips lines starting with ';') saying what
 * the counts are samples of. */
static void
put_comments(FILE *out, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;

	fprintf(out, "; profanalyze --format=lispworks: ");
	if (h->kind == PROFILE_KIND_SPACE)
		fprintf(out, "space profile (%s view), %llu samples standing "
			"for %llu bytes\n", space_view_name(h->space.view),
			(unsigned long long)h->samples,
			(unsigned long long)h->weight);
	else
		fprintf(out, "time profile, %llu samples standing for "
			"%.3f s\n", (unsigned long long)h->samples,
			(double)h->weight / 1e9);
	fputs("; Count, Seen-Count and Top-Count are samples; Call-Count is "
	      "0 where calls were not counted\n", out);
}

int
export_lispworks_write(FILE *out, const struct profile *p,
		       const struct export_opts *opts)
{
	fputs("LispWorks Profiler Tree: ", out);
	put_text(out, opts->name, false);
	fputc('\n', out);
	put_comments(out, p);
	put_tree(out, p);
	return 0;
}
