/*
 * report_json: the JSON export (see report_json.h).
 *
 * Unknown figures are null rather than 0 (no footer: no CPU total and no
 * drop counts; no process record: no timer), so a program can tell "none"
 * from "not known". Seconds carry nine decimals: they are exact
 * nanosecond sums, not rounded displays.
 */
#include "report_json.h"

#include <stdlib.h>

#include "json.h"
#include "report.h"
#include "spool.h"

#define SECONDS_DECIMALS 9
#define PCT_DECIMALS 4

static const char *
clock_name(uint32_t clock)
{
	switch (clock) {
	case SPOOL_CLOCK_CPU:
		return "cpu";
	case SPOOL_CLOCK_WALL:
		return "wall";
	default:
		return NULL;
	}
}

static void
key_uint_or_null(struct json *j, const char *key, bool known, uint64_t v)
{
	json_key(j, key);
	if (known)
		json_uint(j, v);
	else
		json_null(j);
}

static void
write_dropped(struct json *j, const struct profile_header *h)
{
	json_key(j, "dropped");
	if (!h->complete) {
		json_null(j);
		return;
	}
	json_begin_object(j);
	for (uint32_t c = 1; c < SPOOL_DROP_MAX_; c++) {
		json_key(j, spool_drop_name(c));
		json_uint(j, h->drops[c]);
	}
	json_end_object(j);
}

static void
write_header(struct json *j, const struct profile *p)
{
	const struct profile_header *h = &p->hdr;
	bool pr = h->has_process;

	json_key(j, "kind");
	json_string(j, "time");
	json_key(j, "samples");
	json_uint(j, h->samples);
	key_uint_or_null(j, "period_ns", pr, h->period_ns);
	json_key(j, "timer");
	json_string(j, pr ? spool_timer_name(h->timer) : NULL);
	json_key(j, "clock");
	json_string(j, pr ? clock_name(h->clock) : NULL);
	key_uint_or_null(j, "requested_hz", pr, h->requested_hz);
	json_key(j, "cpu_seconds");
	if (h->complete)
		json_double(j, report_seconds(h->cpu_ns), SECONDS_DECIMALS);
	else
		json_null(j);
	json_key(j, "sampled_seconds");
	json_double(j, report_seconds(h->weight), SECONDS_DECIMALS);
	json_key(j, "threads");
	json_uint(j, report_threads(p));
	json_key(j, "complete");
	json_bool(j, h->complete);
	write_dropped(j, h);
	json_key(j, "truncated_stacks");
	json_uint(j, h->truncated_stacks);
	json_key(j, "unwind_errors");
	json_uint(j, h->unwind_errors);
	json_key(j, "unresolved_samples");
	json_uint(j, h->unnamed_samples);
}

static void
write_function(struct json *j, const struct profile *p, uint32_t id)
{
	const struct profile_func *f = &p->funcs[id];
	uint64_t whole = p->hdr.weight;

	json_begin_object(j);
	json_key(j, "name");
	json_string(j, f->name);
	json_key(j, "module");
	json_string(j, profile_func_module(p, id));
	json_key(j, "self");
	json_double(j, report_seconds(f->self), SECONDS_DECIMALS);
	json_key(j, "total");
	json_double(j, report_seconds(f->total), SECONDS_DECIMALS);
	json_key(j, "self_pct");
	json_double(j, report_pct(f->self, whole), PCT_DECIMALS);
	json_key(j, "total_pct");
	json_double(j, report_pct(f->total, whole), PCT_DECIMALS);
	json_key(j, "self_samples");
	json_uint(j, f->self_samples);
	json_key(j, "total_samples");
	json_uint(j, f->total_samples);
	json_key(j, "calls");
	json_null(j);
	json_end_object(j);
}

void
report_json_write(FILE *out, const struct profile *p)
{
	struct json j;
	size_t n;
	uint32_t *ids = profile_funcs_by_self(p, &n);

	json_init(&j, out);
	json_begin_object(&j);
	write_header(&j, p);
	json_key(&j, "functions");
	json_begin_array(&j);
	for (size_t i = 0; i < n; i++)
		write_function(&j, p, ids[i]);
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	free(ids);
}
