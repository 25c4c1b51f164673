/* SPDX-License-Identifier: ISC */
/*
 * unit-policy.c: the policy module's parsers, formatters, key validation,
 * layering and exit code class resolution, table by table.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "hint.h"
#include "policy.h"
#include "preset.h"
#include "record.h"
#include "unit.h"

#define NELEM(a)	(sizeof (a) / sizeof (a)[0])

static void
test_parse_duration(void)
{
	static const struct {
		const char	*in;
		int64_t		 ms;
	} good[] = {
		{ "0", 0 },
		{ "250ms", 250 },
		{ "1.5s", 1500 },
		{ "30s", 30000 },
		{ "5m", 300000 },
		{ "2h", 7200000 },
		{ "1d", 86400000 },
		{ "1m30s", 90000 },
		{ "1h30m", 5400000 },
		{ "1s500ms", 1500 },
		{ "0.5m", 30000 },
		{ "1.250s", 1250 },
		{ "90", 90000 },
		{ "007", 7000 },
		{ "0s", 0 },
		{ "36525d", 3155760000000LL },		/* 100 years */
		{ "3155760000", 3155760000000LL },
	};
	static const struct {
		const char	*in;
		const char	*msg;
	} bad[] = {
		{ "", "invalid duration '': empty" },
		{ "5x", "invalid duration '5x': unknown unit 'x'" },
		{ "5mx", "invalid duration '5mx': unknown unit 'mx'" },
		{ "1e3s", "invalid duration '1e3s': unknown unit 'e'" },
		{ "-5s", "invalid duration '-5s': negative" },
		{ "1m30", "invalid duration '1m30': missing unit after '30'" },
		{ "1.5", "invalid duration '1.5': missing unit after '1.5'" },
		{ "s", "invalid duration 's': expected a number at 's'" },
		{ "1 s", "invalid duration '1 s': no spaces in a duration "
		    "(did you mean '1s'?)" },
		{ "30 s", "invalid duration '30 s': no spaces in a duration "
		    "(did you mean '30s'?)" },
		{ "1m 30s", "invalid duration '1m 30s': no spaces in a "
		    "duration (did you mean '1m30s'?)" },
		{ "30 x", "invalid duration '30 x': missing unit after '30'" },
		{ "1.s",
		    "invalid duration '1.s': expected a digit after '1.'" },
		{ "1.0005s",
		    "invalid duration '1.0005s': finer than a millisecond" },
		{ "0.5ms",
		    "invalid duration '0.5ms': finer than a millisecond" },
		{ "36526d",
		    "invalid duration '36526d': longer than 100 years" },
		{ "36525d1ms",
		    "invalid duration '36525d1ms': longer than 100 years" },
		{ "3155760001",
		    "invalid duration '3155760001': longer than 100 years" },
		{ "99999999999999999999999",
		    "invalid duration '99999999999999999999999': longer than "
		    "100 years" },
		{ "99999999999999999999999ms",
		    "invalid duration '99999999999999999999999ms': longer than "
		    "100 years" },
		{ "18446744073709551617s",
		    "invalid duration '18446744073709551617s': longer than "
		    "100 years" },
	};
	struct cb_err	err;
	int64_t		ms;
	size_t		i;

	for (i = 0; i < NELEM(good); i++) {
		ms = -1;
		CHECK_EQ(parse_duration(good[i].in, &ms, &err), 0);
		CHECK_EQ(ms, good[i].ms);
	}
	for (i = 0; i < NELEM(bad); i++) {
		memset(&err, 0, sizeof err);
		CHECK_EQ(parse_duration(bad[i].in, &ms, &err), -1);
		CHECK_STR(err.msg, bad[i].msg);
	}
}

static void
test_format_duration(void)
{
	static const struct {
		int64_t		 ms;
		const char	*out;
	} t[] = {
		{ 0, "0" },
		{ 250, "250ms" },
		{ 1500, "1s500ms" },
		{ 90000, "1m30s" },
		{ 3600001, "1h1ms" },
		{ 86400000, "1d" },
		{ 90061001, "1d1h1m1s1ms" },
		{ 3155760000000LL, "36525d" },
	};
	struct cb_err	err;
	char		buf[64];
	int64_t		ms;
	size_t		i;

	for (i = 0; i < NELEM(t); i++) {
		format_duration(t[i].ms, buf, sizeof buf);
		CHECK_STR(buf, t[i].out);
		/* What is printed reads back as the same value. */
		CHECK_EQ(parse_duration(buf, &ms, &err), 0);
		CHECK_EQ(ms, t[i].ms);
	}
	format_duration(90000, buf, 3);
	CHECK_STR(buf, "1m");
}

static struct cb_codeset
codes(const char *s)
{
	struct cb_codeset	set;
	struct cb_err		err;

	memset(&set, 0xff, sizeof set);
	if (parse_codes(s, &set, &err) != 0) {
		fprintf(stderr, "codes(\"%s\"): %s\n", s, err.msg);
		memset(&set, 0xff, sizeof set);
	}
	return set;
}

static int
codeset_eq(const struct cb_codeset *a, const struct cb_codeset *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

static void
test_parse_codes(void)
{
	static const struct {
		const char	*in;
		const char	*out;	/* format_codes of the result */
	} good[] = {
		{ "0", "0" },
		{ "6,7,28,50-59", "6-7,28,50-59" },
		{ " 1 - 3 , 5 ", "1-3,5" },
		{ "5,5,4-6", "4-6" },
		{ "0-255", "0-255" },
		{ "255", "255" },
		{ "none", "none" },
		{ "0,2,4", "0,2,4" },
	};
	static const struct {
		const char	*in;
		const char	*msg;
	} bad[] = {
		{ "", "invalid code list '': empty (write 'none' for no "
		    "codes)" },
		{ "3-", "invalid code list '3-': missing end of range" },
		{ "3-,4", "invalid code list '3-,4': missing end of range" },
		{ "256", "invalid code list '256': code 256 is out of range "
		    "0-255" },
		{ "1-999", "invalid code list '1-999': code 999 is out of "
		    "range 0-255" },
		{ "9-3", "invalid code list '9-3': range 9-3 goes backwards" },
		{ "a", "invalid code list 'a': expected a code at 'a'" },
		{ "-1", "invalid code list '-1': expected a code at '-1'" },
		{ "1,", "invalid code list '1,': missing code after ','" },
		{ "1,,2", "invalid code list '1,,2': expected a code at ',2'" },
		{ "1;2", "invalid code list '1;2': unexpected ';'" },
		{ "None", "invalid code list 'None': expected a code at "
		    "'None'" },
	};
	struct cb_codeset	set;
	struct cb_err		err;
	char			buf[1024];
	size_t			i;
	int			c;

	for (i = 0; i < NELEM(good); i++) {
		CHECK_EQ(parse_codes(good[i].in, &set, &err), 0);
		format_codes(&set, buf, sizeof buf);
		CHECK_STR(buf, good[i].out);
	}
	for (i = 0; i < NELEM(bad); i++) {
		memset(&err, 0, sizeof err);
		CHECK_EQ(parse_codes(bad[i].in, &set, &err), -1);
		CHECK_STR(err.msg, bad[i].msg);
	}

	/* The longest list there is reads back as itself. */
	memset(&set, 0, sizeof set);
	for (c = 1; c <= 255; c += 2)
		codeset_add(&set, c);
	format_codes(&set, buf, sizeof buf);
	CHECK_EQ(strncmp(buf, "1,3,5,", 6), 0);
	{
		struct cb_codeset	back = codes(buf);

		CHECK(codeset_eq(&set, &back));
	}
	CHECK(codeset_has(&set, 255));
	CHECK(!codeset_has(&set, 256));
	CHECK(!codeset_has(&set, -1));
}

/* codeset_add_range sets what adding each code sets, across the words;
 * format_codes finds the runs a word at a time, at word edges too. */
static void
test_code_ranges(void)
{
	static const struct {
		int		 lo, hi;
		const char	*out;
	} r[] = {
		{ 0, 0, "0" }, { 255, 255, "255" }, { 0, 255, "0-255" },
		{ 63, 64, "63-64" }, { 64, 127, "64-127" }, { 1, 254, "1-254" },
		{ 62, 191, "62-191" }, { 127, 128, "127-128" },
	};
	struct cb_codeset	a, b;
	char			buf[64];
	size_t			i;
	int			c;

	for (i = 0; i < NELEM(r); i++) {
		memset(&a, 0, sizeof a);
		memset(&b, 0, sizeof b);
		codeset_add_range(&a, r[i].lo, r[i].hi);
		for (c = r[i].lo; c <= r[i].hi; c++)
			codeset_add(&b, c);
		CHECK(codeset_eq(&a, &b));
		format_codes(&a, buf, sizeof buf);
		CHECK_STR(buf, r[i].out);
	}
	memset(&a, 0, sizeof a);
	codeset_add_range(&a, 0, 63);
	codeset_add_range(&a, 65, 65);
	codeset_add_range(&a, 128, 200);
	codeset_add(&a, 255);
	format_codes(&a, buf, sizeof buf);
	CHECK_STR(buf, "0-63,65,128-200,255");
	/* A buffer too small keeps the runs that fit, whole. */
	format_codes(&a, buf, 10);
	CHECK_STR(buf, "0-63,65");
}

static void
test_keys(void)
{
	int	k;

	CHECK_EQ(policy_key_lookup("trip.policy"), PK_TRIP_POLICY);
	CHECK_EQ(policy_key_lookup("open_exit_code"), PK_OPEN_EXIT_CODE);
	CHECK_EQ(policy_key_lookup("policy"), -1);
	CHECK_EQ(policy_key_lookup("trip"), -1);
	CHECK_EQ(policy_key_lookup(""), -1);
	for (k = 0; k < PK_COUNT; k++)
		CHECK_EQ(policy_key_lookup(policy_key_name(k)), k);
	CHECK(policy_key_name(PK_COUNT) == NULL);
	CHECK_STR(policy_key_name(PK_TRIP_MIN_CALLS), "trip.min_calls");
	/* Every key says what it does, in one line. */
	for (k = 0; k < PK_COUNT; k++) {
		CHECK(policy_key_help(k) != NULL &&
		    policy_key_help(k)[0] != '\0' &&
		    strchr(policy_key_help(k), '\n') == NULL);
	}
	CHECK(policy_key_help(PK_COUNT) == NULL);
	CHECK(policy_key_help((enum policy_key)-1) == NULL);
	/* The code classes' keys follow each other in class order. */
	CHECK_EQ(policy_class_key(POLICY_CLASS_FAILURE), PK_FAILURE_CODES);
	CHECK_EQ(policy_class_key(POLICY_CLASS_IGNORE), PK_IGNORE_CODES);
}

static void
test_defaults(void)
{
	static const struct {
		enum policy_key	 key;
		const char	*out;
	} shown[] = {
		{ PK_TRIP_POLICY, "\"consecutive\"" },
		{ PK_TRIP_FAILURES, "5" },
		{ PK_TRIP_PERIOD, "\"1m\"" },
		{ PK_TRIP_WINDOW, "20" },
		{ PK_TRIP_MIN_CALLS, "10" },
		{ PK_TRIP_FAILURE_RATE, "0.5" },
		{ PK_OPEN_TIMEOUT, "\"1m\"" },
		{ PK_MAX_OPEN_TIMEOUT, "\"10m\"" },
		{ PK_BACKOFF, "2.0" },
		{ PK_JITTER, "0.0" },
		{ PK_HALF_OPEN_MAX_CALLS, "1" },
		{ PK_PROBE_LEASE, "\"1h\"" },
		{ PK_PROBE, "\"none\"" },
		{ PK_PROBE_TIMEOUT, "\"10s\"" },
		{ PK_TIMEOUT, "\"none\"" },
		{ PK_KILL_AFTER, "\"10s\"" },
		{ PK_MAX_CONCURRENT, "0" },
		{ PK_ON_BUSY, "\"fail\"" },
		{ PK_MAX_RATE, "\"none\"" },
		{ PK_RATE_BURST, "1" },
		{ PK_FAILURE_CODES, "\"1-255\"" },
		{ PK_SUCCESS_CODES, "\"0\"" },
		{ PK_IGNORE_CODES, "\"none\"" },
		{ PK_PRESET, "\"none\"" },
		{ PK_TIMEOUT_IS, "\"failure\"" },
		{ PK_SIGNAL_IS, "\"failure\"" },
		{ PK_SLOW_CALL, "\"none\"" },
		{ PK_ON_OPEN, "\"fail\"" },
		{ PK_OPEN_EXIT_CODE, "75" },
		{ PK_RETRIES, "0" },
		{ PK_RETRY_DELAY, "\"1s\"" },
		{ PK_EXPECT_EVERY, "\"none\"" },
		{ PK_OUTPUT, "\"pass\"" },
	};
	struct policy_builder	b;
	struct cb_policy	p;
	struct cb_codeset	def;
	struct cb_err		err;
	char			buf[512];
	size_t			i;
	int			k;

	CHECK_EQ(NELEM(shown), PK_COUNT);
	policy_init(&b);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.trip_policy, TRIP_CONSECUTIVE);
	CHECK_EQ(p.trip_failures, 5);
	CHECK_EQ(p.trip_period_ms, 60000);
	CHECK_EQ(p.trip_window, 20);
	CHECK_EQ(p.trip_min_calls, 10);
	CHECK(p.trip_failure_rate == 0.5);
	CHECK_EQ(p.open_timeout_ms, 60000);
	CHECK_EQ(p.max_open_timeout_ms, 600000);
	CHECK(p.backoff == 2.0);
	CHECK(p.jitter == 0.0);
	CHECK_EQ(p.half_open_max_calls, 1);
	CHECK_EQ(p.probe_lease_ms, 3600000);
	CHECK_EQ(p.timeout_ms, 0);
	CHECK_EQ(p.kill_after_ms, 10000);
	CHECK_EQ(p.slow_call_ms, 0);
	CHECK_EQ(p.timeout_is, VERDICT_FAILURE);
	CHECK_EQ(p.signal_is, VERDICT_FAILURE);
	CHECK_EQ(p.on_open, ON_OPEN_FAIL);
	CHECK_EQ(p.open_exit_code, 75);
	CHECK(!codeset_has(&p.failure_codes, 0));
	CHECK(codeset_has(&p.failure_codes, 1));
	CHECK(codeset_has(&p.failure_codes, 255));
	CHECK(codeset_has(&p.success_codes, 0));
	CHECK(!codeset_has(&p.success_codes, 1));
	for (k = 0; k < 256; k++)
		CHECK(!codeset_has(&p.ignore_codes, k));
	CHECK_EQ(b.preset, -1);
	CHECK_EQ(p.max_concurrent, 0);
	CHECK_EQ(p.on_busy, ON_OPEN_FAIL);

	for (i = 0; i < NELEM(shown); i++) {
		policy_format(&b, shown[i].key, buf, sizeof buf);
		CHECK_STR(buf, shown[i].out);
		CHECK_STR(b.origin[shown[i].key], "built-in");
	}
	def = policy_default_class(POLICY_CLASS_FAILURE);
	CHECK(codeset_eq(&def, &p.failure_codes));
	def = policy_default_class(POLICY_CLASS_SUCCESS);
	CHECK(codeset_eq(&def, &p.success_codes));
	def = policy_default_class(POLICY_CLASSES);
	for (k = 0; k < 256; k++)
		CHECK(!codeset_has(&def, k));
}

/* One policy_set through the command line (every value a string). */
static int
set_cli(struct policy_builder *b, enum policy_key k, const char *s,
    struct cb_err *err)
{
	struct policy_value	v = { PV_STRING, 0, 0, s, 1, NULL };

	return policy_set(b, k, &v, LAYER_CLI, "command line", err);
}

/* hint.c, which suggests the policy key meant by a misspelt one. */
static void
test_hint(void)
{
	static const char *const known[] = {
		"open_timeout", "max_open_timeout", "timeout", "trip", NULL
	};
	struct hint	h;
	size_t		i;
	char		longname[80];

	CHECK_EQ(hint_distance("open_timout", "open_timeout"), 1);
	CHECK_EQ(hint_distance("open-timeout", "open_timeout"), 0);
	CHECK_EQ(hint_distance("tirp", "trip"), 1);	/* a swap */
	CHECK_EQ(hint_distance("", "abc"), 3);
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	CHECK(hint_distance(longname, "a") == SIZE_MAX);

	hint_init(&h);
	for (i = 0; known[i] != NULL; i++)
		hint_offer(&h, "open_timout", known[i]);
	CHECK_STR(hint_best(&h, "open_timout"), "open_timeout");
	/* Too far, and too short for two edits to mean anything. */
	hint_init(&h);
	for (i = 0; known[i] != NULL; i++)
		hint_offer(&h, "zzzzzzzz", known[i]);
	CHECK(hint_best(&h, "zzzzzzzz") == NULL);
	hint_init(&h);
	hint_offer(&h, "tr", "trip");
	CHECK(hint_best(&h, "tr") == NULL);
	hint_init(&h);
	CHECK(hint_best(&h, "x") == NULL);
}

/* policy_check: policy_set's verdict and message, nothing set. */
static void
test_check(void)
{
	struct policy_value	good = { PV_INT, 7, 0, NULL, 0, NULL };
	struct policy_value	bad = { PV_STRING, 0, 0, "x", 0, NULL };
	struct cb_err		err, err2;
	struct policy_builder	b;

	CHECK_EQ(policy_check(PK_TRIP_FAILURES, &good, &err), 0);
	CHECK_EQ(policy_check(PK_TRIP_FAILURES, &bad, &err), -1);
	policy_init(&b);
	CHECK_EQ(policy_set(&b, PK_TRIP_FAILURES, &bad, LAYER_DEFAULTS, "f:1",
	    &err2), -1);
	CHECK_STR(err.msg, err2.msg);
	CHECK_EQ(policy_check(PK_COUNT, &good, &err), -1);
	CHECK(strncmp(err.msg, "unknown policy key ", 19) == 0);
}

/* One policy_set from a config file layer. */
static int
set_file(struct policy_builder *b, enum policy_key k, enum policy_vtype t,
    long long i, double f, const char *s, enum policy_layer layer,
    const char *origin, struct cb_err *err)
{
	struct policy_value	v = { t, i, f, s, 0, NULL };

	return policy_set(b, k, &v, layer, origin, err);
}

static void
test_set_errors(void)
{
	static const struct {
		enum policy_key		 key;
		enum policy_vtype	 type;
		long long		 i;
		double			 f;
		const char		*s;
		int			 cli;
		const char		*msg;	/* NULL: accepted */
	} t[] = {
		{ PK_TRIP_FAILURES, PV_INT, 0, 0, NULL, 0,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not 0" },
		{ PK_TRIP_FAILURES, PV_INT, 1001, 0, NULL, 0,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not 1001" },
		{ PK_TRIP_FAILURES, PV_INT, 1000, 0, NULL, 0, NULL },
		{ PK_TRIP_FAILURES, PV_STRING, 0, 0, "7", 1, NULL },
		{ PK_TRIP_FAILURES, PV_STRING, 0, 0, "0", 1,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not 0" },
		{ PK_TRIP_FAILURES, PV_STRING, 0, 0, "7x", 1,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not '7x'" },
		{ PK_TRIP_FAILURES, PV_STRING, 0, 0, " 7", 1,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not ' 7'" },
		{ PK_TRIP_FAILURES, PV_STRING, 0, 0, "+7", 1,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not '+7'" },
		{ PK_TRIP_FAILURES, PV_STRING, 0, 0, "99999999999999999999", 1,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not '99999999999999999999'" },
		{ PK_TRIP_FAILURES, PV_STRING, 0, 0, "-9223372036854775808", 1,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not -9223372036854775808" },
		{ PK_TRIP_FAILURES, PV_STRING, 0, 0, "5", 0,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not the string '5'" },
		{ PK_TRIP_FAILURES, PV_FLOAT, 0, 5.5, NULL, 0,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not 5.5" },
		{ PK_TRIP_FAILURES, PV_BOOL, 1, 0, NULL, 0,
		    "trip.failures: must be an integer from 1 to 1000, "
		    "not true" },
		{ PK_TRIP_WINDOW, PV_INT, 1001, 0, NULL, 0,
		    "trip.window: must be an integer from 1 to 1000, "
		    "not 1001" },
		{ PK_HALF_OPEN_MAX_CALLS, PV_INT, 65, 0, NULL, 0,
		    "half_open_max_calls: must be an integer from 1 to 64, "
		    "not 65" },
		{ PK_OPEN_EXIT_CODE, PV_INT, 256, 0, NULL, 0,
		    "open_exit_code: must be an integer from 0 to 255, "
		    "not 256" },
		{ PK_OPEN_EXIT_CODE, PV_INT, 0, 0, NULL, 0, NULL },
		{ PK_RETRIES, PV_INT, 101, 0, NULL, 0,
		    "retries: must be an integer from 0 to 100, not 101" },
		{ PK_RETRIES, PV_STRING, 0, 0, "3", 1, NULL },
		{ PK_RETRY_DELAY, PV_STRING, 0, 0, "60s", 1, NULL },
		{ PK_RETRY_DELAY, PV_STRING, 0, 0, "0", 1, NULL },
		{ PK_RETRY_DELAY, PV_STRING, 0, 0, "60001ms", 1,
		    "retry_delay: must be at most 1m, not '60001ms'" },
		{ PK_RETRY_DELAY, PV_INT, 61, 0, NULL, 0,
		    "retry_delay: must be at most 1m, not 61" },

		{ PK_TRIP_FAILURE_RATE, PV_FLOAT, 0, 0, NULL, 0,
		    "trip.failure_rate: must be a number greater than 0 and "
		    "at most 1, not 0.0" },
		{ PK_TRIP_FAILURE_RATE, PV_INT, 0, 0, NULL, 0,
		    "trip.failure_rate: must be a number greater than 0 and "
		    "at most 1, not 0" },
		{ PK_TRIP_FAILURE_RATE, PV_FLOAT, 0, 1.5, NULL, 0,
		    "trip.failure_rate: must be a number greater than 0 and "
		    "at most 1, not 1.5" },
		{ PK_TRIP_FAILURE_RATE, PV_INT, 1, 0, NULL, 0, NULL },
		{ PK_TRIP_FAILURE_RATE, PV_STRING, 0, 0, "0.3", 1, NULL },
		{ PK_TRIP_FAILURE_RATE, PV_STRING, 0, 0, "2", 1,
		    "trip.failure_rate: must be a number greater than 0 and "
		    "at most 1, not 2" },
		{ PK_TRIP_FAILURE_RATE, PV_STRING, 0, 0, "nan", 1,
		    "trip.failure_rate: must be a number greater than 0 and "
		    "at most 1, not 'nan'" },
		{ PK_TRIP_FAILURE_RATE, PV_STRING, 0, 0, "0x1p-1", 1,
		    "trip.failure_rate: must be a number greater than 0 and "
		    "at most 1, not '0x1p-1'" },
		{ PK_TRIP_FAILURE_RATE, PV_STRING, 0, 0, "0.5", 0,
		    "trip.failure_rate: must be a number greater than 0 and "
		    "at most 1, not the string '0.5'" },
		{ PK_BACKOFF, PV_FLOAT, 0, 0.5, NULL, 0,
		    "backoff: must be a number from 1 to 100, not 0.5" },
		{ PK_BACKOFF, PV_FLOAT, 0, HUGE_VAL, NULL, 0,
		    "backoff: must be a number from 1 to 100, not inf" },
		{ PK_BACKOFF, PV_INT, 1, 0, NULL, 0, NULL },
		{ PK_JITTER, PV_STRING, 0, 0, "1.01", 1,
		    "jitter: must be a number from 0 to 1, not 1.01" },
		{ PK_JITTER, PV_STRING, 0, 0, ".25", 1, NULL },

		{ PK_OPEN_TIMEOUT, PV_STRING, 0, 0, "5x", 1,
		    "open_timeout: invalid duration '5x': unknown unit 'x'" },
		{ PK_OPEN_TIMEOUT, PV_STRING, 0, 0, "5x", 0,
		    "open_timeout: invalid duration '5x': unknown unit 'x'" },
		{ PK_OPEN_TIMEOUT, PV_INT, 0, 0, NULL, 0,
		    "open_timeout: must be longer than 0, not 0" },
		{ PK_OPEN_TIMEOUT, PV_STRING, 0, 0, "0ms", 0,
		    "open_timeout: must be longer than 0, not '0ms'" },
		{ PK_OPEN_TIMEOUT, PV_INT, -1, 0, NULL, 0,
		    "open_timeout: invalid duration -1: negative" },
		{ PK_OPEN_TIMEOUT, PV_INT, 3155760001LL, 0, NULL, 0,
		    "open_timeout: invalid duration 3155760001: longer than "
		    "100 years" },
		{ PK_OPEN_TIMEOUT, PV_FLOAT, 0, 1.5, NULL, 0,
		    "open_timeout: must be a duration such as \"30s\" or an "
		    "integer of seconds, not 1.5" },
		{ PK_OPEN_TIMEOUT, PV_BOOL, 0, 0, NULL, 0,
		    "open_timeout: must be a duration such as \"30s\" or an "
		    "integer of seconds, not false" },
		{ PK_TRIP_PERIOD, PV_STRING, 0, 0, "none", 0,
		    "trip.period: invalid duration 'none': expected a number "
		    "at 'none'" },
		{ PK_TIMEOUT, PV_STRING, 0, 0, "none", 1, NULL },
		{ PK_TIMEOUT, PV_INT, 0, 0, NULL, 0, NULL },
		{ PK_KILL_AFTER, PV_STRING, 0, 0, "0", 1, NULL },
		{ PK_SLOW_CALL, PV_STRING, 0, 0, "none", 0, NULL },

		{ PK_FAILURE_CODES, PV_STRING, 0, 0, "3-", 0,
		    "failure_codes: invalid code list '3-': missing end of "
		    "range" },
		{ PK_FAILURE_CODES, PV_INT, 7, 0, NULL, 0, NULL },
		{ PK_IGNORE_CODES, PV_INT, 256, 0, NULL, 0,
		    "ignore_codes: invalid code 256: exit codes go from 0 to "
		    "255" },
		{ PK_SUCCESS_CODES, PV_FLOAT, 0, 1, NULL, 0,
		    "success_codes: must be a list of exit codes such as "
		    "\"6,7,50-59\", not 1.0" },

		{ PK_TRIP_POLICY, PV_STRING, 0, 0, "foo", 1,
		    "trip.policy: must be one of consecutive, rate, time, "
		    "not 'foo'" },
		{ PK_TRIP_POLICY, PV_STRING, 0, 0, "Rate", 0,
		    "trip.policy: must be one of consecutive, rate, time, "
		    "not 'Rate'" },
		{ PK_TRIP_POLICY, PV_INT, 1, 0, NULL, 0,
		    "trip.policy: must be one of consecutive, rate, time, "
		    "not 1" },
		{ PK_TRIP_POLICY, PV_STRING, 0, 0, "time", 0, NULL },
		{ PK_TIMEOUT_IS, PV_STRING, 0, 0, "fail", 1,
		    "timeout_is: must be one of failure, success, ignore, "
		    "not 'fail'" },
		{ PK_ON_OPEN, PV_STRING, 0, 0, "skip", 1, NULL },
		{ PK_ON_OPEN, PV_BOOL, 1, 0, NULL, 0,
		    "on_open: must be one of fail, skip, not true" },
		{ PK_PRESET, PV_STRING, 0, 0, "nope", 1,
		    "preset: must be one of curl, wget, ssh, rsync, psql, "
		    "pg_isready, none, not 'nope'" },
		{ PK_PRESET, PV_STRING, 0, 0, "none", 0, NULL },
	};
	struct policy_builder	b;
	struct policy_value	v;
	struct cb_err		err;
	size_t			i;
	int			rc;

	for (i = 0; i < NELEM(t); i++) {
		policy_init(&b);
		memset(&err, 0, sizeof err);
		v.type = t[i].type;
		v.i = t[i].i;
		v.f = t[i].f;
		v.s = t[i].s;
		v.from_cli = t[i].cli;
		rc = policy_set(&b, t[i].key, &v, LAYER_CLI, "command line",
		    &err);
		if (t[i].msg == NULL) {
			CHECK_EQ(rc, 0);
			if (rc != 0)
				fprintf(stderr, "  case %zu: %s\n", i, err.msg);
		} else {
			CHECK_EQ(rc, -1);
			CHECK_STR(err.msg, t[i].msg);
			/* A refused value leaves the builder alone. */
			CHECK_STR(b.origin[t[i].key], "built-in");
		}
	}
}

static void
test_set_values(void)
{
	struct policy_builder	b;
	struct cb_policy	p;
	struct cb_err		err;
	char			buf[64];

	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_TRIP_POLICY, "rate", &err), 0);
	CHECK_EQ(set_cli(&b, PK_TRIP_FAILURES, "7", &err), 0);
	CHECK_EQ(set_cli(&b, PK_TRIP_FAILURE_RATE, "0.3", &err), 0);
	CHECK_EQ(set_cli(&b, PK_TIMEOUT, "1m30s", &err), 0);
	CHECK_EQ(set_cli(&b, PK_SLOW_CALL, "250ms", &err), 0);
	CHECK_EQ(set_cli(&b, PK_KILL_AFTER, "0", &err), 0);
	CHECK_EQ(set_cli(&b, PK_TIMEOUT_IS, "ignore", &err), 0);
	CHECK_EQ(set_cli(&b, PK_SIGNAL_IS, "success", &err), 0);
	CHECK_EQ(set_cli(&b, PK_ON_OPEN, "skip", &err), 0);
	CHECK_EQ(set_cli(&b, PK_OPEN_EXIT_CODE, "0", &err), 0);
	CHECK_EQ(set_file(&b, PK_OPEN_TIMEOUT, PV_INT, 30, 0, NULL,
	    LAYER_DEFAULTS, "f:1", &err), 0);
	CHECK_EQ(set_file(&b, PK_BACKOFF, PV_FLOAT, 0, 1.5, NULL,
	    LAYER_ENTRY, "f:2", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.trip_policy, TRIP_RATE);
	CHECK_EQ(p.trip_failures, 7);
	CHECK(p.trip_failure_rate == 0.3);
	CHECK_EQ(p.timeout_ms, 90000);
	CHECK_EQ(p.slow_call_ms, 250);
	CHECK_EQ(p.kill_after_ms, 0);
	CHECK_EQ(p.timeout_is, VERDICT_IGNORE);
	CHECK_EQ(p.signal_is, VERDICT_SUCCESS);
	CHECK_EQ(p.on_open, ON_OPEN_SKIP);
	CHECK_EQ(p.open_exit_code, 0);
	CHECK_EQ(p.open_timeout_ms, 30000);
	CHECK(p.backoff == 1.5);

	policy_format(&b, PK_TRIP_POLICY, buf, sizeof buf);
	CHECK_STR(buf, "\"rate\"");
	policy_format(&b, PK_TRIP_FAILURE_RATE, buf, sizeof buf);
	CHECK_STR(buf, "0.3");
	policy_format(&b, PK_TIMEOUT, buf, sizeof buf);
	CHECK_STR(buf, "\"1m30s\"");
	policy_format(&b, PK_KILL_AFTER, buf, sizeof buf);
	CHECK_STR(buf, "\"0\"");
	policy_format(&b, PK_OPEN_TIMEOUT, buf, sizeof buf);
	CHECK_STR(buf, "\"30s\"");
	policy_format(&b, PK_BACKOFF, buf, sizeof buf);
	CHECK_STR(buf, "1.5");
	CHECK_STR(b.origin[PK_TRIP_FAILURES], "command line");
	CHECK_STR(b.origin[PK_OPEN_TIMEOUT], "f:1");
	CHECK_STR(b.origin[PK_BACKOFF], "f:2");
	CHECK_STR(b.origin[PK_JITTER], "built-in");
	CHECK_EQ(b.layer[PK_BACKOFF], LAYER_ENTRY);
}

/* max_concurrent and on_busy (SPEC 2b): bounded by the record's run slots. */
static void
test_bulkhead_keys(void)
{
	struct policy_builder	b;
	struct cb_policy	p;
	struct cb_err		err;
	char			buf[64];

	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_MAX_CONCURRENT, "3", &err), 0);
	CHECK_EQ(set_cli(&b, PK_ON_BUSY, "skip", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.max_concurrent, 3);
	CHECK_EQ(p.on_busy, ON_OPEN_SKIP);
	CHECK_EQ(p.on_open, ON_OPEN_FAIL);
	policy_format(&b, PK_ON_BUSY, buf, sizeof buf);
	CHECK_STR(buf, "\"skip\"");
	CHECK_STR(b.origin[PK_MAX_CONCURRENT], "command line");
	CHECK_EQ(policy_key_lookup("max_concurrent"), PK_MAX_CONCURRENT);
	CHECK_EQ(policy_key_lookup("on_busy"), PK_ON_BUSY);

	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_MAX_CONCURRENT, "64", &err), 0);
	CHECK_EQ(set_cli(&b, PK_MAX_CONCURRENT, "0", &err), 0);
	CHECK_EQ(set_cli(&b, PK_MAX_CONCURRENT, "65", &err), -1);
	CHECK_STR(err.msg, "max_concurrent: must be an integer from 0 to 64, "
	    "not 65");
	CHECK_EQ(set_cli(&b, PK_MAX_CONCURRENT, "-1", &err), -1);
	CHECK_EQ(set_file(&b, PK_MAX_CONCURRENT, PV_STRING, 0, 0, "2",
	    LAYER_DEFAULTS, "f:1", &err), -1);
	CHECK_EQ(set_cli(&b, PK_ON_BUSY, "wait", &err), -1);
	CHECK_STR(err.msg, "on_busy: must be one of fail, skip, not 'wait'");
	CHECK(RECORD_MAX_RUNNING == POLICY_MAX_CONCURRENT);
}

/* max_rate and rate_burst (SPEC 2d, 3): spellings, bounds, format. */
static void
test_rate_keys(void)
{
	static const struct {
		const char	*s;
		const char	*msg;	/* NULL: accepted */
	} t[] = {
		{ "10/1m", NULL },
		{ "1/366d", NULL },
		{ "1000000/1s", NULL },
		{ "5/1m30s", NULL },
		{ "none", NULL },
		{ "0/1s", "max_rate: N must be an integer from 1 to 1000000, "
		  "not '0'" },
		{ "1000001/1s", "max_rate: N must be an integer from 1 to "
		  "1000000, not '1000001'" },
		{ "10/0", "max_rate: the period must be longer than 0 and at "
		  "most 366d, not '0'" },
		{ "1/367d", "max_rate: the period must be longer than 0 and at "
		  "most 366d, not '367d'" },
		{ "1000000/999ms", "max_rate: more than one call per "
		  "microsecond, not '1000000/999ms'" },
		{ "10", "max_rate: must be N/DURATION such as \"10/1m\", or "
		  "\"none\", not '10'" },
		{ "/1m", "max_rate: must be N/DURATION such as \"10/1m\", or "
		  "\"none\", not '/1m'" },
		{ "-1/1m", "max_rate: must be N/DURATION such as \"10/1m\", or "
		  "\"none\", not '-1/1m'" },
		{ "10/fast", "max_rate: invalid duration 'fast': expected a "
		  "number at 'fast'" },
	};
	struct policy_builder	b;
	struct cb_policy	p;
	struct cb_err		err;
	struct cb_rate		r;
	char			buf[64];
	size_t			i;
	int			rc;

	for (i = 0; i < NELEM(t); i++) {
		policy_init(&b);
		rc = set_cli(&b, PK_MAX_RATE, t[i].s, &err);
		CHECK_EQ(rc, t[i].msg == NULL ? 0 : -1);
		if (t[i].msg != NULL && rc == -1)
			CHECK_STR(err.msg, t[i].msg);
	}
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_MAX_RATE, "10/1m", &err), 0);
	CHECK_EQ(set_cli(&b, PK_RATE_BURST, "4", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.max_rate.n, 10);
	CHECK_EQ(p.max_rate.per_ms, MIN);
	CHECK_EQ(p.rate_burst, 4);
	policy_format(&b, PK_MAX_RATE, buf, sizeof buf);
	CHECK_STR(buf, "\"10/1m\"");
	/* The config file spells it as a string; a number is no rate. */
	CHECK_EQ(set_file(&b, PK_MAX_RATE, PV_STRING, 0, 0, "5/1s",
	    LAYER_DEFAULTS, "f:1", &err), 0);
	CHECK_EQ(set_file(&b, PK_MAX_RATE, PV_INT, 5, 0, NULL,
	    LAYER_DEFAULTS, "f:1", &err), -1);
	CHECK_STR(err.msg, "max_rate: must be N/DURATION such as \"10/1m\", "
	    "or \"none\", not 5");
	CHECK_EQ(set_cli(&b, PK_RATE_BURST, "0", &err), -1);
	CHECK_STR(err.msg, "rate_burst: must be an integer from 1 to 10000, "
	    "not 0");
	CHECK_EQ(set_cli(&b, PK_RATE_BURST, "10001", &err), -1);
	CHECK_EQ(policy_key_lookup("max_rate"), PK_MAX_RATE);
	CHECK_EQ(policy_key_lookup("rate_burst"), PK_RATE_BURST);

	r.n = 0;
	r.per_ms = 0;
	CHECK_EQ(policy_rate_valid(&r), 1);
	r.per_ms = 1;
	CHECK_EQ(policy_rate_valid(&r), 0);
	r.n = 1000;
	CHECK_EQ(policy_rate_valid(&r), 1);
	r.n = 1001;
	CHECK_EQ(policy_rate_valid(&r), 0);
	r.n = 1;
	r.per_ms = POLICY_MAX_RATE_PER + 1;
	CHECK_EQ(policy_rate_valid(&r), 0);
	CHECK_EQ(policy_int_in_range(PK_RATE_BURST, 10000), 1);
	CHECK_EQ(policy_int_in_range(PK_RATE_BURST, 0), 0);
}

/* output (SPEC 6.5): pass by default, on-failure, on-change. */
static void
test_output_key(void)
{
	struct policy_builder	b;
	struct cb_policy	p;
	struct cb_err		err;
	char			buf[64];

	policy_init(&b);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.output, OUTPUT_PASS);
	CHECK_EQ(set_cli(&b, PK_OUTPUT, "on-change", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.output, OUTPUT_ON_CHANGE);
	policy_format(&b, PK_OUTPUT, buf, sizeof buf);
	CHECK_STR(buf, "\"on-change\"");
	CHECK_EQ(set_cli(&b, PK_OUTPUT, "on-failure", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.output, OUTPUT_ON_FAILURE);
	CHECK_EQ(policy_key_lookup("output"), PK_OUTPUT);
	CHECK_EQ(set_cli(&b, PK_OUTPUT, "on_change", &err), -1);
	CHECK_STR(err.msg, "output: must be one of pass, on-failure, "
	    "on-change, not 'on_change'");
}

static void
test_layers(void)
{
	struct policy_builder	b;
	struct cb_policy	p;
	struct cb_err		err;

	/* Later layers override earlier ones... */
	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_TRIP_FAILURES, PV_INT, 3, 0, NULL,
	    LAYER_DEFAULTS, "f:1", &err), 0);
	CHECK_EQ(set_file(&b, PK_TRIP_FAILURES, PV_INT, 4, 0, NULL,
	    LAYER_ENTRY, "f:7", &err), 0);
	CHECK_EQ(b.p.trip_failures, 4);
	CHECK_STR(b.origin[PK_TRIP_FAILURES], "f:7");
	CHECK_EQ(set_cli(&b, PK_TRIP_FAILURES, "9", &err), 0);
	CHECK_EQ(b.p.trip_failures, 9);
	CHECK_STR(b.origin[PK_TRIP_FAILURES], "command line");

	/* ...and a lower one never overrides a higher one. */
	CHECK_EQ(set_file(&b, PK_TRIP_FAILURES, PV_INT, 2, 0, NULL,
	    LAYER_DEFAULTS, "f:1", &err), 0);
	CHECK_EQ(b.p.trip_failures, 9);
	CHECK_EQ(b.layer[PK_TRIP_FAILURES], LAYER_CLI);
	/* It is still validated. */
	CHECK_EQ(set_file(&b, PK_TRIP_FAILURES, PV_INT, 0, 0, NULL,
	    LAYER_DEFAULTS, "f:1", &err), -1);

	/* Within one layer the last value wins. */
	CHECK_EQ(set_cli(&b, PK_TIMEOUT, "5s", &err), 0);
	CHECK_EQ(set_cli(&b, PK_TIMEOUT, "6s", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.timeout_ms, 6000);

	/* A later layer may clear a preset. */
	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_PRESET, PV_STRING, 0, 0, "curl",
	    LAYER_DEFAULTS, "f:1", &err), 0);
	CHECK_EQ(set_file(&b, PK_PRESET, PV_STRING, 0, 0, "none",
	    LAYER_ENTRY, "f:5", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(b.preset, -1);
	CHECK(codeset_has(&p.failure_codes, 22));
}

/* Every code in exactly one class or in none. */
static int
disjoint(const struct cb_policy *p)
{
	int	c, n;

	for (c = 0; c <= 255; c++) {
		n = codeset_has(&p->failure_codes, c) +
		    codeset_has(&p->success_codes, c) +
		    codeset_has(&p->ignore_codes, c);
		if (n > 1)
			return 0;
	}
	return 1;
}

static void
test_classes(void)
{
	struct policy_builder	 b;
	struct cb_policy	 p;
	struct cb_err		 err;
	struct cb_codeset	 want;
	char			 buf[1024];
	const char		*name;
	int			 n;

	/* The curl preset: 7 fails, 22 is the job's own, 0 succeeds. */
	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_PRESET, PV_STRING, 0, 0, "curl",
	    LAYER_ENTRY, "f:3", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK(codeset_has(&p.failure_codes, 7));
	CHECK(codeset_has(&p.failure_codes, 28));
	CHECK(!codeset_has(&p.failure_codes, 22));
	CHECK(!codeset_has(&p.success_codes, 22));
	CHECK(!codeset_has(&p.ignore_codes, 22));
	CHECK(codeset_has(&p.success_codes, 0));
	CHECK(disjoint(&p));
	policy_format(&b, PK_FAILURE_CODES, buf, sizeof buf);
	CHECK_STR(buf, "\"5-7,28,35,52,55-56,96-97\"");
	policy_format(&b, PK_PRESET, buf, sizeof buf);
	CHECK_STR(buf, "\"curl\"");
	CHECK_STR(b.origin[PK_FAILURE_CODES], "f:3");
	CHECK_STR(b.origin[PK_IGNORE_CODES], "f:3");

	/* ignore_codes alone takes its code out of the default failures. */
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_IGNORE_CODES, "3", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK(codeset_has(&p.ignore_codes, 3));
	CHECK(!codeset_has(&p.failure_codes, 3));
	CHECK(codeset_has(&p.failure_codes, 4));
	CHECK(disjoint(&p));
	policy_format(&b, PK_FAILURE_CODES, buf, sizeof buf);
	CHECK_STR(buf, "\"1-2,4-255\"");
	CHECK_STR(b.origin[PK_FAILURE_CODES], "built-in");

	/* Two explicit classes of one layer may not overlap. */
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_FAILURE_CODES, "1-10", &err), 0);
	CHECK_EQ(set_cli(&b, PK_IGNORE_CODES, "3,4", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), -1);
	CHECK_STR(err.msg, "failure_codes and ignore_codes both name code 3");

	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_SUCCESS_CODES, PV_STRING, 0, 0, "0,9",
	    LAYER_ENTRY, "/etc/cbexec.conf:14", &err), 0);
	CHECK_EQ(set_file(&b, PK_FAILURE_CODES, PV_INT, 9, 0, NULL,
	    LAYER_ENTRY, "/etc/cbexec.conf:15", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), -1);
	CHECK_STR(err.msg, "failure_codes (/etc/cbexec.conf:15) and "
	    "success_codes (/etc/cbexec.conf:14) both name code 9");

	/* Across layers the higher one keeps the code. */
	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_FAILURE_CODES, PV_STRING, 0, 0, "1-10",
	    LAYER_DEFAULTS, "f:2", &err), 0);
	CHECK_EQ(set_cli(&b, PK_IGNORE_CODES, "3", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	want = codes("1-2,4-10");
	CHECK(codeset_eq(&p.failure_codes, &want));
	want = codes("3");
	CHECK(codeset_eq(&p.ignore_codes, &want));
	want = codes("0");
	CHECK(codeset_eq(&p.success_codes, &want));
	CHECK(disjoint(&p));

	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_IGNORE_CODES, PV_STRING, 0, 0, "3",
	    LAYER_DEFAULTS, "f:2", &err), 0);
	CHECK_EQ(set_file(&b, PK_FAILURE_CODES, PV_STRING, 0, 0, "1-10",
	    LAYER_ENTRY, "f:9", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	want = codes("1-10");
	CHECK(codeset_eq(&p.failure_codes, &want));
	want = codes("none");
	CHECK(codeset_eq(&p.ignore_codes, &want));
	CHECK(disjoint(&p));

	/* An explicit key replaces the preset's class in the same layer. */
	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_PRESET, PV_STRING, 0, 0, "curl",
	    LAYER_ENTRY, "f:3", &err), 0);
	CHECK_EQ(set_file(&b, PK_FAILURE_CODES, PV_STRING, 0, 0, "7",
	    LAYER_ENTRY, "f:4", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	want = codes("7");
	CHECK(codeset_eq(&p.failure_codes, &want));
	want = codes("0");
	CHECK(codeset_eq(&p.success_codes, &want));
	CHECK_STR(b.origin[PK_FAILURE_CODES], "f:4");
	CHECK_STR(b.origin[PK_SUCCESS_CODES], "f:3");

	/* A preset in a higher layer replaces a lower explicit class. */
	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_FAILURE_CODES, PV_STRING, 0, 0, "1-255",
	    LAYER_DEFAULTS, "f:2", &err), 0);
	CHECK_EQ(set_cli(&b, PK_PRESET, "psql", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	want = codes("2");
	CHECK(codeset_eq(&p.failure_codes, &want));
	CHECK_STR(b.origin[PK_FAILURE_CODES], "command line");

	/* An explicit success code leaves the preset's failures. */
	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_PRESET, PV_STRING, 0, 0, "curl",
	    LAYER_DEFAULTS, "f:2", &err), 0);
	CHECK_EQ(set_cli(&b, PK_SUCCESS_CODES, "0,7", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK(!codeset_has(&p.failure_codes, 7));
	CHECK(codeset_has(&p.failure_codes, 6));
	CHECK(codeset_has(&p.success_codes, 7));
	CHECK(disjoint(&p));

	/* "none" empties a class: no exit code fails. */
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_FAILURE_CODES, "none", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	want = codes("none");
	CHECK(codeset_eq(&p.failure_codes, &want));
	policy_format(&b, PK_FAILURE_CODES, buf, sizeof buf);
	CHECK_STR(buf, "\"none\"");

	/* Every preset is accepted and has disjoint classes. */
	for (n = 0; (name = preset_name(n)) != NULL; n++) {
		CHECK_EQ(preset_lookup(name), n);
		policy_init(&b);
		CHECK_EQ(set_cli(&b, PK_PRESET, name, &err), 0);
		CHECK_EQ(policy_finish(&b, &p, &err), 0);
		CHECK(disjoint(&p));
		CHECK(codeset_has(&p.success_codes, 0));
		policy_format(&b, PK_PRESET, buf, sizeof buf);
		CHECK(strlen(buf) == strlen(name) + 2 &&
		    strncmp(buf + 1, name, strlen(name)) == 0);
	}
	CHECK_EQ(n, 6);
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_PRESET, "ssh", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK(codeset_has(&p.failure_codes, 255));
	CHECK(!codeset_has(&p.failure_codes, 1));
}

/* probe: a list from the file, "none" from either side, no -o list. */
static void
test_argv_key(void)
{
	static char		*argv[] = { "pg_isready", "-h", "db\"1", NULL };
	static char		*empty[] = { NULL };
	static char		*blank[] = { "", NULL };
	struct policy_value	 v = { PV_LIST, 0, 0, NULL, 0, argv };
	struct policy_builder	 b;
	struct cb_policy	 p;
	struct cb_err		 err;
	char			 buf[256];

	CHECK(policy_key_is_list(PK_PROBE));
	CHECK(!policy_key_is_list(PK_PROBE_TIMEOUT));
	CHECK(!policy_key_is_list(PK_COUNT));
	policy_init(&b);
	CHECK_EQ(policy_set(&b, PK_PROBE, &v, LAYER_DEFAULTS, "f:1", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK(p.probe == argv);
	CHECK_EQ(p.probe_timeout_ms, 10000);
	policy_format(&b, PK_PROBE, buf, sizeof buf);
	CHECK_STR(buf, "[ \"pg_isready\", \"-h\", \"db\\\"1\" ]");
	/* Truncated, never overrun. */
	policy_format(&b, PK_PROBE, buf, 20);
	CHECK(strlen(buf) < 20);
	CHECK_EQ(set_cli(&b, PK_PROBE, "none", &err), 0);
	CHECK(b.p.probe == NULL);
	CHECK_EQ(set_cli(&b, PK_PROBE, "curl -fsS x", &err), -1);
	CHECK(strstr(err.msg, "probe: -o probe= takes a list in the config "
	    "file's syntax") == err.msg);
	CHECK_EQ(set_file(&b, PK_PROBE, PV_STRING, 0, 0, "curl x",
	    LAYER_ENTRY, "f:2", &err), -1);
	CHECK(strstr(err.msg, "not the string 'curl x'") != NULL);
	CHECK_EQ(set_file(&b, PK_PROBE, PV_INT, 3, 0, NULL, LAYER_ENTRY,
	    "f:2", &err), -1);
	v.list = empty;
	CHECK_EQ(policy_check(PK_PROBE, &v, &err), -1);
	CHECK_STR(err.msg, "probe: must name a command, not an empty list");
	v.list = blank;
	CHECK_EQ(policy_check(PK_PROBE, &v, &err), -1);
	CHECK_STR(err.msg, "probe: the command must not be empty");
	/* A list for a key of one value is refused by its own type. */
	v.list = argv;
	CHECK_EQ(policy_check(PK_TIMEOUT, &v, &err), -1);
	CHECK(strstr(err.msg, "not a list") != NULL);
	CHECK_EQ(set_cli(&b, PK_PROBE_TIMEOUT, "0", &err), -1);
	CHECK_EQ(set_cli(&b, PK_PROBE_TIMEOUT, "2s", &err), 0);
	CHECK_EQ(b.p.probe_timeout_ms, 2000);
}

static void
test_finish(void)
{
	struct policy_builder	b;
	struct cb_policy	p;
	struct cb_err		err;

	/* Explicit min_calls above the window. */
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_TRIP_MIN_CALLS, "30", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), -1);
	CHECK_STR(err.msg, "trip.min_calls (command line) is 30, more than "
	    "trip.window (built-in), which is 20");

	policy_init(&b);
	CHECK_EQ(set_file(&b, PK_TRIP_MIN_CALLS, PV_INT, 8, 0, NULL,
	    LAYER_DEFAULTS, "f:3", &err), 0);
	CHECK_EQ(set_file(&b, PK_TRIP_WINDOW, PV_INT, 5, 0, NULL,
	    LAYER_ENTRY, "f:9", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), -1);
	CHECK_STR(err.msg, "trip.min_calls (f:3) is 8, more than "
	    "trip.window (f:9), which is 5");

	/* The built-in min_calls gives way to a smaller window. */
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_TRIP_WINDOW, "5", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.trip_min_calls, 5);
	CHECK(strstr(b.origin[PK_TRIP_MIN_CALLS], "capped") != NULL);

	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_TRIP_WINDOW, "10", &err), 0);
	CHECK_EQ(set_cli(&b, PK_TRIP_MIN_CALLS, "10", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);

	/* Explicit max_open_timeout below open_timeout. */
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_MAX_OPEN_TIMEOUT, "30s", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), -1);
	CHECK_STR(err.msg, "max_open_timeout (command line) is 30s, shorter "
	    "than open_timeout (built-in), which is 1m");

	/* The built-in max_open_timeout rises to a longer open_timeout. */
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_OPEN_TIMEOUT, "30m", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.max_open_timeout_ms, 1800000);
	CHECK(strstr(b.origin[PK_MAX_OPEN_TIMEOUT], "raised") != NULL);

	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_OPEN_TIMEOUT, "10m", &err), 0);
	CHECK_EQ(set_cli(&b, PK_MAX_OPEN_TIMEOUT, "10m", &err), 0);
	CHECK_EQ(policy_finish(&b, NULL, &err), 0);

	/* Finishing twice gives the same policy. */
	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_PRESET, "rsync", &err), 0);
	CHECK_EQ(set_cli(&b, PK_IGNORE_CODES, "24", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	{
		struct cb_policy	p2;

		CHECK_EQ(policy_finish(&b, &p2, &err), 0);
		CHECK(memcmp(&p.failure_codes, &p2.failure_codes,
		    sizeof p.failure_codes) == 0);
		CHECK(memcmp(&p.ignore_codes, &p2.ignore_codes,
		    sizeof p.ignore_codes) == 0);
	}
}

/*
 * The policy a breaker last ran under, as the base of a broken config's
 * calls (SPEC section 4): every key from it, the command line over it, its
 * classes kept unless a class or preset laid over names the codes.
 */
static void
test_init_from(void)
{
	struct policy_builder	b;
	struct cb_policy	last, p;
	struct cb_err		err;

	policy_init(&b);
	CHECK_EQ(set_cli(&b, PK_TIMEOUT, "20s", &err), 0);
	CHECK_EQ(set_cli(&b, PK_TRIP_FAILURES, "2", &err), 0);
	CHECK_EQ(set_cli(&b, PK_SUCCESS_CODES, "0,3", &err), 0);
	CHECK_EQ(set_cli(&b, PK_OPEN_EXIT_CODE, "76", &err), 0);
	CHECK_EQ(policy_finish(&b, &last, &err), 0);
	CHECK(codeset_has(&last.success_codes, 3));

	policy_init_from(&b, &last, "last run");
	CHECK_STR(b.origin[PK_TIMEOUT], "last run");
	CHECK_EQ(set_cli(&b, PK_MAX_CONCURRENT, "1", &err), 0);
	CHECK_EQ(set_cli(&b, PK_FAILURE_CODES, "3,7", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK_EQ(p.timeout_ms, 20000);
	CHECK_EQ(p.trip_failures, 2);
	CHECK_EQ(p.open_exit_code, 76);
	CHECK_EQ(p.max_concurrent, 1);
	CHECK_STR(b.origin[PK_MAX_CONCURRENT], "command line");
	CHECK(p.probe == NULL);
	/* The command line's class takes 3 from the kept success class. */
	CHECK(codeset_has(&p.failure_codes, 3));
	CHECK(codeset_has(&p.failure_codes, 7));
	CHECK(!codeset_has(&p.failure_codes, 1));
	CHECK(!codeset_has(&p.success_codes, 3));
	CHECK(codeset_has(&p.success_codes, 0));

	/* Kept as they were when nothing is laid over. */
	policy_init_from(&b, &last, "last run");
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK(codeset_has(&p.success_codes, 3));
	CHECK(!codeset_has(&p.failure_codes, 3));
	CHECK(codeset_has(&p.failure_codes, 1));
	/* A preset laid over replaces them. */
	policy_init_from(&b, &last, "last run");
	CHECK_EQ(set_cli(&b, PK_PRESET, "curl", &err), 0);
	CHECK_EQ(policy_finish(&b, &p, &err), 0);
	CHECK(codeset_has(&p.failure_codes, 7));
	CHECK(!codeset_has(&p.failure_codes, 22));
	CHECK(!codeset_has(&p.success_codes, 3));
}

/*
 * A value read from a record is checked against the same bounds as its
 * spelling (SPEC 5), and an index that no spelling gives is printed as
 * what it is, never as a name it does not have (format_preset printed
 * "(null)" for preset 30000).
 */
static void
test_in_range(void)
{
	struct policy_builder	b;
	char			buf[64];

	CHECK(policy_int_in_range(PK_TRIP_FAILURES, 1));
	CHECK(policy_int_in_range(PK_TRIP_FAILURES, POLICY_MAX_FAILURES));
	CHECK(!policy_int_in_range(PK_TRIP_FAILURES, 0));
	CHECK(!policy_int_in_range(PK_TRIP_FAILURES, POLICY_MAX_FAILURES + 1));
	CHECK(!policy_int_in_range(PK_HALF_OPEN_MAX_CALLS, 0));
	CHECK(policy_int_in_range(PK_MAX_CONCURRENT, 0));
	CHECK(!policy_int_in_range(PK_MAX_CONCURRENT, 65));
	CHECK(policy_int_in_range(PK_TRIP_POLICY, 2));
	CHECK(!policy_int_in_range(PK_TRIP_POLICY, 3));
	CHECK(!policy_int_in_range(PK_TRIP_POLICY, -1));
	CHECK(policy_int_in_range(PK_PRESET, -1));
	CHECK(policy_int_in_range(PK_PRESET, 0));
	CHECK(!policy_int_in_range(PK_PRESET, 30000));
	CHECK(!policy_int_in_range(PK_PRESET, -2));
	CHECK(policy_int_in_range(PK_TIMEOUT, 0));	/* none */
	CHECK(!policy_int_in_range(PK_PROBE_TIMEOUT, 0));
	CHECK(policy_int_in_range(PK_KILL_AFTER, 0));	/* never */
	CHECK(policy_int_in_range(PK_OPEN_TIMEOUT, UNITS_MAX_MS));
	CHECK(!policy_int_in_range(PK_OPEN_TIMEOUT, UNITS_MAX_MS + 1));
	CHECK(!policy_int_in_range(PK_RETRY_DELAY, POLICY_MAX_RETRY_DELAY + 1));
	CHECK(!policy_int_in_range(PK_OPEN_EXIT_CODE, 256));
	CHECK(!policy_int_in_range(PK_JITTER, 0));	/* not an integer key */
	CHECK(policy_float_in_range(PK_JITTER, 0));
	CHECK(!policy_float_in_range(PK_JITTER, 1.5));
	CHECK(!policy_float_in_range(PK_TRIP_FAILURE_RATE, 0));
	CHECK(!policy_float_in_range(PK_BACKOFF, 0.5));
	CHECK(!policy_float_in_range(PK_BACKOFF, 0.0 / 0.0));

	policy_init(&b);
	b.preset = 30000;
	policy_format(&b, PK_PRESET, buf, sizeof buf);
	CHECK_STR(buf, "\"unknown preset 30000\"");
	b.preset = -1;
	policy_format(&b, PK_PRESET, buf, sizeof buf);
	CHECK_STR(buf, "\"none\"");
}

void
test_policy(void)
{
	test_in_range();
	test_parse_duration();
	test_format_duration();
	test_parse_codes();
	test_code_ranges();
	test_keys();
	test_defaults();
	test_check();
	test_hint();
	test_set_errors();
	test_set_values();
	test_bulkhead_keys();
	test_rate_keys();
	test_output_key();
	test_layers();
	test_classes();
	test_finish();
	test_argv_key();
	test_init_from();
}
