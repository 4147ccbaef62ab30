/*
 * export: the format names and the dispatch (see export.h).
 */
#include "export.h"

#include <string.h>

#include "report_json.h"

static const char *const names[EXPORT_FORMAT_MAX_] = {
	[EXPORT_LISPWORKS] = "lispworks",
	[EXPORT_MLMON] = "mlmon",
	[EXPORT_SYMPRO] = "sympro",
	[EXPORT_SYMPRO_JSON] = "sympro-json",
	[EXPORT_FOLDED] = "folded",
	[EXPORT_CALLGRIND] = "callgrind",
	[EXPORT_DOT] = "dot",
	[EXPORT_PPROF] = "pprof",
	[EXPORT_JSON] = "json",
	[EXPORT_MLMON_COUNT] = "mlmon-count",
	[EXPORT_HTML] = "html",
	[EXPORT_SPEEDSCOPE] = "speedscope",
	[EXPORT_FIREFOX] = "firefox",
};

int
export_parse(const char *name, enum export_format *fmt)
{
	for (int i = 0; i < EXPORT_FORMAT_MAX_; i++)
		if (strcmp(name, names[i]) == 0) {
			*fmt = (enum export_format)i;
			return 0;
		}
	return -1;
}

const char *
export_names(void)
{
	return "lispworks, mlmon, mlmon-count, sympro, sympro-json, folded, "
	       "callgrind, dot, pprof, json, html, speedscope, firefox";
}

bool
export_timeline(enum export_format fmt)
{
	return fmt == EXPORT_HTML || fmt == EXPORT_SPEEDSCOPE ||
	       fmt == EXPORT_FIREFOX;
}

bool
export_space_views(enum export_format fmt)
{
	return fmt == EXPORT_HTML;
}

bool
export_binary(enum export_format fmt)
{
	return fmt == EXPORT_PPROF;
}

int
export_write(FILE *out, enum export_format fmt, const struct profile *p,
	     const struct export_opts *opts)
{
	switch (fmt) {
	case EXPORT_LISPWORKS:
		return export_lispworks_write(out, p, opts);
	case EXPORT_MLMON:
		return export_mlmon_write(out, p, opts);
	case EXPORT_MLMON_COUNT:
		return export_mlmon_count_write(out, p, opts);
	case EXPORT_SYMPRO:
	case EXPORT_SYMPRO_JSON:
		return export_sympro_write(out, p, opts,
					   fmt == EXPORT_SYMPRO_JSON);
	case EXPORT_FOLDED:
		return export_folded_write(out, p, opts);
	case EXPORT_CALLGRIND:
		return export_callgrind_write(out, p, opts);
	case EXPORT_DOT:
		return export_dot_write(out, p, opts);
	case EXPORT_PPROF:
		return export_pprof_write(out, p, opts);
	case EXPORT_HTML:
		return export_html_write(out, p, opts);
	case EXPORT_SPEEDSCOPE:
		return export_speedscope_write(out, p, opts);
	case EXPORT_FIREFOX:
		return export_firefox_write(out, p, opts);
	case EXPORT_JSON:
	case EXPORT_FORMAT_MAX_:
		break;
	}
	report_json_write(out, p);
	return 0;
}
