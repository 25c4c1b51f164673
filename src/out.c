/* SPDX-License-Identifier: ISC */
/*
 * out.c: the one output buffer of `status --json` and `--prometheus`, and
 * the hand-made writers over it: numbers, RFC 3339 times, JSON strings
 * checked as UTF-8, and a JSON writer that places the commas itself (on
 * the model of git's json-writer.c).  Hand-formatting is for speed (see
 * out.h) and is kept here, in one module.
 */
#include <stdio.h>
#include <string.h>

#include "esc.h"
#include "out.h"

static const char	hexdig[] = "0123456789abcdef";

/* The bytes a JSON string holds as they are: printable ASCII but '"'
 * and '\\'.  (UTF-8 is checked apart.) */
static const uint8_t	json_plain[256] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,
	/* 0x80 to 0xff: 0 */
};

static struct obuf	ob;

struct obuf *
out_start(FILE *f)
{
	ob.f = f;
	ob.n = 0;
	return &ob;
}

void
out_flush(struct obuf *o)
{
	if (o->n > 0 && o->f != NULL)
		(void)fwrite(o->b, 1, o->n, o->f);	/* ferror() later */
	o->n = 0;
}

void
out_add_slow(struct obuf *o, const char *s, size_t len)
{
	size_t	k;

	while (len > 0) {
		if (o->n == sizeof o->b)
			out_flush(o);
		k = sizeof o->b - o->n;
		if (k > len)
			k = len;
		memcpy(o->b + o->n, s, k);
		o->n += k;
		s += k;
		len -= k;
	}
}

void
out_u64(struct obuf *o, uint64_t v)
{
	char	d[24], *p = d + sizeof d;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	out_add(o, p, (size_t)(d + sizeof d - p));
}

void
out_i64(struct obuf *o, int64_t v)
{
	if (v < 0) {
		out_add(o, "-", 1);
		out_u64(o, (uint64_t)0 - (uint64_t)v);
	} else
		out_u64(o, (uint64_t)v);
}

void
out_hex(struct obuf *o, const uint8_t *p, size_t len)
{
	char	d[2];
	size_t	i;

	for (i = 0; i < len; i++) {
		d[0] = hexdig[p[i] >> 4];
		d[1] = hexdig[p[i] & 0xf];
		out_add(o, d, 2);
	}
}

void
out_hex64(struct obuf *o, uint64_t v)
{
	uint8_t	b[8];
	int	i;

	for (i = 7; i >= 0; i--) {
		b[i] = (uint8_t)v;
		v >>= 8;
	}
	out_hex(o, b, sizeof b);
}

void
out_seconds(struct obuf *o, int64_t ms)
{
	char	d[4];

	out_u64(o, (uint64_t)(ms / 1000));
	d[0] = '.';
	d[1] = (char)('0' + ms % 1000 / 100);
	d[2] = (char)('0' + ms % 100 / 10);
	d[3] = (char)('0' + ms % 10);
	out_add(o, d, 4);
}

static void
put2(char *p, int v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/* Days since 1970-01-01 to a civil date (H. Hinnant's days_from_civil,
 * inverted), proleptic Gregorian as gmtime_r. */
static void
civil(int64_t day, int64_t *y, int *m, int *d)
{
	int64_t	z, era, doe, yoe, doy, mp;

	z = day + 719468;
	era = z / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

#define OUT_DAYS	64

void
out_rfc3339(struct obuf *o, int64_t ms, char quote)
{
	static struct {
		int64_t	day;		/* -1: empty */
		char	date[11];	/* "YYYY-MM-DDT" */
	}		 cache[OUT_DAYS];
	static int	 init;
	char		 d[64], *date, *p;
	int64_t		 day, y;
	int		 sod, frac, k, m, dd, n;

	if (!init) {
		for (k = 0; k < OUT_DAYS; k++)
			cache[k].day = -1;
		init = 1;
	}
	day = ms / 86400000;
	k = (int)(day % OUT_DAYS);
	date = cache[k].date;
	sod = (int)(ms % 86400000 / 1000);
	frac = (int)(ms % 1000);
	if (cache[k].day != day) {
		cache[k].day = day;
		civil(day, &y, &m, &dd);
		if (y > 9999) {
			/* Rare enough for snprintf; not cached. */
			cache[k].day = -1;
			n = snprintf(d, sizeof d, "%s%04lld-%02d-%02dT"
			    "%02d:%02d:%02d.%03dZ%s", quote ? "\"" : "", (long long)y, m,
			    dd, sod / 3600, sod / 60 % 60, sod % 60, frac,
			    quote ? "\"" : "");
			if (n > 0 && (size_t)n < sizeof d)
				out_add(o, d, (size_t)n);
			return;
		}
		put2(date, (int)(y / 100));
		put2(date + 2, (int)(y % 100));
		date[4] = '-';
		put2(date + 5, m);
		date[7] = '-';
		put2(date + 8, dd);
		date[10] = 'T';
	}
	/* d[0] and d[25] the quotes, written or not */
	d[0] = quote;
	p = d + 1;
	memcpy(p, date, 11);
	put2(p + 11, sod / 3600);
	p[13] = ':';
	put2(p + 14, sod / 60 % 60);
	p[16] = ':';
	put2(p + 17, sod % 60);
	p[19] = '.';
	p[20] = (char)('0' + frac / 100);
	put2(p + 21, frac % 100);
	p[23] = 'Z';
	p[24] = quote;
	if (quote)
		out_add(o, d, 26);
	else
		out_add(o, d + 1, 24);
}

void
out_json_string(struct obuf *o, const char *s, size_t len)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 i = 0, start = 0, k = 0;
	unsigned char		 c;
	char			 e[6];

	out_add(o, "\"", 1);
	while (i < len) {
		while (i < len && json_plain[u[i]])
			i++;
		if (i == len)
			break;
		c = u[i];
		/* Valid UTF-8 as it is, but a C1 control (U+0080-U+009F,
		 * 0xc2 0x80-0x9f) as \u00XX like C0, for whoever shows the
		 * JSON on a terminal (esc.h). */
		if (c >= 0x80 && (k = esc_utf8_seq(u + i, len - i)) > 0 &&
		    (c != 0xc2 || u[i + 1] >= 0xa0)) {
			i += k;
			continue;
		}
		out_add(o, s + start, i - start);
		e[0] = '\\';
		if (c == '"' || c == '\\') {
			e[1] = (char)c;
			out_add(o, e, 2);
		} else if (c == '\n' || c == '\t') {
			e[1] = c == '\n' ? 'n' : 't';
			out_add(o, e, 2);
		} else if (c >= 0x80 && k == 0)
			OUT_LIT(o, "\\ufffd");
		else {
			if (c >= 0x80)
				c = u[++i];	/* the C1 control's code */
			memcpy(e, "\\u00", 4);
			e[4] = hexdig[c >> 4];
			e[5] = hexdig[c & 0xf];
			out_add(o, e, 6);
		}
		start = ++i;
	}
	out_add(o, s + start, len - start);
	out_add(o, "\"", 1);
}

void
jw_init(struct json_writer *jw, struct obuf *o)
{
	memset(jw, 0, sizeof *jw);
	jw->o = o;
	jw->depth = -1;
}

/* Whatever goes before the next item at this level. */
static void
jw_sep(struct json_writer *jw)
{
	if (jw->depth < 0)
		return;
	switch (jw->lv[jw->depth].style) {
	case JW_LINES:
		if (jw->lv[jw->depth].n)
			OUT_LIT(jw->o, ",\n  ");
		else
			OUT_LIT(jw->o, "\n  ");
		break;
	case JW_COMPACT:
		if (jw->lv[jw->depth].n)
			OUT_LIT(jw->o, ",");
		break;
	default:
		if (jw->lv[jw->depth].n)
			OUT_LIT(jw->o, ", ");
		break;
	}
	jw->lv[jw->depth].n++;
}

void
jw_object_begin(struct json_writer *jw)
{
	jw_sep(jw);
	jw_value_begin(jw, '{', JW_NORMAL);
}

void
jw_array_begin(struct json_writer *jw)
{
	jw_sep(jw);
	jw_value_begin(jw, '[', JW_NORMAL);
}

void
jw_array_begin_lines(struct json_writer *jw)
{
	jw_sep(jw);
	jw_value_begin(jw, '[', JW_LINES);
}

void
jw_value_string_or_null(struct json_writer *jw, const char *s)
{
	if (s[0] == '\0')
		OUT_LIT(jw->o, "null");
	else
		out_json_string(jw->o, s, strlen(s));
}

void
jw_value_time(struct json_writer *jw, int64_t ms)
{
	if (ms <= 0)
		OUT_LIT(jw->o, "null");
	else
		out_rfc3339(jw->o, ms, '"');
}

void
jw_value_hex(struct json_writer *jw, const uint8_t *p, size_t len)
{
	out_add(jw->o, "\"", 1);
	out_hex(jw->o, p, len);
	out_add(jw->o, "\"", 1);
}

void
jw_value_hex64(struct json_writer *jw, uint64_t v)
{
	out_add(jw->o, "\"", 1);
	out_hex64(jw->o, v);
	out_add(jw->o, "\"", 1);
}

void
jw_array_string(struct json_writer *jw, const char *s)
{
	jw_sep(jw);
	out_json_string(jw->o, s, strlen(s));
}

void
jw_array_u64(struct json_writer *jw, uint64_t v)
{
	jw_sep(jw);
	out_u64(jw->o, v);
}

void
jw_array_time(struct json_writer *jw, int64_t ms)
{
	jw_sep(jw);
	jw_value_time(jw, ms);
}

void
jw_array_begin_object(struct json_writer *jw)
{
	jw_object_begin(jw);
}
