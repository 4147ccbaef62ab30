/*
 * json: the streaming writer and string escaper (see json.h).
 */
#include "json.h"

#include <math.h>
#include <string.h>

size_t
json_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp_out)
{
	size_t len;
	uint32_t cp, min;

	if (cp_out)
		*cp_out = s[0];
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, cp = s[0] & 0x1f, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, cp = s[0] & 0x0f, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp_out)
		*cp_out = cp;
	return len;
}

static void
escape_ascii(FILE *out, unsigned char c)
{
	switch (c) {
	case '"':
		fputs("\\\"", out);
		break;
	case '\\':
		fputs("\\\\", out);
		break;
	case '\n':
		fputs("\\n", out);
		break;
	case '\r':
		fputs("\\r", out);
		break;
	case '\t':
		fputs("\\t", out);
		break;
	default:
		if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
}

void
json_escape(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', out);
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = json_utf8_decode(p + i, len - i, &cp);
		if (n == 0) {
			fputs("\\ufffd", out);
			i++;
		} else if (n == 1) {
			escape_ascii(out, p[i++]);
		} else if (cp <= 0x9f) {
			/* A C1 control character (CSI is U+009B): escaped as
			 * the C0 ones are, for whoever shows the JSON text. */
			fprintf(out, "\\u%04x", (unsigned)cp);
			i += n;
		} else {
			fwrite(p + i, 1, n, out);
			i += n;
		}
	}
	fputc('"', out);
}

void
json_init(struct json *j, FILE *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

static void
newline_indent(struct json *j)
{
	fputc('\n', j->out);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Separator and indentation before a value or key at the current level. */
static void
before_item(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth == 0)
		return;
	if (j->has_items[j->depth])
		fputc(',', j->out);
	j->has_items[j->depth] = true;
	newline_indent(j);
}

static void
begin(struct json *j, char c)
{
	before_item(j);
	fputc(c, j->out);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void
end(struct json *j, char c)
{
	bool had = j->has_items[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (had)
		newline_indent(j);
	fputc(c, j->out);
}

void
json_begin_object(struct json *j)
{
	begin(j, '{');
}

void
json_end_object(struct json *j)
{
	end(j, '}');
}

void
json_begin_array(struct json *j)
{
	begin(j, '[');
}

void
json_end_array(struct json *j)
{
	end(j, ']');
}

void
json_key(struct json *j, const char *key)
{
	before_item(j);
	json_escape(j->out, key, strlen(key));
	fputs(": ", j->out);
	j->after_key = true;
}

void
json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	before_item(j);
	json_escape(j->out, s, strlen(s));
}

void
json_uint(struct json *j, uint64_t v)
{
	before_item(j);
	fprintf(j->out, "%llu", (unsigned long long)v);
}

void
json_double(struct json *j, double v, int decimals)
{
	char buf[64];
	if (!isfinite(v)) {
		json_null(j);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	char *dot = strchr(buf, '.');
	if (dot) {
		char *e = buf + strlen(buf);
		while (e > dot + 1 && e[-1] == '0')
			*--e = '\0';
		if (e == dot + 1)
			*dot = '\0';
	}
	if (strcmp(buf, "-0") == 0)
		strcpy(buf, "0");
	before_item(j);
	fputs(buf, j->out);
}

void
json_bool(struct json *j, bool v)
{
	before_item(j);
	fputs(v ? "true" : "false", j->out);
}

void
json_null(struct json *j)
{
	before_item(j);
	fputs("null", j->out);
}

void
json_finish(struct json *j)
{
	fputc('\n', j->out);
}
