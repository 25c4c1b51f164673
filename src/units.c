/* SPDX-License-Identifier: ISC */
/*
 * units.c: the spellings of durations ("1m30s"), exit code lists
 * ("6,7,28,50-59") and numbers that the config file and the command line
 * share, read strictly and written back in their shortest exact form, so
 * that what `config show` prints reads back as the same value.  Pure: libc
 * only.  The fuzzers tests/fuzz/fuzz-duration.c and fuzz-codes.c drive the
 * two list parsers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

#define MS_SECOND	UNITS_MS_SECOND
#define MS_MINUTE	UNITS_MS_MINUTE
#define MS_HOUR		UNITS_MS_HOUR
#define MS_DAY		UNITS_MS_DAY
#define MAX_MS		UNITS_MAX_MS

/* How much of a bad value an error message repeats. */
#define SHOW_MAX	UNITS_SHOW_MAX


static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int
parse_llong(const char *s, long long *v)
{
	const char		*p = s;
	unsigned long long	 n = 0, lim;
	int			 neg = 0;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (!is_digit((unsigned char)*p))
		return -1;
	lim = neg ? (unsigned long long)INT64_MAX + 1 : INT64_MAX;
	for (; is_digit((unsigned char)*p); p++) {
		if (n > (lim - (unsigned)(*p - '0')) / 10)
			return -1;
		n = n * 10 + (unsigned)(*p - '0');
	}
	if (*p != '\0')
		return -1;
	if (neg)
		*v = n == (unsigned long long)INT64_MAX + 1 ? INT64_MIN :
		    -(long long)n;
	else
		*v = (long long)n;
	return 0;
}

int
parse_double(const char *s, double *v)
{
	const char	*p = s;
	char		*end;
	int		 digits = 0;

	if (*p == '-' || *p == '+')
		p++;
	for (; is_digit((unsigned char)*p); p++)
		digits++;
	if (*p == '.') {
		for (p++; is_digit((unsigned char)*p); p++)
			digits++;
	}
	if (digits == 0)
		return -1;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!is_digit((unsigned char)*p))
			return -1;
		while (is_digit((unsigned char)*p))
			p++;
	}
	if (*p != '\0')
		return -1;
	*v = strtod(s, &end);
	if (*end != '\0' || !isfinite(*v))
		return -1;
	return 0;
}

struct unit {
	const char	*name;
	long long	 ms;
};

static const struct unit units[] = {
	{ "ms", 1 },
	{ "s", MS_SECOND },
	{ "m", MS_MINUTE },
	{ "h", MS_HOUR },
	{ "d", MS_DAY },
};

/* A bare integer of seconds (s is all digits); -1 past 100 years. */
static int
parse_seconds(const char *s, int64_t *out)
{
	unsigned long long	 ip = 0;
	const char		*p;

	for (p = s; *p != '\0'; p++) {
		if (ip > (unsigned long long)MAX_MS)
			return -1;
		ip = ip * 10 + (unsigned)(*p - '0');
	}
	if (ip > (unsigned long long)(MAX_MS / MS_SECOND))
		return -1;
	*out = (int64_t)ip * MS_SECOND;
	return 0;
}

/* Milliseconds of the unit u[0..ulen), or 0 for an unknown one. */
static long long
unit_ms(const char *u, size_t ulen)
{
	size_t	i;

	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strlen(units[i].name) == ulen &&
		    strncmp(units[i].name, u, ulen) == 0)
			return units[i].ms;
	}
	return 0;
}

/* What one term of a duration came to. */
enum term {
	TERM_OK,
	TERM_LONG,	/* alone longer than 100 years */
	TERM_FINE,	/* finer than a millisecond */
	TERM_ERR	/* err says why */
};

/*
 * The term ("1.5h") of s at *pp, which it moves past the term; its
 * milliseconds in *add.
 */
static enum term
duration_term(const char *s, const char **pp, unsigned long long *add,
    struct cb_err *err)
{
	const char		*p = *pp, *num, *frac = NULL, *u;
	unsigned long long	 ip, fnum, fden;
	long long		 ms;
	size_t			 ulen, flen = 0, i;

	if (*p == '-') {
		err_set(err, "invalid duration '%.*s': negative", SHOW_MAX, s);
		return TERM_ERR;
	}
	num = p;
	if (!is_digit((unsigned char)*p)) {
		err_set(err, "invalid duration '%.*s': expected a number at "
		    "'%.*s'", SHOW_MAX, s, SHOW_MAX, p);
		return TERM_ERR;
	}
	for (ip = 0; is_digit((unsigned char)*p); p++) {
		if (ip <= (unsigned long long)MAX_MS)
			ip = ip * 10 + (unsigned)(*p - '0');
	}
	if (*p == '.') {
		frac = ++p;
		if (!is_digit((unsigned char)*p)) {
			err_set(err, "invalid duration '%.*s': expected a "
			    "digit after '%.*s'", SHOW_MAX, s, (int)(p - num),
			    num);
			return TERM_ERR;
		}
		while (is_digit((unsigned char)*p))
			p++;
		flen = (size_t)(p - frac);
		while (flen > 0 && frac[flen - 1] == '0')
			flen--;
	}
	u = p;
	while (is_alpha((unsigned char)*p))
		p++;
	ulen = (size_t)(p - u);
	*pp = p;
	if (ulen == 0) {
		err_set(err, "invalid duration '%.*s': missing unit after "
		    "'%.*s'", SHOW_MAX, s, (int)(p - num), num);
		return TERM_ERR;
	}
	if ((ms = unit_ms(u, ulen)) == 0) {
		err_set(err, "invalid duration '%.*s': unknown unit '%.*s'",
		    SHOW_MAX, s, (int)ulen, u);
		return TERM_ERR;
	}
	if (ip > (unsigned long long)(MAX_MS / ms))
		return TERM_LONG;
	*add = ip * (unsigned long long)ms;
	if (flen == 0)
		return TERM_OK;
	/* Nine decimals reach below a millisecond of a day. */
	if (flen > 9)
		return TERM_FINE;
	for (fnum = 0, fden = 1, i = 0; i < flen; i++) {
		fnum = fnum * 10 + (unsigned)(frac[i] - '0');
		fden *= 10;
	}
	if (fnum * (unsigned long long)ms % fden != 0)
		return TERM_FINE;
	*add += fnum * (unsigned long long)ms / fden;
	return TERM_OK;
}

static int	duration_parse(const char *, int64_t *, struct cb_err *);

/*
 * "30 s" and "1m 30s" are durations spelt with spaces, as people write
 * them: one that parses without its blanks is refused with the value as
 * it must be written.
 */
int
parse_duration(const char *s, int64_t *out, struct cb_err *err)
{
	struct cb_err	e;
	char		fix[SHOW_MAX + 1];
	size_t		i, n = 0;
	int64_t		v;

	if (duration_parse(s, out, err) == 0)
		return 0;
	if (strpbrk(s, " \t") == NULL || strlen(s) > SHOW_MAX)
		return -1;
	for (i = 0; s[i] != '\0'; i++)
		if (s[i] != ' ' && s[i] != '\t')
			fix[n++] = s[i];
	fix[n] = '\0';
	if (n > 0 && duration_parse(fix, &v, &e) == 0)
		err_set(err, "invalid duration '%s': no spaces in a duration "
		    "(did you mean '%s'?)", s, fix);
	return -1;
}

static int
duration_parse(const char *s, int64_t *out, struct cb_err *err)
{
	const char		*p;
	unsigned long long	 add = 0;
	long long		 total = 0;
	int			 toolong = 0;

	if (*s == '\0') {
		err_set(err, "invalid duration '': empty");
		return -1;
	}
	for (p = s; is_digit((unsigned char)*p); p++)
		;
	if (*p == '\0') {
		if (parse_seconds(s, out) != 0)
			goto too_long;
		return 0;
	}
	/* A later term's error is reported before the whole is too long. */
	for (p = s; *p != '\0';) {
		switch (duration_term(s, &p, &add, err)) {
		case TERM_ERR:
			return -1;
		case TERM_FINE:
			goto too_fine;
		case TERM_LONG:
			toolong = 1;
			continue;
		case TERM_OK:
			break;
		}
		if (add > (unsigned long long)(MAX_MS - total))
			toolong = 1;
		else
			total += (long long)add;
	}
	if (toolong)
		goto too_long;
	*out = total;
	return 0;

too_fine:
	err_set(err, "invalid duration '%.*s': finer than a millisecond",
	    SHOW_MAX, s);
	return -1;
too_long:
	err_set(err, "invalid duration '%.*s': longer than 100 years",
	    SHOW_MAX, s);
	return -1;
}

static const char *
skip_blanks(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* A code 0..255 at *pp; -1 when there is no number, -2 when too big. */
static int
parse_code(const char **pp)
{
	const char	*p = *pp;
	int		 n = 0;

	if (!is_digit((unsigned char)*p))
		return -1;
	for (; is_digit((unsigned char)*p); p++) {
		if (n <= 255)
			n = n * 10 + (*p - '0');
	}
	*pp = p;
	return n > 255 ? -2 : n;
}

int
parse_codes(const char *s, struct cb_codeset *out, struct cb_err *err)
{
	struct cb_codeset	 set;
	const char		*p, *at;
	int			 lo, hi;

	memset(&set, 0, sizeof set);
	if (strcmp(s, "none") == 0) {
		*out = set;
		return 0;
	}
	p = skip_blanks(s);
	if (*p == '\0') {
		err_set(err, "invalid code list '%.*s': empty (write 'none' "
		    "for no codes)", SHOW_MAX, s);
		return -1;
	}
	for (;;) {
		p = skip_blanks(p);
		at = p;
		if ((lo = parse_code(&p)) == -1)
			goto expected;
		if (lo == -2)
			goto range;
		hi = lo;
		p = skip_blanks(p);
		if (*p == '-') {
			p = skip_blanks(p + 1);
			if (*p == '\0' || *p == ',') {
				err_set(err, "invalid code list '%.*s': "
				    "missing end of range", SHOW_MAX, s);
				return -1;
			}
			at = p;
			if ((hi = parse_code(&p)) == -1)
				goto expected;
			if (hi == -2)
				goto range;
			if (hi < lo) {
				err_set(err, "invalid code list '%.*s': range "
				    "%d-%d goes backwards", SHOW_MAX, s, lo,
				    hi);
				return -1;
			}
			p = skip_blanks(p);
		}
		codeset_add_range(&set, lo, hi);
		if (*p == '\0')
			break;
		if (*p != ',') {
			err_set(err, "invalid code list '%.*s': unexpected "
			    "'%c'", SHOW_MAX, s, *p);
			return -1;
		}
		p++;
	}
	*out = set;
	return 0;

expected:
	if (*at == '\0')
		err_set(err, "invalid code list '%.*s': missing code after "
		    "','", SHOW_MAX, s);
	else
		err_set(err, "invalid code list '%.*s': expected a code at "
		    "'%.*s'", SHOW_MAX, s, SHOW_MAX, at);
	return -1;
range:
	err_set(err, "invalid code list '%.*s': code %.*s is out of range "
	    "0-255", SHOW_MAX, s, (int)strspn(at, "0123456789"), at);
	return -1;
}

/* ---- formatting -------------------------------------------------------- */

void
format_duration(int64_t ms, char *buf, size_t len)
{
	static const struct unit order[] = {
		{ "d", MS_DAY }, { "h", MS_HOUR }, { "m", MS_MINUTE },
		{ "s", MS_SECOND }, { "ms", 1 }
	};
	uint64_t	v;
	size_t		off = 0, i;
	int		n;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (ms == 0) {
		snprintf(buf, len, "0");
		return;
	}
	if (ms < 0) {
		snprintf(buf, len, "-");
		off = 1;
		v = (uint64_t)0 - (uint64_t)ms;
	} else
		v = (uint64_t)ms;
	for (i = 0; i < sizeof order / sizeof order[0] && v != 0; i++) {
		if (v < (uint64_t)order[i].ms)
			continue;
		if (off >= len)
			break;
		n = snprintf(buf + off, len - off, "%llu%s",
		    (unsigned long long)(v / (uint64_t)order[i].ms),
		    order[i].name);
		if (n < 0)
			break;
		off += (size_t)n;
		v %= (uint64_t)order[i].ms;
	}
}

/* The decimal digits of a code, 0..255, unterminated: how many. */
static size_t
put_code(char *p, int c)
{
	size_t	n = 0;

	if (c >= 100)
		p[n++] = (char)('0' + c / 100);
	if (c >= 10)
		p[n++] = (char)('0' + c / 10 % 10);
	p[n++] = (char)('0' + c % 10);
	return n;
}

/*
 * The first code from c on that is in s (in) or not (!in), a word at a
 * time; 256 when there is none.  status formats three classes a breaker.
 */
static int
codeset_next(const struct cb_codeset *s, int c, int in)
{
	uint64_t	v;

	while (c <= 255) {
		v = (in ? s->w[c >> 6] : ~s->w[c >> 6]) >> (c & 63);
		if (v != 0)
			return c + __builtin_ctzll(v);
		c = (c | 63) + 1;
	}
	return 256;
}

void
format_codes(const struct cb_codeset *s, char *buf, size_t len)
{
	char	part[16];
	size_t	off = 0, n;
	int	c, end;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (c = codeset_next(s, 0, 1); c <= 255;
	    c = codeset_next(s, end + 1, 1)) {
		end = codeset_next(s, c, 0) - 1;
		n = 0;
		if (off != 0)
			part[n++] = ',';
		n += put_code(part + n, c);
		if (end != c) {
			part[n++] = '-';
			n += put_code(part + n, end);
		}
		if (off + n >= len)
			break;
		memcpy(buf + off, part, n);
		buf[off += n] = '\0';
	}
	if (off == 0)
		snprintf(buf, len, "none");
}

void
format_float(double v, char *buf, size_t len)
{
	int	prec;

	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (strpbrk(buf, ".eEn") == NULL && strlen(buf) + 2 < len)
		strcat(buf, ".0");
}
