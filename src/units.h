/* SPDX-License-Identifier: ISC */
/*
 * units.h: durations, exit code sets and numbers as the config file and
 * the command line spell them (SPEC section 3).  Pure: libc only.
 *
 * Every parser is strict: the whole string must be the value, with no
 * leading or trailing blanks (a code list allows blanks around its commas
 * and dashes).  Each returns 0 and stores the value, or -1, leaves the
 * output alone and, when err is not NULL, fills it with one line naming the
 * offending text ("invalid duration '5x': unknown unit 'x'"); the caller
 * adds the key and the file and line.  The formatters write a
 * NUL-terminated string of at most len bytes (nothing when len is 0),
 * truncated when buf is too short; what they write reads back through the
 * matching parser as the same value.
 */
#ifndef CBEXEC_UNITS_H
#define CBEXEC_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Durations are milliseconds, at most 100 years (of 365.25 days). */
#define UNITS_MS_SECOND	1000LL
#define UNITS_MS_MINUTE	(60 * UNITS_MS_SECOND)
#define UNITS_MS_HOUR	(60 * UNITS_MS_MINUTE)
#define UNITS_MS_DAY	(24 * UNITS_MS_HOUR)
#define UNITS_MAX_MS	(36525 * UNITS_MS_DAY)

/* How much of a bad value an error message repeats, in bytes. */
#define UNITS_SHOW_MAX	80

/* A set of exit codes 0..255. */
struct cb_codeset {
	uint64_t	w[4];
};

static inline int
codeset_has(const struct cb_codeset *s, int code)
{
	return code >= 0 && code <= 255 &&
	    (s->w[code >> 6] >> (code & 63) & 1) != 0;
}

/* code must be 0..255. */
static inline void
codeset_add(struct cb_codeset *s, int code)
{
	s->w[code >> 6] |= (uint64_t)1 << (code & 63);
}

/* lo..hi, with 0 <= lo <= hi <= 255: a word at a time. */
static inline void
codeset_add_range(struct cb_codeset *s, int lo, int hi)
{
	int	w, a, b;

	for (w = lo >> 6; w <= hi >> 6; w++) {
		a = w == lo >> 6 ? lo & 63 : 0;
		b = w == hi >> 6 ? hi & 63 : 63;
		s->w[w] |= (~(uint64_t)0 >> (63 - (b - a))) << a;
	}
}

/*
 * "250ms", "1.5s", "30s", "5m", "2h", "1d", "1m30s", or a bare integer of
 * seconds; the result in milliseconds, 0 to UNITS_MAX_MS.  A fraction must
 * come out in whole milliseconds.
 */
int	parse_duration(const char *, int64_t *, struct cb_err *);

/* "6,7,28,50-59" over 0..255, or "none" for the empty set. */
int	parse_codes(const char *, struct cb_codeset *, struct cb_err *);

/*
 * Strict decimal integer (optional '-', digits) within int64_t; strict
 * decimal number ([-+]digits[.digits][e[-+]digits], also .5 and 5.),
 * finite, with no hex, inf or nan, which strtod(3) would take.  These
 * two leave err to the caller: -1 only.
 */
int	parse_llong(const char *, long long *);
int	parse_double(const char *, double *);

/* Shortest exact form: 90000 -> "1m30s", 250 -> "250ms", 0 -> "0". */
void	format_duration(int64_t, char *, size_t);

/* "0,6-7,28"; "none" for the empty set. */
void	format_codes(const struct cb_codeset *, char *, size_t);

/* Shortest "%g" that reads back as the same double, always with a dot
 * or an exponent ("2.0", "0.5", "1e+100"). */
void	format_float(double, char *, size_t);

#endif
