/* SPDX-License-Identifier: ISC */
/*
 * record-wire.c: the bytes of a record, one value at a time: the bounded
 * reader every version is decoded through (record-decode.c,
 * record-decode4.c, record-ext.c) and the writer of version 5's values
 * (record.c, record-ext.c).  The spellings (U, S, T, STR, F) are those of
 * the layout at the top of record.c.  Pure: no I/O.
 */
#include <stdint.h>
#include <string.h>

#include "record-wire.h"

/* ---- reading ------------------------------------------------------------ */

int
take_text(const uint8_t *p, size_t n, char *dst, size_t max)
{
	if (p == NULL)
		return 0;	/* short read: reported by the caller */
	if (n >= max || memchr(p, '\0', n) != NULL)
		return -1;
	memcpy(dst, p, n);
	dst[n] = '\0';
	return 0;
}

const uint8_t *
take(struct reader *rd, size_t n)
{
	const uint8_t	*p;

	if (rd->short_read || rd->left < n) {
		rd->short_read = 1;
		return NULL;
	}
	p = rd->p;
	rd->p += n;
	rd->left -= n;
	return p;
}

uint8_t
take_u8(struct reader *rd)
{
	const uint8_t	*p = take(rd, 1);

	return p == NULL ? 0 : p[0];
}

uint16_t
take_u16(struct reader *rd)
{
	const uint8_t	*p = take(rd, 2);

	return p == NULL ? 0 : get_u16(p);
}

uint32_t
take_u32(struct reader *rd)
{
	const uint8_t	*p = take(rd, 4);

	return p == NULL ? 0 : get_u32(p);
}

uint64_t
take_u64(struct reader *rd)
{
	const uint8_t	*p = take(rd, 8);

	return p == NULL ? 0 : get_u64(p);
}

int64_t
take_i64(struct reader *rd)
{
	return (int64_t)take_u64(rd);
}

double
take_f64(struct reader *rd)
{
	uint64_t	u = take_u64(rd);
	double		d;

	memcpy(&d, &u, sizeof d);
	return d;
}

/* A flag: 0 or 1, so that a record has one spelling. */
uint8_t
take_flag(struct reader *rd)
{
	uint8_t	v = take_u8(rd);

	if (v > 1)
		rd->bad_flag = 1;
	return v;
}

/* Note the first value that is out of range or misspelt. */
void
take_bad(struct reader *rd, const char *what)
{
	if (rd->bad_value == NULL)
		rd->bad_value = what;
}

/* U: unsigned LEB128, at most 10 bytes, shortest form only. */
uint64_t
take_uv(struct reader *rd)
{
	const uint8_t	*p;
	uint64_t	 v = 0;
	unsigned	 i;

	/* Most numbers are one byte: a status over a million records reads
	 * a hundred of them a record. */
	if (!rd->short_read && rd->left > 0 && rd->p[0] < 0x80) {
		rd->left--;
		return *rd->p++;
	}
	for (i = 0; i < 10; i++) {
		if ((p = take(rd, 1)) == NULL)
			return 0;
		if (i == 9 && p[0] > 1) {
			take_bad(rd, "a number past 64 bits");
			return 0;
		}
		v |= (uint64_t)(p[0] & 0x7f) << (7 * i);
		if ((p[0] & 0x80) == 0) {
			if (p[0] == 0 && i > 0)
				take_bad(rd, "a number longer than its shortest "
				    "form");
			return v;
		}
	}
	return v;	/* not reached: the tenth byte ends the number */
}

static int64_t
unzigzag(uint64_t u)
{
	return (u & 1) ? (int64_t)~(u >> 1) : (int64_t)(u >> 1);
}

/* S: a zigzagged U. */
int64_t
take_sv(struct reader *rd)
{
	return unzigzag(take_uv(rd));
}

uint32_t
take_uv32(struct reader *rd, const char *what)
{
	uint64_t	v = take_uv(rd);

	if (v > UINT32_MAX) {
		take_bad(rd, what);
		return 0;
	}
	return (uint32_t)v;
}

int64_t
take_sv_in(struct reader *rd, int64_t lo, int64_t hi, const char *what)
{
	int64_t	v = take_sv(rd);

	if (v < lo || v > hi) {
		take_bad(rd, what);
		return 0;
	}
	return v;
}

/*
 * T: 0 for 0, else 1 + the zigzagged difference from base.  The result
 * is kept within the time bound (a later check names the field), so that
 * a chain of differences cannot overflow.
 */
int64_t
take_time(struct reader *rd, int64_t base, const char *what)
{
	uint64_t	v = take_uv(rd);
	int64_t		d;

	if (v == 0)
		return 0;
	d = unzigzag(v - 1);
	if (d < -2 * RECORD_TIME_BOUND || d > 2 * RECORD_TIME_BOUND ||
	    base + d < -RECORD_TIME_BOUND || base + d > RECORD_TIME_BOUND) {
		take_bad(rd, what);
		return 0;
	}
	if (base + d == 0)
		take_bad(rd, "a time of 0 spelt as a difference");
	return base + d;
}

/* STR into dst (size max): -1 when it does not fit or holds a NUL. */
int
take_str(struct reader *rd, char *dst, size_t max)
{
	uint64_t	n = take_uv(rd);

	if (n >= max)
		return -1;
	return take_text(take(rd, (size_t)n), (size_t)n, dst, max);
}

/* ---- writing ------------------------------------------------------------ */

void
put_f64(struct cb_buf *b, double d)
{
	uint64_t	u;

	memcpy(&u, &d, sizeof u);
	buf_add_u64(b, u);
}

/* U: unsigned LEB128, shortest form. */
void
put_uv(struct cb_buf *b, uint64_t v)
{
	uint8_t	t[10];
	size_t	n = 0;

	do {
		t[n] = v & 0x7f;
		v >>= 7;
		if (v != 0)
			t[n] |= 0x80;
		n++;
	} while (v != 0);
	buf_add(b, t, n);
}

/* S: zigzag, so that small negative numbers stay short. */
void
put_sv(struct cb_buf *b, int64_t v)
{
	put_uv(b, v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1);
}

/* T: 0 for 0, else 1 + the zigzagged difference from base. */
void
put_time(struct cb_buf *b, int64_t t, int64_t base)
{
	int64_t	d;

	if (t == 0) {
		put_uv(b, 0);
		return;
	}
	d = (int64_t)((uint64_t)t - (uint64_t)base);
	put_uv(b, 1 + (d < 0 ? ~((uint64_t)d << 1) : (uint64_t)d << 1));
}

void
put_str(struct cb_buf *b, const char *s, size_t max)
{
	size_t	len;

	len = strnlen(s, max - 1);
	put_uv(b, len);
	buf_add(b, s, len);
}
