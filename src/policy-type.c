/* SPDX-License-Identifier: ISC */
/*
 * policy-type.c: each type of policy value (enum, integer, number,
 * duration, exit code list, preset, argv list) read from its spelling in
 * the config file or on the command line and checked against its key's
 * range, stored into the builder, and printed back for `config show`.
 * policy.c's key table says which key has which type.  Pure.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy-type.h"
#include "preset.h"

#define MS_SECOND	UNITS_MS_SECOND
#define MAX_MS		UNITS_MAX_MS
#define SHOW_MAX	UNITS_SHOW_MAX

/* ---- reading a value --------------------------------------------------- */


/* The value as an error message shows it after "not ". */
static const char *
show_value(const struct policy_value *v, char *buf, size_t len)
{
	switch (v->type) {
	case PV_INT:
		snprintf(buf, len, "%lld", v->i);
		break;
	case PV_FLOAT:
		format_float(v->f, buf, len);
		break;
	case PV_STRING:
		if (v->from_cli)
			snprintf(buf, len, "'%.*s'", SHOW_MAX, v->s);
		else
			snprintf(buf, len, "the string '%.*s'", SHOW_MAX, v->s);
		break;
	case PV_BOOL:
		snprintf(buf, len, "%s", v->i ? "true" : "false");
		break;
	case PV_LIST:
		snprintf(buf, len, "a list");
		break;
	}
	return buf;
}

static void
names_list(const char *const *names, char *buf, size_t len)
{
	size_t	off = 0;
	int	n;

	buf[0] = '\0';
	for (; *names != NULL && off < len; names++) {
		n = snprintf(buf + off, len - off, "%s%s", off == 0 ? "" :
		    ", ", *names);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

static int
set_enum(const struct key_def *d, const struct policy_value *v,
    union key_val *out, struct cb_err *err)
{
	char	list[256], shown[SHOW_MAX + 32];
	int	i;

	if (v->type == PV_STRING) {
		for (i = 0; d->names[i] != NULL; i++) {
			if (strcmp(d->names[i], v->s) == 0) {
				out->n = i;
				return 0;
			}
		}
		snprintf(shown, sizeof shown, "'%.*s'", SHOW_MAX, v->s);
	} else
		show_value(v, shown, sizeof shown);
	names_list(d->names, list, sizeof list);
	err_set(err, "%s: must be one of %s, not %s", d->name, list, shown);
	return -1;
}

/* "curl, wget, ..." */
static void
preset_list(char *buf, size_t len)
{
	const char	*names[64];
	int		 i;

	for (i = 0; i < 63 && (names[i] = preset_name(i)) != NULL; i++)
		;
	names[i] = NULL;
	names_list(names, buf, len);
}

static int
set_preset(const struct key_def *d, const struct policy_value *v,
    union key_val *out, struct cb_err *err)
{
	char	list[256], shown[SHOW_MAX + 32];
	int	i;

	if (v->type == PV_STRING) {
		if (strcmp(v->s, "none") == 0) {
			out->n = -1;
			return 0;
		}
		if ((i = preset_lookup(v->s)) >= 0) {
			out->n = i;
			return 0;
		}
		snprintf(shown, sizeof shown, "'%.*s'", SHOW_MAX, v->s);
	} else
		show_value(v, shown, sizeof shown);
	preset_list(list, sizeof list);
	err_set(err, "%s: must be one of %s, none, not %s", d->name, list,
	    shown);
	return -1;
}

static int
set_int(const struct key_def *d, const struct policy_value *v,
    union key_val *out, struct cb_err *err)
{
	char		shown[SHOW_MAX + 32];
	long long	n;

	if (v->type == PV_INT)
		n = v->i;
	else if (v->type == PV_STRING && v->from_cli &&
	    parse_llong(v->s, &n) == 0)
		;
	else
		goto bad;
	if (n < d->lo || n > d->hi) {
		err_set(err, "%s: must be an integer from %lld to %lld, not "
		    "%lld", d->name, d->lo, d->hi, n);
		return -1;
	}
	out->n = n;
	return 0;
bad:
	err_set(err, "%s: must be an integer from %lld to %lld, not %s",
	    d->name, d->lo, d->hi, show_value(v, shown, sizeof shown));
	return -1;
}

static void
float_range(const struct key_def *d, char *buf, size_t len)
{
	char	lo[32], hi[32];

	snprintf(lo, sizeof lo, "%g", d->flo);
	snprintf(hi, sizeof hi, "%g", d->fhi);
	if (d->flo_open)
		snprintf(buf, len, "a number greater than %s and at most %s",
		    lo, hi);
	else
		snprintf(buf, len, "a number from %s to %s", lo, hi);
}

static int
set_float(const struct key_def *d, const struct policy_value *v,
    union key_val *out, struct cb_err *err)
{
	char	range[128], shown[SHOW_MAX + 32];
	double	f;

	if (v->type == PV_FLOAT)
		f = v->f;
	else if (v->type == PV_INT)
		f = (double)v->i;
	else if (v->type == PV_STRING && v->from_cli &&
	    parse_double(v->s, &f) == 0)
		;
	else
		goto bad;
	/* Written so that NaN fails too. */
	if (!(d->flo_open ? f > d->flo : f >= d->flo) || !(f <= d->fhi)) {
		float_range(d, range, sizeof range);
		if (v->type == PV_STRING)
			snprintf(shown, sizeof shown, "%.*s", SHOW_MAX, v->s);
		else
			show_value(v, shown, sizeof shown);
		err_set(err, "%s: must be %s, not %s", d->name, range, shown);
		return -1;
	}
	out->f = f;
	return 0;
bad:
	float_range(d, range, sizeof range);
	err_set(err, "%s: must be %s, not %s", d->name, range,
	    show_value(v, shown, sizeof shown));
	return -1;
}

static int
set_duration(const struct key_def *d, const struct policy_value *v,
    union key_val *out, struct cb_err *err)
{
	struct cb_err	perr;
	char		shown[SHOW_MAX + 32], most[32];
	int64_t		ms;

	if (v->type == PV_STRING) {
		if (d->none && strcmp(v->s, "none") == 0)
			ms = 0;
		else if (parse_duration(v->s, &ms, &perr) != 0) {
			err_set(err, "%s: %s", d->name, perr.msg);
			return -1;
		}
		snprintf(shown, sizeof shown, "'%.*s'", SHOW_MAX, v->s);
	} else if (v->type == PV_INT) {
		if (v->i < 0) {
			err_set(err, "%s: invalid duration %lld: negative",
			    d->name, v->i);
			return -1;
		}
		if (v->i > MAX_MS / MS_SECOND) {
			err_set(err, "%s: invalid duration %lld: longer than "
			    "100 years", d->name, v->i);
			return -1;
		}
		ms = v->i * MS_SECOND;
		snprintf(shown, sizeof shown, "%lld", v->i);
	} else {
		err_set(err, "%s: must be a duration such as \"30s\" or an "
		    "integer of seconds, not %s", d->name,
		    show_value(v, shown, sizeof shown));
		return -1;
	}
	if (ms < d->lo) {
		err_set(err, "%s: must be longer than 0, not %s", d->name,
		    shown);
		return -1;
	}
	if (d->hi > 0 && ms > d->hi) {
		format_duration(d->hi, most, sizeof most);
		err_set(err, "%s: must be at most %s, not %s", d->name, most,
		    shown);
		return -1;
	}
	out->ms = ms;
	return 0;
}

static int
set_codes(const struct key_def *d, const struct policy_value *v,
    union key_val *out, struct cb_err *err)
{
	struct cb_err	perr;
	char		shown[SHOW_MAX + 32];

	if (v->type == PV_STRING) {
		if (parse_codes(v->s, &out->codes, &perr) != 0) {
			err_set(err, "%s: %s", d->name, perr.msg);
			return -1;
		}
		return 0;
	}
	if (v->type == PV_INT) {
		if (v->i < 0 || v->i > 255) {
			err_set(err, "%s: invalid code %lld: exit codes go "
			    "from 0 to 255", d->name, v->i);
			return -1;
		}
		memset(&out->codes, 0, sizeof out->codes);
		codeset_add(&out->codes, (int)v->i);
		return 0;
	}
	err_set(err, "%s: must be a list of exit codes such as \"6,7,50-59\", "
	    "not %s", d->name, show_value(v, shown, sizeof shown));
	return -1;
}

/*
 * An argv list comes from the config file only: on the command line there
 * is no way to tell the words apart without a shell's quoting, and none
 * is involved.  "none" (either side) takes a probe back.
 */
static int
set_argv(const struct key_def *d, const struct policy_value *v,
    union key_val *out, struct cb_err *err)
{
	char	shown[SHOW_MAX + 32];

	if (v->type == PV_STRING && strcmp(v->s, "none") == 0) {
		out->argv = NULL;
		return 0;
	}
	if (v->type == PV_STRING && v->from_cli) {
		err_set(err, "%s: -o %s= takes a list in the config file's "
		    "syntax, such as [\"pg_isready\", \"-h\", \"db\"], or "
		    "none", d->name, d->name);
		return -1;
	}
	if (v->type != PV_LIST) {
		err_set(err, "%s: must be a list of strings such as [ "
		    "\"pg_isready\", \"-h\", \"db\" ], or \"none\", not %s",
		    d->name, show_value(v, shown, sizeof shown));
		return -1;
	}
	if (v->list == NULL || v->list[0] == NULL) {
		err_set(err, "%s: must name a command, not an empty list",
		    d->name);
		return -1;
	}
	if (v->list[0][0] == '\0') {
		err_set(err, "%s: the command must not be empty", d->name);
		return -1;
	}
	out->argv = v->list;
	return 0;
}

/*
 * max_rate: "N/DURATION" (SPEC 2d), N within the key's lo..hi, the
 * duration 1ms to POLICY_MAX_RATE_PER, and at most one call per
 * microsecond, the arithmetic's grain (breaker-rate.c); "none" none.
 */
static int
set_rate(const struct key_def *d, const struct policy_value *v,
    union key_val *out, struct cb_err *err)
{
	struct cb_err	perr;
	char		shown[SHOW_MAX + 32], num[16];
	const char	*slash;
	long long	n;
	int64_t		ms;
	size_t		len;

	if (v->type != PV_STRING)
		goto bad;
	if (strcmp(v->s, "none") == 0) {
		memset(&out->rate, 0, sizeof out->rate);
		return 0;
	}
	if ((slash = strchr(v->s, '/')) == NULL ||
	    (len = (size_t)(slash - v->s)) == 0 || len >= sizeof num ||
	    strspn(v->s, "0123456789") != len)
		goto bad;
	memcpy(num, v->s, len);
	num[len] = '\0';
	if (parse_llong(num, &n) == -1 || n < d->lo || n > d->hi) {
		err_set(err, "%s: N must be an integer from %lld to %lld, not "
		    "'%.*s'", d->name, d->lo, d->hi, SHOW_MAX, num);
		return -1;
	}
	if (parse_duration(slash + 1, &ms, &perr) == -1) {
		err_set(err, "%s: %s", d->name, perr.msg);
		return -1;
	}
	if (ms < 1 || ms > POLICY_MAX_RATE_PER) {
		err_set(err, "%s: the period must be longer than 0 and at "
		    "most 366d, not '%.*s'", d->name, SHOW_MAX, slash + 1);
		return -1;
	}
	if (ms * 1000 < n) {
		err_set(err, "%s: more than one call per microsecond, not "
		    "'%.*s'", d->name, SHOW_MAX, v->s);
		return -1;
	}
	out->rate.n = (uint32_t)n;
	out->rate.per_ms = ms;
	return 0;
bad:
	err_set(err, "%s: must be N/DURATION such as \"10/1m\", or "
	    "\"none\", not %s", d->name, show_value(v, shown, sizeof shown));
	return -1;
}

/* ---- storing and printing a value -------------------------------------- */

static void
store_int(void *field, const union key_val *v)
{
	*(int *)field = (int)v->n;
}

static void
store_u32(void *field, const union key_val *v)
{
	*(uint32_t *)field = (uint32_t)v->n;
}

static void
store_float(void *field, const union key_val *v)
{
	*(double *)field = v->f;
}

static void
store_duration(void *field, const union key_val *v)
{
	*(int64_t *)field = v->ms;
}

static void
store_codes(void *field, const union key_val *v)
{
	*(struct cb_codeset *)field = v->codes;
}

static void
store_argv(void *field, const union key_val *v)
{
	*(char *const **)field = v->argv;
}

static void
store_rate(void *field, const union key_val *v)
{
	*(struct cb_rate *)field = v->rate;
}

static void
format_enum(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	snprintf(buf, len, "\"%s\"", d->names[*(const int *)field]);
}

static void
format_int(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	(void)d;
	snprintf(buf, len, "%d", *(const int *)field);
}

static void
format_u32(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	(void)d;
	snprintf(buf, len, "%u", (unsigned)*(const uint32_t *)field);
}

static void
format_number(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	(void)d;
	format_float(*(const double *)field, buf, len);
}

static void
format_ms(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	char	tmp[64];
	int64_t	ms = *(const int64_t *)field;

	if (ms == 0 && d->none)
		snprintf(tmp, sizeof tmp, "none");
	else
		format_duration(ms, tmp, sizeof tmp);
	snprintf(buf, len, "\"%s\"", tmp);
}

static void
format_codeset(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	char	tmp[1024];

	(void)d;
	format_codes((const struct cb_codeset *)field, tmp, sizeof tmp);
	snprintf(buf, len, "\"%s\"", tmp);
}

static void
format_preset(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	const char	*name;
	int		 i = *(const int *)field;

	(void)d;
	if (i == -1)
		snprintf(buf, len, "\"none\"");
	else if ((name = preset_name(i)) != NULL)
		snprintf(buf, len, "\"%s\"", name);
	else	/* not from a spelling: never a name it does not have */
		snprintf(buf, len, "\"unknown preset %d\"", i);
}

/* [ "a", "b" ] with \ and " escaped, as the config file spells it. */
static void
format_argv(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	char *const	*argv = *(char *const *const *)field;
	const char	*c;
	size_t		 o = 0;
	int		 i;

	(void)d;
	if (argv == NULL || len < 16) {
		snprintf(buf, len, "%s", argv == NULL ? "\"none\"" : "");
		return;
	}
	/* Room for the closing " ]" and NUL is kept at every step. */
	buf[o++] = '[';
	for (i = 0; argv[i] != NULL && o + 8 < len; i++) {
		buf[o++] = i == 0 ? ' ' : ',';
		if (i > 0)
			buf[o++] = ' ';
		buf[o++] = '"';
		for (c = argv[i]; *c != '\0' && o + 8 < len; c++) {
			if (*c == '"' || *c == '\\')
				buf[o++] = '\\';
			buf[o++] = *c;
		}
		buf[o++] = '"';
	}
	buf[o++] = ' ';
	buf[o++] = ']';
	buf[o] = '\0';
}

static void
format_rate(const struct key_def *d, const void *field, char *buf,
    size_t len)
{
	const struct cb_rate	*r = field;
	char			 per[64];

	(void)d;
	if (r->n == 0) {
		snprintf(buf, len, "\"none\"");
		return;
	}
	format_duration(r->per_ms, per, sizeof per);
	snprintf(buf, len, "\"%u/%s\"", (unsigned)r->n, per);
}

const struct key_type_ops policy_types[KT_COUNT] = {
	[KT_ENUM] = { set_enum, store_int, format_enum },
	[KT_U32] = { set_int, store_u32, format_u32 },
	[KT_INT] = { set_int, store_int, format_int },
	[KT_FLOAT] = { set_float, store_float, format_number },
	[KT_DURATION] = { set_duration, store_duration, format_ms },
	[KT_CODES] = { set_codes, store_codes, format_codeset },
	[KT_PRESET] = { set_preset, store_int, format_preset },
	[KT_ARGV] = { set_argv, store_argv, format_argv },
	[KT_RATE] = { set_rate, store_rate, format_rate },
};
