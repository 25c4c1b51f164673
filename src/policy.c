/*
 * policy.c: the per-breaker policy of SPEC section 3.  One table, keys[],
 * says each key once: its name, its type, where its value lives, its
 * default as the config file spells it, its range or names, and a line of
 * help.  policy_init() parses the defaults through the same code as
 * everything else, policy_set() validates a value for both the config file
 * and the command line, so a value means the same wherever it is written,
 * and policy_format() prints it back for `config show`; none of them names
 * a key.  The spellings themselves (durations, code lists, numbers) are
 * units.c's, the presets' tables preset.c's, and policy_finish() with the
 * code classes is policy-finish.c's.  Pure: no I/O and no libconfig.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "preset.h"

#define MS_SECOND	UNITS_MS_SECOND
#define MAX_MS		UNITS_MAX_MS
#define SHOW_MAX	UNITS_SHOW_MAX

/*
 * How a key's value is read, stored and printed: types[] below holds one
 * entry of functions per type, so a new type (an argv list of strings, say,
 * stored as a char ** the config owns) is one entry there, one union
 * member here and its keys in keys[].
 */
enum key_type {
	KT_ENUM,	/* a name of names[], stored as an enum (an int) */
	KT_U32,		/* an integer lo..hi, stored as a uint32_t */
	KT_INT,		/* an integer lo..hi, stored as an int */
	KT_FLOAT,	/* a number flo..fhi, stored as a double */
	KT_DURATION,	/* lo..hi ms (hi 0: no cap), stored as an int64_t */
	KT_CODES,	/* an exit code list, stored as a struct cb_codeset */
	KT_PRESET,	/* a preset name or "none", stored as an int (-1) */
	KT_ARGV,	/* a list of strings or "none", stored as a char *const *
			 * the config owns (NULL) */
	KT_COUNT
};

/* A value parsed for its key, before policy_set decides to keep it. */
union key_val {
	long long		n;	/* KT_ENUM, KT_U32, KT_INT, KT_PRESET */
	double			f;	/* KT_FLOAT */
	int64_t			ms;	/* KT_DURATION */
	struct cb_codeset	codes;	/* KT_CODES */
	char *const		*argv;	/* KT_ARGV; NULL: none */
};

struct key_def {
	const char		*name;
	enum key_type		 type;
	size_t			 off;	/* in struct policy_builder */
	const char		*def;	/* the default, as -o would spell it */
	long long		 lo;	/* KT_U32, KT_INT; KT_DURATION: ms */
	long long		 hi;	/* the most; KT_DURATION 0: none */
	double			 flo;	/* KT_FLOAT */
	double			 fhi;
	int			 flo_open;	/* flo itself is not allowed */
	const char *const	*names;	/* KT_ENUM, in the enum's order */
	int			 none;	/* KT_DURATION: 0 is spelt "none" */
	const char		*help;
};

/* Where a value of the effective policy lives in the builder. */
#define P(field)	offsetof(struct policy_builder, p.field)

static const char *const trip_names[] = {
	"consecutive", "rate", "time", NULL
};
static const char *const verdict_names[] = {
	"failure", "success", "ignore", NULL
};
static const char *const on_open_names[] = {
	"fail", "skip", NULL
};

/* In the order of enum policy_key, which is `config show`'s. */
static const struct key_def keys[PK_COUNT] = {
	[PK_TRIP_POLICY] = { "trip.policy", KT_ENUM, P(trip_policy),
	    "consecutive", .names = trip_names,
	    .help = "what trips the breaker: consecutive, rate or time" },
	[PK_TRIP_FAILURES] = { "trip.failures", KT_U32, P(trip_failures), "5",
	    1, POLICY_MAX_FAILURES,
	    .help = "failures in a row (consecutive) or within trip.period "
	    "(time) that open" },
	[PK_TRIP_PERIOD] = { "trip.period", KT_DURATION, P(trip_period_ms),
	    "1m", 1, .help = "the time policy's sliding window" },
	[PK_TRIP_WINDOW] = { "trip.window", KT_U32, P(trip_window), "20",
	    1, POLICY_MAX_WINDOW,
	    .help = "the rate policy's window: the last N calls" },
	[PK_TRIP_MIN_CALLS] = { "trip.min_calls", KT_U32, P(trip_min_calls),
	    "10", 1, POLICY_MAX_WINDOW,
	    .help = "no rate verdict below this many calls in the window" },
	[PK_TRIP_FAILURE_RATE] = { "trip.failure_rate", KT_FLOAT,
	    P(trip_failure_rate), "0.5", .flo = 0, .fhi = 1, .flo_open = 1,
	    .help = "the rate policy opens at failures/calls >= this" },
	[PK_OPEN_TIMEOUT] = { "open_timeout", KT_DURATION,
	    P(open_timeout_ms), "1m", 1, .help = "the first cool-down" },
	[PK_MAX_OPEN_TIMEOUT] = { "max_open_timeout", KT_DURATION,
	    P(max_open_timeout_ms), "10m", 1,
	    .help = "the cap of the backed-off cool-down" },
	[PK_BACKOFF] = { "backoff", KT_FLOAT, P(backoff), "2.0", .flo = 1,
	    .fhi = 100,
	    .help = "the cool-down's multiplier at each failed probe" },
	[PK_JITTER] = { "jitter", KT_FLOAT, P(jitter), "0.0", .flo = 0,
	    .fhi = 1, .help = "the share of the cool-down drawn at random" },
	[PK_HALF_OPEN_MAX_CALLS] = { "half_open_max_calls", KT_U32,
	    P(half_open_max_calls), "1", 1, POLICY_MAX_PROBES,
	    .help = "concurrent probes; that many successes close" },
	[PK_PROBE_LEASE] = { "probe_lease", KT_DURATION, P(probe_lease_ms),
	    "1h", 1, .help = "the lease of a probe with no timeout" },
	[PK_PROBE] = { "probe", KT_ARGV, P(probe), "none",
	    .help = "the command run as the half-open probe instead of the "
	    "job" },
	[PK_PROBE_TIMEOUT] = { "probe_timeout", KT_DURATION,
	    P(probe_timeout_ms), "10s", 1,
	    .help = "SIGKILL the probe command's process group after this" },
	[PK_TIMEOUT] = { "timeout", KT_DURATION, P(timeout_ms), "none", 0,
	    .none = 1, .help = "the per-run timeout" },
	[PK_KILL_AFTER] = { "kill_after", KT_DURATION, P(kill_after_ms),
	    "10s", 0,
	    .help = "SIGKILL this long after the timeout's SIGTERM; 0 never" },
	[PK_MAX_CONCURRENT] = { "max_concurrent", KT_U32, P(max_concurrent),
	    "0", 0, POLICY_MAX_CONCURRENT,
	    .help = "calls of the breaker that may run at once; 0 no limit" },
	[PK_ON_BUSY] = { "on_busy", KT_ENUM, P(on_busy), "fail",
	    .names = on_open_names,
	    .help = "every run slot taken: fail (exit open_exit_code) or skip "
	    "(exit 0)" },
	[PK_FAILURE_CODES] = { "failure_codes", KT_CODES, P(failure_codes),
	    "1-255", .help = "the exit codes that are failures" },
	[PK_SUCCESS_CODES] = { "success_codes", KT_CODES, P(success_codes),
	    "0", .help = "the exit codes that are successes" },
	[PK_IGNORE_CODES] = { "ignore_codes", KT_CODES, P(ignore_codes),
	    "none", .help = "the exit codes that count as nothing" },
	[PK_PRESET] = { "preset", KT_PRESET,
	    offsetof(struct policy_builder, preset), "none",
	    .help = "a well-known tool's exit code table" },
	[PK_TIMEOUT_IS] = { "timeout_is", KT_ENUM, P(timeout_is), "failure",
	    .names = verdict_names, .help = "what a timeout counts as" },
	[PK_SIGNAL_IS] = { "signal_is", KT_ENUM, P(signal_is), "failure",
	    .names = verdict_names,
	    .help = "what a death by signal counts as" },
	[PK_SLOW_CALL] = { "slow_call", KT_DURATION, P(slow_call_ms), "none",
	    0, .none = 1, .help = "a success slower than this is a failure" },
	[PK_ON_OPEN] = { "on_open", KT_ENUM, P(on_open), "fail",
	    .names = on_open_names,
	    .help = "a refused call: fail (exit open_exit_code) or skip "
	    "(exit 0)" },
	[PK_OPEN_EXIT_CODE] = { "open_exit_code", KT_INT, P(open_exit_code),
	    "75", 0, 255, .help = "the exit status of a refused call" },
	[PK_RETRIES] = { "retries", KT_U32, P(retries), "0", 0,
	    POLICY_MAX_RETRIES, .help = "run --retries: retries of a failure" },
	[PK_RETRY_DELAY] = { "retry_delay", KT_DURATION, P(retry_delay_ms),
	    "1s", 0, POLICY_MAX_RETRY_DELAY,
	    .help = "the first retry's delay, doubled at each retry" },
};

/* KT_ENUM and KT_PRESET values are stored through an int. */
_Static_assert(sizeof(enum cb_trip_policy) == sizeof(int) &&
    sizeof(enum cb_verdict) == sizeof(int) &&
    sizeof(enum cb_on_open) == sizeof(int), "an enum is not an int");

static const char	builtin_origin[] = "built-in";

int
policy_key_lookup(const char *name)
{
	int	i;

	for (i = 0; i < PK_COUNT; i++) {
		if (strcmp(keys[i].name, name) == 0)
			return i;
	}
	return -1;
}

const char *
policy_key_name(enum policy_key k)
{
	if ((int)k < 0 || k >= PK_COUNT)
		return NULL;
	return keys[k].name;
}

int
policy_key_is_list(enum policy_key k)
{
	if ((int)k < 0 || k >= PK_COUNT)
		return 0;
	return keys[k].type == KT_ARGV;
}

const char *
policy_key_help(enum policy_key k)
{
	if ((int)k < 0 || k >= PK_COUNT)
		return NULL;
	return keys[k].help;
}

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
		err_set(err, "%s: an argv list is set in the config file only "
		    "(%s = [ \"pg_isready\", \"-h\", \"db\" ];); -o %s=none "
		    "alone is allowed", d->name, d->name, d->name);
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
	int	i = *(const int *)field;

	(void)d;
	snprintf(buf, len, "\"%s\"", i < 0 ? "none" : preset_name(i));
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

static const struct {
	int	(*parse)(const struct key_def *, const struct policy_value *,
		    union key_val *, struct cb_err *);
	void	(*store)(void *, const union key_val *);
	void	(*format)(const struct key_def *, const void *, char *,
		    size_t);
} types[KT_COUNT] = {
	[KT_ENUM] = { set_enum, store_int, format_enum },
	[KT_U32] = { set_int, store_u32, format_u32 },
	[KT_INT] = { set_int, store_int, format_int },
	[KT_FLOAT] = { set_float, store_float, format_number },
	[KT_DURATION] = { set_duration, store_duration, format_ms },
	[KT_CODES] = { set_codes, store_codes, format_codeset },
	[KT_PRESET] = { set_preset, store_int, format_preset },
	[KT_ARGV] = { set_argv, store_argv, format_argv },
};

static void *
field_of(struct policy_builder *b, const struct key_def *d)
{
	return (char *)b + d->off;
}

/* The default of key k as a value of its type: parsing it cannot fail. */
static int
default_of(enum policy_key k, union key_val *v)
{
	struct policy_value	pv = { PV_STRING, 0, 0, NULL, 1, NULL };

	pv.s = keys[k].def;
	memset(v, 0, sizeof *v);
	return types[keys[k].type].parse(&keys[k], &pv, v, NULL);
}

/*
 * The built-in builder, parsed from keys[] once per process (every
 * invocation starts one or more policies from it).  Not for threads.
 */
static const struct policy_builder *
builtin(void)
{
	static struct policy_builder	b;
	static int			done;
	union key_val			v;
	int				i;

	if (done)
		return &b;
	memset(&b, 0, sizeof b);
	for (i = 0; i < PK_COUNT; i++) {
		if (default_of((enum policy_key)i, &v) == 0)
			types[keys[i].type].store(field_of(&b, &keys[i]), &v);
		b.origin[i] = builtin_origin;
		b.layer[i] = LAYER_BUILTIN;
	}
	/* The preset index policy_finish copies: no key of its own. */
	b.p.preset = -1;
	done = 1;
	return &b;
}

struct cb_codeset
policy_default_class(int cls)
{
	struct cb_codeset	s;
	const struct key_def	*d;

	if (cls < 0 || cls >= POLICY_CLASSES) {
		memset(&s, 0, sizeof s);
		return s;
	}
	d = &keys[policy_class_key(cls)];
	memcpy(&s, (const char *)builtin() + d->off, sizeof s);
	return s;
}

void
policy_init(struct policy_builder *b)
{
	*b = *builtin();
}

int
policy_check(enum policy_key k, const struct policy_value *v,
    struct cb_err *err)
{
	union key_val	val;

	if ((int)k < 0 || k >= PK_COUNT) {
		err_set(err, "unknown policy key %d", (int)k);
		return -1;
	}
	memset(&val, 0, sizeof val);
	return types[keys[k].type].parse(&keys[k], v, &val, err);
}

int
policy_set(struct policy_builder *b, enum policy_key k,
    const struct policy_value *v, enum policy_layer layer,
    const char *origin, struct cb_err *err)
{
	const struct key_def	*d;
	union key_val		 val;
	int			 cls;

	if ((int)k < 0 || k >= PK_COUNT) {
		err_set(err, "unknown policy key %d", (int)k);
		return -1;
	}
	d = &keys[k];
	memset(&val, 0, sizeof val);
	if (types[d->type].parse(d, v, &val, err) != 0)
		return -1;

	/* A lower layer never overrides a higher one, whatever the order. */
	if (layer < b->layer[k])
		return 0;
	b->layer[k] = layer;
	b->origin[k] = origin;
	types[d->type].store(field_of(b, d), &val);
	/* p holds the raw class until policy_finish resolves it. */
	if (d->type == KT_CODES) {
		cls = (int)k - PK_FAILURE_CODES;
		b->cls[cls] = val.codes;
		b->cls_set[cls] = (int)layer + 1;
	}
	return 0;
}

void
policy_format(const struct policy_builder *b, enum policy_key k, char *buf,
    size_t len)
{
	const struct key_def	*d;

	if (len == 0)
		return;
	buf[0] = '\0';
	if ((int)k < 0 || k >= PK_COUNT)
		return;
	d = &keys[k];
	types[d->type].format(d, (const char *)b + d->off, buf, len);
}
