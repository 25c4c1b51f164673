/* SPDX-License-Identifier: ISC */
/*
 * policy.c: the per-breaker policy of SPEC section 3.  One table, keys[],
 * says each key once: its name, its type, where its value lives, its
 * default as the config file spells it, its range or names, and a line of
 * help.  policy_init() parses the defaults through the same code as
 * everything else, policy_set() validates a value for both the config file
 * and the command line, so a value means the same wherever it is written,
 * and policy_format() prints it back for `config show`; none of them names
 * a key.  The spellings themselves (durations, code lists, numbers) are
 * units.c's, reading, storing and printing each type of value
 * policy-type.c's, the presets' tables preset.c's, and policy_finish() with
 * the code classes is policy-finish.c's.  Pure: no I/O and no libconfig.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "policy-type.h"
#include "preset.h"

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
static const char *const output_names[] = {
	"pass", "on-failure", "on-change", NULL
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
	[PK_MAX_RATE] = { "max_rate", KT_RATE, P(max_rate), "none", 1,
	    POLICY_MAX_RATE_N,
	    .help = "calls admitted per period, N/DURATION (GCRA); none no "
	    "limit" },
	[PK_RATE_BURST] = { "rate_burst", KT_U32, P(rate_burst), "1", 1,
	    POLICY_MAX_BURST,
	    .help = "calls max_rate lets through at once after a quiet "
	    "spell" },
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
	[PK_EXPECT_EVERY] = { "expect_every", KT_DURATION, P(expect_every_ms),
	    "none", 0, .none = 1,
	    .help = "a success is expected at least this often; later, the "
	    "breaker is overdue" },
	[PK_OUTPUT] = { "output", KT_ENUM, P(output), "pass",
	    .names = output_names,
	    .help = "the command's output: pass, on-failure (held unless it "
	    "fails) or on-change (held unless the breaker changes)" },
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
	return policy_types[keys[k].type].parse(&keys[k], &pv, v, NULL);
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
			policy_types[keys[i].type].store(field_of(&b, &keys[i]), &v);
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

void
policy_init_from(struct policy_builder *b, const struct cb_policy *p,
    const char *origin)
{
	int	k;

	*b = *builtin();
	b->p = *p;
	b->p.probe = NULL;
	for (k = 0; k < PK_COUNT; k++)
		b->origin[k] = origin;
	b->preset = p->preset;
	/* Its classes as explicit ones of the lowest layer: a class or a
	 * preset laid over takes what it names, as over a config's. */
	b->cls[POLICY_CLASS_FAILURE] = p->failure_codes;
	b->cls[POLICY_CLASS_SUCCESS] = p->success_codes;
	b->cls[POLICY_CLASS_IGNORE] = p->ignore_codes;
	for (k = 0; k < POLICY_CLASSES; k++)
		b->cls_set[k] = LAYER_BUILTIN + 1;
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
	return policy_types[keys[k].type].parse(&keys[k], v, &val, err);
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
	if (policy_types[d->type].parse(d, v, &val, err) != 0)
		return -1;

	/* A lower layer never overrides a higher one, whatever the order. */
	if (layer < b->layer[k])
		return 0;
	b->layer[k] = layer;
	b->origin[k] = origin;
	policy_types[d->type].store(field_of(b, d), &val);
	/* p holds the raw class until policy_finish resolves it. */
	if (d->type == KT_CODES) {
		cls = (int)k - PK_FAILURE_CODES;
		b->cls[cls] = val.codes;
		b->cls_set[cls] = (int)layer + 1;
	}
	return 0;
}

int
policy_int_in_range(enum policy_key k, long long n)
{
	const struct key_def	*d;
	long long		 i;

	if ((int)k < 0 || k >= PK_COUNT)
		return 0;
	d = &keys[k];
	switch (d->type) {
	case KT_ENUM:
		for (i = 0; d->names[i] != NULL; i++)
			if (i == n)
				return 1;
		return 0;
	case KT_PRESET:
		return n == -1 || (n >= 0 && n <= INT32_MAX &&
		    preset_name((int)n) != NULL);
	case KT_U32:
	case KT_INT:
		return n >= d->lo && n <= d->hi;
	case KT_DURATION:
		if (n == 0 && d->none)
			return 1;
		return n >= d->lo && n <= (d->hi > 0 ? d->hi : UNITS_MAX_MS);
	default:
		return 0;
	}
}

int
policy_rate_valid(const struct cb_rate *r)
{
	const struct key_def	*d = &keys[PK_MAX_RATE];

	if (r->n == 0)
		return r->per_ms == 0;
	return r->n >= d->lo && r->n <= d->hi && r->per_ms >= 1 &&
	    r->per_ms <= POLICY_MAX_RATE_PER && r->per_ms * 1000 >= r->n;
}

int
policy_float_in_range(enum policy_key k, double f)
{
	const struct key_def	*d;

	if ((int)k < 0 || k >= PK_COUNT || keys[k].type != KT_FLOAT)
		return 0;
	d = &keys[k];
	/* Written so that NaN fails too, as set_float. */
	return (d->flo_open ? f > d->flo : f >= d->flo) && f <= d->fhi;
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
	policy_types[d->type].format(d, (const char *)b + d->off, buf, len);
}
