/*
 * export: the format names and the dispatch (see export.h).
 */
#include "export.h"

#include <stdio.h>
#include <string.h>

#include "report_json.h"

static int
write_sympro(FILE *out, const struct profile *p, const struct export_opts *o)
{
	return export_sympro_write(out, p, o, false);
}

static int
write_sympro_json(FILE *out, const struct profile *p,
		  const struct export_opts *o)
{
	return export_sympro_write(out, p, o, true);
}

static int
write_callgrind(FILE *out, const struct profile *p,
		const struct export_opts *o)
{
	return o->pcs ? export_callgrind_pc_write(out, p, o) :
			export_callgrind_write(out, p, o);
}

static int
write_json(FILE *out, const struct profile *p, const struct export_opts *o)
{
	(void)o;
	report_json_write(out, p);
	return 0;
}

/* What a format needs besides the profile, and what it is. */
enum {
	NEEDS_TIMELINE = 1,    /* the samples in time (opts->timeline) */
	NEEDS_SPACE_VIEWS = 2, /* every view of a space profile */
	BINARY = 4,            /* not for a terminal */
};

/* The formats, in the order export_names() lists them. */
static const struct {
	enum export_format fmt;
	const char *name;
	int (*write)(FILE *, const struct profile *,
		     const struct export_opts *);
	unsigned flags;
} formats[] = {
	{ EXPORT_LISPWORKS, "lispworks", export_lispworks_write, 0 },
	{ EXPORT_MLMON, "mlmon", export_mlmon_write, 0 },
	{ EXPORT_MLMON_COUNT, "mlmon-count", export_mlmon_count_write, 0 },
	{ EXPORT_SYMPRO, "sympro", write_sympro, 0 },
	{ EXPORT_SYMPRO_JSON, "sympro-json", write_sympro_json, 0 },
	{ EXPORT_FOLDED, "folded", export_folded_write, 0 },
	{ EXPORT_CALLGRIND, "callgrind", write_callgrind, 0 },
	{ EXPORT_DOT, "dot", export_dot_write, 0 },
	{ EXPORT_PPROF, "pprof", export_pprof_write, BINARY },
	{ EXPORT_JSON, "json", write_json, 0 },
	{ EXPORT_HTML, "html", export_html_write,
	  NEEDS_TIMELINE | NEEDS_SPACE_VIEWS },
	{ EXPORT_SPEEDSCOPE, "speedscope", export_speedscope_write,
	  NEEDS_TIMELINE },
	{ EXPORT_FIREFOX, "firefox", export_firefox_write, NEEDS_TIMELINE },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))
_Static_assert(NFORMATS == EXPORT_FORMAT_MAX_, "a format without a row");

static unsigned
flags_of(enum export_format fmt)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].fmt == fmt)
			return formats[i].flags;
	return 0;
}

int
export_parse(const char *name, enum export_format *fmt)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (strcmp(name, formats[i].name) == 0) {
			*fmt = formats[i].fmt;
			return 0;
		}
	return -1;
}

const char *
export_names(void)
{
	static char buf[256];
	if (!buf[0]) {
		size_t len = 0;
		for (size_t i = 0; i < NFORMATS; i++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len,
						"%s%s", i ? ", " : "",
						formats[i].name);
	}
	return buf;
}

bool
export_timeline(enum export_format fmt)
{
	return flags_of(fmt) & NEEDS_TIMELINE;
}

bool
export_space_views(enum export_format fmt)
{
	return flags_of(fmt) & NEEDS_SPACE_VIEWS;
}

bool
export_binary(enum export_format fmt)
{
	return flags_of(fmt) & BINARY;
}

int
export_write(FILE *out, enum export_format fmt, const struct profile *p,
	     const struct export_opts *opts)
{
	for (size_t i = 0; i < NFORMATS; i++)
		if (formats[i].fmt == fmt)
			return formats[i].write(out, p, opts);
	return write_json(out, p, opts);
}
