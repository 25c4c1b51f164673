/* SPDX-License-Identifier: ISC */
/*
 * out.h: fast formatted output for `status --json` and `--prometheus`.
 *
 * Over a million breakers, printf's format parsing, stdio's per-call
 * locking and gmtime_r were most of the time (see bench/run.sh,
 * status_1M).  So the machine-readable formats are built by hand into one
 * 64 kB buffer, written to its FILE with fwrite when full and at the end;
 * the bytes are what printf would have written.  Every hand-formatted
 * number, time and JSON token of cbexec lives behind this header.
 *
 * The JSON writer follows git's json-writer.c: the caller says what comes
 * (an object, a key and its value, an array element), the writer places
 * the commas.  Keys are string literals from the caller, written as they
 * are; string values are escaped and checked as UTF-8.
 */
#ifndef CBEXEC_OUT_H
#define CBEXEC_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct obuf {
	FILE	*f;
	size_t	 n;
	char	 b[65536];
};

/*
 * The one buffer, now writing to f (which the caller owns and closes).
 * Whatever an earlier user left in it must have been flushed.
 */
struct obuf	*out_start(FILE *f);

/* Write the buffered bytes to the FILE.  Errors are left for the caller's
 * ferror() at the end. */
void	out_flush(struct obuf *);

void	out_add_slow(struct obuf *, const char *, size_t);

static inline void
out_add(struct obuf *o, const char *s, size_t len)
{
	if (len > sizeof o->b - o->n) {
		out_add_slow(o, s, len);
		return;
	}
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

static inline void
out_str(struct obuf *o, const char *s)
{
	out_add(o, s, strlen(s));
}

/* A string literal: its length known at compile time. */
#define OUT_LIT(o, lit)	out_add((o), "" lit, sizeof(lit) - 1)

void	out_u64(struct obuf *, uint64_t);		/* "123" */
void	out_i64(struct obuf *, int64_t);		/* "-12" */
void	out_hex(struct obuf *, const uint8_t *, size_t);  /* "0a1b" */
void	out_hex64(struct obuf *, uint64_t);	/* 16 digits, big-endian */

/* Unix seconds with milliseconds, "1767225600.250"; ms >= 0. */
void	out_seconds(struct obuf *, int64_t ms);

/*
 * RFC 3339 UTC with milliseconds, "2026-01-01T00:00:00.000Z", between
 * two quote characters when quote is not 0 (quote = '"' for JSON).
 * ms > 0.  UTC by arithmetic (days to civil), without gmtime_r's time
 * zone lock, and the dates of the last days seen are kept, as a store's
 * times cluster on few days.
 */
void	out_rfc3339(struct obuf *, int64_t ms, char quote);

/*
 * The JSON writer.  jw_init, then one top-level array or object; every
 * *_begin is matched by one jw_end.  jw_array_begin_lines starts an array
 * with one element a line, indented by two spaces ("[\n  {...},\n  {...}
 * \n]", or "[]" when empty); jw_object_begin_array_compact one whose
 * elements are separated by "," alone.  Elsewhere items are separated by
 * ", " and a key from its value by ": ".
 *
 * Strings are written with '"', '\\', control bytes, DEL and the C1
 * controls U+0080-U+009F escaped (\n, \t, \u00XX), other valid UTF-8 as
 * it is and each byte that is not part of a valid UTF-8 sequence as
 * \ufffd, so the output is always JSON, and shown on a terminal moves
 * no cursor (esc.h).
 * Times (ms) of 0 or less are written as null.
 */
#define JW_DEPTH	8

struct json_writer {
	struct obuf	*o;
	int		 depth;
	size_t		 sep;	/* ", " due before the next key: 2, or 0 */
	struct {
		uint32_t	n;	/* items written at this level */
		char		close;	/* ']' or '}' */
		char		style;	/* JW_NORMAL, JW_LINES, JW_COMPACT */
	}		 lv[JW_DEPTH];
};

enum { JW_NORMAL, JW_LINES, JW_COMPACT };

void	jw_init(struct json_writer *, struct obuf *);
void	jw_object_begin(struct json_writer *);
void	jw_array_begin(struct json_writer *);
void	jw_array_begin_lines(struct json_writer *);
static inline void	jw_end(struct json_writer *);

/*
 * An object's members, jw_object_u64(jw, "calls", v) and the like: the
 * key is a string literal, quoted at compile time and copied with its
 * length known, which keeps --json over a million breakers as fast as the
 * hand-written fragments were.  Each is jw_key, then a value writer.
 */
#define JW_QKEY(k)	"\"" k "\": ", sizeof("\"" k "\": ") - 1
#define jw_object_string(jw, k, s, len) \
	(jw_key((jw), JW_QKEY(k)), out_json_string((jw)->o, (s), (len)))
#define jw_object_string_or_null(jw, k, s) \
	(jw_key((jw), JW_QKEY(k)), jw_value_string_or_null((jw), (s)))
#define jw_object_u64(jw, k, v) \
	(jw_key((jw), JW_QKEY(k)), out_u64((jw)->o, (v)))
#define jw_object_i64(jw, k, v) \
	(jw_key((jw), JW_QKEY(k)), out_i64((jw)->o, (v)))
#define jw_object_null(jw, k) \
	(jw_key((jw), JW_QKEY(k)), OUT_LIT((jw)->o, "null"))
#define jw_object_time(jw, k, ms) \
	(jw_key((jw), JW_QKEY(k)), jw_value_time((jw), (ms)))
#define jw_object_hex(jw, k, p, len) \
	(jw_key((jw), JW_QKEY(k)), jw_value_hex((jw), (p), (len)))
#define jw_object_hex64(jw, k, v) \
	(jw_key((jw), JW_QKEY(k)), jw_value_hex64((jw), (v)))
#define jw_object_begin_object(jw, k) \
	(jw_key((jw), JW_QKEY(k)), jw_value_begin((jw), '{', JW_NORMAL))
#define jw_object_begin_array(jw, k) \
	(jw_key((jw), JW_QKEY(k)), jw_value_begin((jw), '[', JW_NORMAL))
#define jw_object_begin_array_compact(jw, k) \
	(jw_key((jw), JW_QKEY(k)), jw_value_begin((jw), '[', JW_COMPACT))

/* The separator if one is due, then qkey ("\"name\": ", len bytes, far
 * shorter than the buffer). */
static inline void
jw_key(struct json_writer *jw, const char *qkey, size_t len)
{
	struct obuf	*o = jw->o;
	char		*p;

	if (len + 2 > sizeof o->b - o->n)
		out_flush(o);
	p = o->b + o->n;
	memcpy(p, ", ", 2);		/* kept only when due */
	p += jw->sep;
	jw->sep = 2;
	memcpy(p, qkey, len);
	o->n = (size_t)(p + len - o->b);
}

/* Values, after jw_key.  "" is null; open is '{' or '['. */
void	jw_value_string_or_null(struct json_writer *, const char *);
void	jw_value_time(struct json_writer *, int64_t ms);
void	jw_value_hex(struct json_writer *, const uint8_t *, size_t);
void	jw_value_hex64(struct json_writer *, uint64_t);

static inline void
jw_value_begin(struct json_writer *jw, char open, int style)
{
	if (jw->depth + 1 >= JW_DEPTH)
		return;		/* the callers nest less deep */
	out_add(jw->o, &open, 1);
	jw->depth++;
	jw->lv[jw->depth].n = 0;
	jw->sep = 0;
	jw->lv[jw->depth].close = open == '{' ? '}' : ']';
	jw->lv[jw->depth].style = (char)style;
}

static inline void
jw_end(struct json_writer *jw)
{
	if (jw->depth < 0)
		return;
	if (jw->lv[jw->depth].style == JW_LINES && jw->lv[jw->depth].n)
		OUT_LIT(jw->o, "\n");
	out_add(jw->o, &jw->lv[jw->depth].close, 1);
	jw->depth--;
	jw->sep = 2;		/* the parent has an item now */
}

/* Array elements. */
void	jw_array_string(struct json_writer *, const char *);
void	jw_array_u64(struct json_writer *, uint64_t);
void	jw_array_time(struct json_writer *, int64_t ms);
void	jw_array_begin_object(struct json_writer *);

/* A JSON string (quoted, escaped, UTF-8 checked) of len bytes of s. */
void	out_json_string(struct obuf *, const char *s, size_t len);

#endif
