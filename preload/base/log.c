/*
 * log: async-signal-safe message formatting (see log.h). The formatter knows
 * only the conversions the library uses; anything else is copied verbatim so
 * that a mistake shows in the message rather than crashing the target.
 *
 * Layer: base; what may run in a signal handler or inside malloc
 * is marked async-signal-safe, here and in the header.
 */
#include "log.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

struct out {
	char *buf;
	size_t cap; /* usable bytes, excluding the NUL */
	size_t len;
};

/* async-signal-safe */
static void
out_char(struct out *o, char c)
{
	if (o->len < o->cap)
		o->buf[o->len++] = c;
}

/* async-signal-safe */
static void
out_str(struct out *o, const char *s)
{
	if (!s)
		s = "(null)";
	while (*s)
		out_char(o, *s++);
}

/* async-signal-safe */
static void
out_num(struct out *o, uint64_t v, unsigned base, int negative)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	if (negative)
		out_char(o, '-');
	while (n)
		out_char(o, tmp[--n]);
}

/* async-signal-safe */
static void
out_signed(struct out *o, int64_t v)
{
	if (v < 0)
		out_num(o, (uint64_t)0 - (uint64_t)v, 10, 1);
	else
		out_num(o, (uint64_t)v, 10, 0);
}

/* async-signal-safe */
size_t
log_format(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct out o = { buf, cap ? cap - 1 : 0, 0 };
	for (const char *p = fmt; *p; p++) {
		if (*p != '%') {
			out_char(&o, *p);
			continue;
		}
		p++;
		if (*p == 's') {
			out_str(&o, va_arg(ap, const char *));
		} else if (*p == 'd') {
			out_signed(&o, va_arg(ap, int));
		} else if (*p == 'u') {
			out_num(&o, va_arg(ap, unsigned), 10, 0);
		} else if (*p == 'z' && p[1] == 'u') {
			p++;
			out_num(&o, va_arg(ap, size_t), 10, 0);
		} else if (*p == 'l' && p[1] == 'd') {
			p++;
			out_signed(&o, va_arg(ap, long));
		} else if (*p == 'l' && (p[1] == 'u' || p[1] == 'x')) {
			p++;
			out_num(&o, va_arg(ap, unsigned long), *p == 'x' ? 16 : 10, 0);
		} else if (*p == '%') {
			out_char(&o, '%');
		} else {
			out_char(&o, '%');
			if (!*p)
				break;
			out_char(&o, *p);
		}
	}
	if (cap)
		buf[o.len] = '\0';
	return o.len;
}

/* async-signal-safe */
size_t
log_snprintf(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	size_t n = log_format(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}

/* async-signal-safe */
void
log_msg(const char *fmt, ...)
{
	int saved = errno;
	char buf[512] = "profrun: ";
	size_t pre = 9;
	va_list ap;
	va_start(ap, fmt);
	size_t n = log_format(buf + pre, sizeof(buf) - pre - 1, fmt, ap);
	va_end(ap);
	buf[pre + n] = '\n';
	ssize_t rc = write(2, buf, pre + n + 1);
	(void)rc;
	errno = saved;
}
