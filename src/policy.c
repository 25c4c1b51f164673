/*
 * policy.c: the per-breaker policy of SPEC section 3.  One table lists every
 * key with its type and range; policy_set() validates a value against it for
 * both the config file and the command line, so a value means the same
 * wherever it is written.  The presets' exit code tables live here too, each
 * taken from its tool's own manual.  Pure: no I/O and no libconfig.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

/* Durations are capped at 100 years (of 365.25 days), in milliseconds. */
#define MS_SECOND	1000LL
#define MS_MINUTE	(60 * MS_SECOND)
#define MS_HOUR		(60 * MS_MINUTE)
#define MS_DAY		(24 * MS_HOUR)
#define MAX_MS		(36525 * MS_DAY)

/* How much of a bad value an error message repeats. */
#define SHOW_MAX	80

enum key_type {
	KT_ENUM,
	KT_INT,
	KT_FLOAT,
	KT_DURATION,
	KT_CODES,
	KT_PRESET
};

struct key_def {
	const char		*name;
	enum key_type		 type;
	long long		 lo;	/* KT_INT; KT_DURATION: least ms */
	long long		 hi;	/* KT_INT; KT_DURATION: most ms, 0: none */
	double			 flo;	/* KT_FLOAT */
	double			 fhi;
	int			 flo_open;	/* flo itself is not allowed */
	const char *const	*names;	/* KT_ENUM */
	int			 none;	/* KT_DURATION: 0 is spelt "none" */
};

static const char *const trip_names[] = {
	"consecutive", "rate", "time", NULL
};
static const char *const verdict_names[] = {
	"failure", "success", "ignore", NULL
};
static const char *const on_open_names[] = {
	"fail", "skip", NULL
};

static const struct key_def keys[PK_COUNT] = {
	[PK_TRIP_POLICY] = { "trip.policy", KT_ENUM, .names = trip_names },
	[PK_TRIP_FAILURES] = { "trip.failures", KT_INT, 1,
	    POLICY_MAX_FAILURES },
	[PK_TRIP_PERIOD] = { "trip.period", KT_DURATION, 1 },
	[PK_TRIP_WINDOW] = { "trip.window", KT_INT, 1, POLICY_MAX_WINDOW },
	[PK_TRIP_MIN_CALLS] = { "trip.min_calls", KT_INT, 1,
	    POLICY_MAX_WINDOW },
	[PK_TRIP_FAILURE_RATE] = { "trip.failure_rate", KT_FLOAT,
	    .flo = 0, .fhi = 1, .flo_open = 1 },
	[PK_OPEN_TIMEOUT] = { "open_timeout", KT_DURATION, 1 },
	[PK_MAX_OPEN_TIMEOUT] = { "max_open_timeout", KT_DURATION, 1 },
	[PK_BACKOFF] = { "backoff", KT_FLOAT, .flo = 1, .fhi = 100 },
	[PK_JITTER] = { "jitter", KT_FLOAT, .flo = 0, .fhi = 1 },
	[PK_HALF_OPEN_MAX_CALLS] = { "half_open_max_calls", KT_INT, 1,
	    POLICY_MAX_PROBES },
	[PK_PROBE_LEASE] = { "probe_lease", KT_DURATION, 1 },
	[PK_TIMEOUT] = { "timeout", KT_DURATION, 0, .none = 1 },
	[PK_KILL_AFTER] = { "kill_after", KT_DURATION, 0 },
	[PK_FAILURE_CODES] = { "failure_codes", KT_CODES },
	[PK_SUCCESS_CODES] = { "success_codes", KT_CODES },
	[PK_IGNORE_CODES] = { "ignore_codes", KT_CODES },
	[PK_PRESET] = { "preset", KT_PRESET },
	[PK_TIMEOUT_IS] = { "timeout_is", KT_ENUM, .names = verdict_names },
	[PK_SIGNAL_IS] = { "signal_is", KT_ENUM, .names = verdict_names },
	[PK_SLOW_CALL] = { "slow_call", KT_DURATION, 0, .none = 1 },
	[PK_ON_OPEN] = { "on_open", KT_ENUM, .names = on_open_names },
	[PK_OPEN_EXIT_CODE] = { "open_exit_code", KT_INT, 0, 255 },
	[PK_RETRIES] = { "retries", KT_INT, 0, POLICY_MAX_RETRIES },
	[PK_RETRY_DELAY] = { "retry_delay", KT_DURATION, 0,
	    POLICY_MAX_RETRY_DELAY },
};

/* The three code classes, in the order of cls[] and cls_set[]. */
enum { CLS_FAILURE, CLS_SUCCESS, CLS_IGNORE, CLS_COUNT };

static const enum policy_key cls_key[CLS_COUNT] = {
	PK_FAILURE_CODES, PK_SUCCESS_CODES, PK_IGNORE_CODES
};

/*
 * Presets.  Each failure class holds the codes whose documented meaning is
 * "could not reach or talk to the other side"; success is 0.  Every other
 * code means the dependency answered and the job has a problem of its own,
 * so it is left out of all three classes and counts as a success (SPEC
 * section 3).  No preset ignores anything.  cbexec.conf(5) prints these
 * tables; keep the two in step.
 */
struct preset {
	const char	*name;
	const char	*cls[CLS_COUNT];	/* failure, success, ignore */
};

static const struct preset presets[] = {
	/*
	 * curl(1), EXIT CODES: 5 could not resolve proxy, 6 could not
	 * resolve host, 7 failed to connect to host, 28 operation timeout,
	 * 35 SSL connect error (handshake failed), 52 the server did not
	 * reply anything, 55 failed sending network data, 56 failure in
	 * receiving network data, 96 QUIC connection error, 97 proxy
	 * handshake error.  22 (HTTP error with --fail) means the server
	 * answered and is left to the job.
	 */
	{ "curl", { "5-7,28,35,52,55-56,96-97", "0", "none" } },
	/*
	 * wget(1), EXIT STATUS: 4 network failure.  5 (SSL verification
	 * failure), 6 (authentication), 7 (protocol errors) and 8 (server
	 * issued an error response) mean something answered.
	 */
	{ "wget", { "4", "0", "none" } },
	/*
	 * ssh(1), EXIT STATUS: "ssh exits with the exit status of the
	 * remote command or with 255 if an error occurred".
	 */
	{ "ssh", { "255", "0", "none" } },
	/*
	 * rsync(1), EXIT VALUES: 5 error starting client-server protocol,
	 * 10 error in socket I/O, 12 error in rsync protocol data stream,
	 * 30 timeout in data send/receive, 35 timeout waiting for daemon
	 * connection.
	 */
	{ "rsync", { "5,10,12,30,35", "0", "none" } },
	/*
	 * psql(1), Exit Status: 2 "if the connection to the server went
	 * bad and the session was not interactive".  1 is psql's own fatal
	 * error, 3 an error in a script with ON_ERROR_STOP.
	 */
	{ "psql", { "2", "0", "none" } },
	/*
	 * pg_isready(1), Exit Status: 1 "the server is rejecting
	 * connections (for example during startup)", 2 "there was no
	 * response to the connection attempt".  3 (no attempt was made,
	 * e.g. invalid parameters) is left to the job.
	 */
	{ "pg_isready", { "1-2", "0", "none" } },
};

#define NPRESETS	(sizeof presets / sizeof presets[0])

const char *const policy_presets[] = {
	"curl", "wget", "ssh", "rsync", "psql", "pg_isready", NULL
};

static const char	builtin_origin[] = "built-in";
static const char	capped_origin[] = "built-in, capped at trip.window";
static const char	raised_origin[] = "built-in, raised to open_timeout";

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

/* A preset's table, which is a constant: parsing it cannot fail. */
static struct cb_codeset
preset_class(int preset, int cls)
{
	struct cb_codeset	s;

	if (parse_codes(presets[preset].cls[cls], &s, NULL) != 0)
		memset(&s, 0, sizeof s);
	return s;
}

static struct cb_codeset
default_class(int cls)
{
	struct cb_codeset	s;
	int			c;

	memset(&s, 0, sizeof s);
	if (cls == CLS_FAILURE) {
		for (c = 1; c <= 255; c++)
			codeset_add(&s, c);
	} else if (cls == CLS_SUCCESS)
		codeset_add(&s, 0);
	return s;
}

void
policy_init(struct policy_builder *b)
{
	struct cb_policy	*p = &b->p;
	int			 i;

	memset(b, 0, sizeof *b);
	p->trip_policy = TRIP_CONSECUTIVE;
	p->trip_failures = 5;
	p->trip_period_ms = 60 * MS_SECOND;
	p->trip_window = 20;
	p->trip_min_calls = 10;
	p->trip_failure_rate = 0.5;
	p->open_timeout_ms = 60 * MS_SECOND;
	p->max_open_timeout_ms = 10 * MS_MINUTE;
	p->backoff = 2.0;
	p->jitter = 0.0;
	p->half_open_max_calls = 1;
	p->probe_lease_ms = MS_HOUR;
	p->timeout_ms = 0;
	p->kill_after_ms = 10 * MS_SECOND;
	p->slow_call_ms = 0;
	p->failure_codes = default_class(CLS_FAILURE);
	p->success_codes = default_class(CLS_SUCCESS);
	p->ignore_codes = default_class(CLS_IGNORE);
	p->timeout_is = VERDICT_FAILURE;
	p->signal_is = VERDICT_FAILURE;
	p->on_open = ON_OPEN_FAIL;
	p->open_exit_code = 75;
	p->retries = 0;
	p->retry_delay_ms = MS_SECOND;
	p->max_concurrent = 0;
	p->on_busy = ON_OPEN_FAIL;
	p->preset = -1;

	for (i = 0; i < PK_COUNT; i++) {
		b->origin[i] = builtin_origin;
		b->layer[i] = LAYER_BUILTIN;
	}
	b->preset = -1;
}

/* ---- parsers ----------------------------------------------------------- */

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

/* Strict decimal integer: optional '-', digits, nothing else. */
static int
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

/*
 * Strict decimal number: [-+]digits[.digits][e[-+]digits], also .5 and
 * 5.; no hex, inf or nan, which strtod would take.
 */
static int
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

int
parse_duration(const char *s, int64_t *out, struct cb_err *err)
{
	const char		*p = s, *num, *frac, *u;
	unsigned long long	 ip, fnum, fden, add;
	long long		 total = 0, unit_ms;
	size_t			 ulen, flen, i;
	int			 toolong = 0;

	if (*s == '\0') {
		err_set(err, "invalid duration '': empty");
		return -1;
	}
	/* A bare integer is seconds. */
	for (p = s; is_digit((unsigned char)*p); p++)
		;
	if (*p == '\0') {
		for (ip = 0, p = s; *p != '\0'; p++) {
			if (ip > (unsigned long long)MAX_MS)
				break;
			ip = ip * 10 + (unsigned)(*p - '0');
		}
		if (*p != '\0' || ip > (unsigned long long)(MAX_MS / MS_SECOND))
			goto too_long;
		*out = (int64_t)ip * MS_SECOND;
		return 0;
	}

	p = s;
	while (*p != '\0') {
		if (*p == '-') {
			err_set(err, "invalid duration '%.*s': negative",
			    SHOW_MAX, s);
			return -1;
		}
		num = p;
		if (!is_digit((unsigned char)*p)) {
			err_set(err, "invalid duration '%.*s': expected a "
			    "number at '%.*s'", SHOW_MAX, s, SHOW_MAX, p);
			return -1;
		}
		for (ip = 0; is_digit((unsigned char)*p); p++) {
			if (ip <= (unsigned long long)MAX_MS)
				ip = ip * 10 + (unsigned)(*p - '0');
		}
		frac = NULL;
		flen = 0;
		if (*p == '.') {
			frac = ++p;
			if (!is_digit((unsigned char)*p)) {
				err_set(err, "invalid duration '%.*s': "
				    "expected a digit after '%.*s'", SHOW_MAX,
				    s, (int)(p - num), num);
				return -1;
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
		if (ulen == 0) {
			err_set(err, "invalid duration '%.*s': missing unit "
			    "after '%.*s'", SHOW_MAX, s, (int)(p - num), num);
			return -1;
		}
		unit_ms = 0;
		for (i = 0; i < sizeof units / sizeof units[0]; i++) {
			if (strlen(units[i].name) == ulen &&
			    strncmp(units[i].name, u, ulen) == 0)
				unit_ms = units[i].ms;
		}
		if (unit_ms == 0) {
			err_set(err, "invalid duration '%.*s': unknown unit "
			    "'%.*s'", SHOW_MAX, s, (int)ulen, u);
			return -1;
		}
		if (ip > (unsigned long long)(MAX_MS / unit_ms)) {
			toolong = 1;
			continue;
		}
		add = ip * (unsigned long long)unit_ms;
		if (flen > 0) {
			/* Nine decimals reach below a millisecond of a day. */
			if (flen > 9)
				goto too_fine;
			for (fnum = 0, fden = 1, i = 0; i < flen; i++) {
				fnum = fnum * 10 + (unsigned)(frac[i] - '0');
				fden *= 10;
			}
			if (fnum * (unsigned long long)unit_ms % fden != 0)
				goto too_fine;
			add += fnum * (unsigned long long)unit_ms / fden;
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
	int			 lo, hi, c;

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
		for (c = lo; c <= hi; c++)
			codeset_add(&set, c);
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

void
format_codes(const struct cb_codeset *s, char *buf, size_t len)
{
	size_t	off = 0;
	int	c, end, n;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (c = 0; c <= 255; c++) {
		if (!codeset_has(s, c))
			continue;
		for (end = c; end < 255 && codeset_has(s, end + 1); end++)
			;
		if (off >= len)
			break;
		if (end == c)
			n = snprintf(buf + off, len - off, "%s%d",
			    off == 0 ? "" : ",", c);
		else
			n = snprintf(buf + off, len - off, "%s%d-%d",
			    off == 0 ? "" : ",", c, end);
		if (n < 0)
			break;
		off += (size_t)n;
		c = end;
	}
	if (off == 0)
		snprintf(buf, len, "none");
}

/* Shortest "%g" that reads back as the same double, always with a dot. */
static void
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

static const int64_t *
duration_field(const struct cb_policy *p, enum policy_key k)
{
	switch (k) {
	case PK_TRIP_PERIOD:
		return &p->trip_period_ms;
	case PK_OPEN_TIMEOUT:
		return &p->open_timeout_ms;
	case PK_MAX_OPEN_TIMEOUT:
		return &p->max_open_timeout_ms;
	case PK_PROBE_LEASE:
		return &p->probe_lease_ms;
	case PK_TIMEOUT:
		return &p->timeout_ms;
	case PK_KILL_AFTER:
		return &p->kill_after_ms;
	case PK_SLOW_CALL:
		return &p->slow_call_ms;
	case PK_RETRY_DELAY:
		return &p->retry_delay_ms;
	default:
		return NULL;
	}
}

static const struct cb_codeset *
codes_field(const struct cb_policy *p, enum policy_key k)
{
	switch (k) {
	case PK_FAILURE_CODES:
		return &p->failure_codes;
	case PK_SUCCESS_CODES:
		return &p->success_codes;
	case PK_IGNORE_CODES:
		return &p->ignore_codes;
	default:
		return NULL;
	}
}

static long long
int_field(const struct cb_policy *p, enum policy_key k)
{
	switch (k) {
	case PK_TRIP_FAILURES:
		return p->trip_failures;
	case PK_TRIP_WINDOW:
		return p->trip_window;
	case PK_TRIP_MIN_CALLS:
		return p->trip_min_calls;
	case PK_HALF_OPEN_MAX_CALLS:
		return p->half_open_max_calls;
	case PK_OPEN_EXIT_CODE:
		return p->open_exit_code;
	case PK_RETRIES:
		return p->retries;
	default:
		return 0;
	}
}

static double
float_field(const struct cb_policy *p, enum policy_key k)
{
	switch (k) {
	case PK_TRIP_FAILURE_RATE:
		return p->trip_failure_rate;
	case PK_BACKOFF:
		return p->backoff;
	case PK_JITTER:
		return p->jitter;
	default:
		return 0;
	}
}

static int
enum_field(const struct cb_policy *p, enum policy_key k)
{
	switch (k) {
	case PK_TRIP_POLICY:
		return (int)p->trip_policy;
	case PK_TIMEOUT_IS:
		return (int)p->timeout_is;
	case PK_SIGNAL_IS:
		return (int)p->signal_is;
	case PK_ON_OPEN:
		return (int)p->on_open;
	default:
		return 0;
	}
}

void
policy_format(const struct policy_builder *b, enum policy_key k, char *buf,
    size_t len)
{
	const struct key_def	*d;
	const int64_t		*ms;
	char			 tmp[1024];

	if (len == 0)
		return;
	buf[0] = '\0';
	if ((int)k < 0 || k >= PK_COUNT)
		return;
	d = &keys[k];
	switch (d->type) {
	case KT_ENUM:
		snprintf(buf, len, "\"%s\"", d->names[enum_field(&b->p, k)]);
		break;
	case KT_INT:
		snprintf(buf, len, "%lld", int_field(&b->p, k));
		break;
	case KT_FLOAT:
		format_float(float_field(&b->p, k), buf, len);
		break;
	case KT_DURATION:
		ms = duration_field(&b->p, k);
		if (*ms == 0 && d->none)
			snprintf(tmp, sizeof tmp, "none");
		else
			format_duration(*ms, tmp, sizeof tmp);
		snprintf(buf, len, "\"%s\"", tmp);
		break;
	case KT_CODES:
		format_codes(codes_field(&b->p, k), tmp, sizeof tmp);
		snprintf(buf, len, "\"%s\"", tmp);
		break;
	case KT_PRESET:
		snprintf(buf, len, "\"%s\"",
		    b->preset < 0 ? "none" : presets[b->preset].name);
		break;
	}
}

/* ---- policy_set -------------------------------------------------------- */

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
set_enum(const struct key_def *d, const struct policy_value *v, int *out,
    struct cb_err *err)
{
	char	list[256], shown[SHOW_MAX + 32];
	int	i;

	if (v->type == PV_STRING) {
		for (i = 0; d->names[i] != NULL; i++) {
			if (strcmp(d->names[i], v->s) == 0) {
				*out = i;
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

static int
set_preset(const struct key_def *d, const struct policy_value *v, int *out,
    struct cb_err *err)
{
	char	list[256], shown[SHOW_MAX + 32];
	size_t	i;

	if (v->type == PV_STRING) {
		if (strcmp(v->s, "none") == 0) {
			*out = -1;
			return 0;
		}
		for (i = 0; i < NPRESETS; i++) {
			if (strcmp(presets[i].name, v->s) == 0) {
				*out = (int)i;
				return 0;
			}
		}
		snprintf(shown, sizeof shown, "'%.*s'", SHOW_MAX, v->s);
	} else
		show_value(v, shown, sizeof shown);
	names_list(policy_presets, list, sizeof list);
	err_set(err, "%s: must be one of %s, none, not %s", d->name, list,
	    shown);
	return -1;
}

static int
set_int(const struct key_def *d, const struct policy_value *v,
    long long *out, struct cb_err *err)
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
	*out = n;
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
    double *out, struct cb_err *err)
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
	*out = f;
	return 0;
bad:
	float_range(d, range, sizeof range);
	err_set(err, "%s: must be %s, not %s", d->name, range,
	    show_value(v, shown, sizeof shown));
	return -1;
}

static int
set_duration(const struct key_def *d, const struct policy_value *v,
    int64_t *out, struct cb_err *err)
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
	*out = ms;
	return 0;
}

static int
set_codes(const struct key_def *d, const struct policy_value *v,
    struct cb_codeset *out, struct cb_err *err)
{
	struct cb_err	perr;
	char		shown[SHOW_MAX + 32];

	if (v->type == PV_STRING) {
		if (parse_codes(v->s, out, &perr) != 0) {
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
		memset(out, 0, sizeof *out);
		codeset_add(out, (int)v->i);
		return 0;
	}
	err_set(err, "%s: must be a list of exit codes such as \"6,7,50-59\", "
	    "not %s", d->name, show_value(v, shown, sizeof shown));
	return -1;
}

int
policy_set(struct policy_builder *b, enum policy_key k,
    const struct policy_value *v, enum policy_layer layer,
    const char *origin, struct cb_err *err)
{
	const struct key_def	*d;
	struct cb_policy	*p = &b->p;
	struct cb_codeset	 codes;
	long long		 n = 0;
	double			 f = 0;
	int64_t			 ms = 0;
	int			 e = 0, cls;

	if ((int)k < 0 || k >= PK_COUNT) {
		err_set(err, "unknown policy key %d", (int)k);
		return -1;
	}
	d = &keys[k];
	switch (d->type) {
	case KT_ENUM:
		if (set_enum(d, v, &e, err) != 0)
			return -1;
		break;
	case KT_PRESET:
		if (set_preset(d, v, &e, err) != 0)
			return -1;
		break;
	case KT_INT:
		if (set_int(d, v, &n, err) != 0)
			return -1;
		break;
	case KT_FLOAT:
		if (set_float(d, v, &f, err) != 0)
			return -1;
		break;
	case KT_DURATION:
		if (set_duration(d, v, &ms, err) != 0)
			return -1;
		break;
	case KT_CODES:
		if (set_codes(d, v, &codes, err) != 0)
			return -1;
		break;
	}

	/* A lower layer never overrides a higher one, whatever the order. */
	if (layer < b->layer[k])
		return 0;
	b->layer[k] = layer;
	b->origin[k] = origin;

	switch (k) {
	case PK_TRIP_POLICY:
		p->trip_policy = (enum cb_trip_policy)e;
		break;
	case PK_TRIP_FAILURES:
		p->trip_failures = (uint32_t)n;
		break;
	case PK_TRIP_PERIOD:
		p->trip_period_ms = ms;
		break;
	case PK_TRIP_WINDOW:
		p->trip_window = (uint32_t)n;
		break;
	case PK_TRIP_MIN_CALLS:
		p->trip_min_calls = (uint32_t)n;
		break;
	case PK_TRIP_FAILURE_RATE:
		p->trip_failure_rate = f;
		break;
	case PK_OPEN_TIMEOUT:
		p->open_timeout_ms = ms;
		break;
	case PK_MAX_OPEN_TIMEOUT:
		p->max_open_timeout_ms = ms;
		break;
	case PK_BACKOFF:
		p->backoff = f;
		break;
	case PK_JITTER:
		p->jitter = f;
		break;
	case PK_HALF_OPEN_MAX_CALLS:
		p->half_open_max_calls = (uint32_t)n;
		break;
	case PK_PROBE_LEASE:
		p->probe_lease_ms = ms;
		break;
	case PK_TIMEOUT:
		p->timeout_ms = ms;
		break;
	case PK_KILL_AFTER:
		p->kill_after_ms = ms;
		break;
	case PK_FAILURE_CODES:
	case PK_SUCCESS_CODES:
	case PK_IGNORE_CODES:
		/* p holds the raw class until policy_finish resolves it. */
		if (k == PK_FAILURE_CODES) {
			cls = CLS_FAILURE;
			p->failure_codes = codes;
		} else if (k == PK_SUCCESS_CODES) {
			cls = CLS_SUCCESS;
			p->success_codes = codes;
		} else {
			cls = CLS_IGNORE;
			p->ignore_codes = codes;
		}
		b->cls[cls] = codes;
		b->cls_set[cls] = (int)layer + 1;
		break;
	case PK_PRESET:
		b->preset = e;
		break;
	case PK_TIMEOUT_IS:
		p->timeout_is = (enum cb_verdict)e;
		break;
	case PK_SIGNAL_IS:
		p->signal_is = (enum cb_verdict)e;
		break;
	case PK_SLOW_CALL:
		p->slow_call_ms = ms;
		break;
	case PK_ON_OPEN:
		p->on_open = (enum cb_on_open)e;
		break;
	case PK_OPEN_EXIT_CODE:
		p->open_exit_code = (int)n;
		break;
	case PK_RETRIES:
		p->retries = (uint32_t)n;
		break;
	case PK_RETRY_DELAY:
		p->retry_delay_ms = ms;
		break;
	case PK_COUNT:
		break;
	}
	return 0;
}

/* ---- policy_finish ----------------------------------------------------- */

static int
codeset_first_common(const struct cb_codeset *a, const struct cb_codeset *b)
{
	int	c;

	for (c = 0; c <= 255; c++) {
		if (codeset_has(a, c) && codeset_has(b, c))
			return c;
	}
	return -1;
}

static void
codeset_remove(struct cb_codeset *s, int code)
{
	s->w[code >> 6] &= ~((uint64_t)1 << (code & 63));
}

static void
codeset_minus(struct cb_codeset *s, const struct cb_codeset *minus)
{
	int	i;

	for (i = 0; i < 4; i++)
		s->w[i] &= ~minus->w[i];
}

/* A key named in a message, with where it came from. */
static void
key_where(const struct policy_builder *b, enum policy_key k, char *buf,
    size_t len)
{
	snprintf(buf, len, "%s (%s)", keys[k].name, b->origin[k]);
}

static int
resolve_classes(struct policy_builder *b, struct cb_err *err)
{
	struct cb_codeset	 set[CLS_COUNT], named;
	int			 expl[CLS_COUNT], lay[CLS_COUNT];
	int			 c, c2, code, best, from_preset;
	char			 w1[256], w2[256];
	enum policy_key		 k;

	/*
	 * A class comes from the highest layer that gives it: its own key,
	 * or a preset, which gives all three.  In one layer the key beats
	 * the preset.
	 */
	memset(&named, 0, sizeof named);
	for (c = 0; c < CLS_COUNT; c++) {
		k = cls_key[c];
		expl[c] = b->cls_set[c] != 0 && (b->preset < 0 ||
		    b->cls_set[c] - 1 >= (int)b->layer[PK_PRESET]);
		from_preset = !expl[c] && b->preset >= 0;
		lay[c] = b->cls_set[c] - 1;
		if (expl[c])
			set[c] = b->cls[c];
		else if (from_preset) {
			set[c] = preset_class(b->preset, c);
			b->origin[k] = b->origin[PK_PRESET];
			b->layer[k] = b->layer[PK_PRESET];
		} else {
			set[c] = default_class(c);
			b->origin[k] = builtin_origin;
			b->layer[k] = LAYER_BUILTIN;
		}
	}

	/* Two explicit classes of one layer may not share a code. */
	for (c = 0; c < CLS_COUNT; c++) {
		for (c2 = c + 1; c2 < CLS_COUNT; c2++) {
			if (!expl[c] || !expl[c2] || lay[c] != lay[c2])
				continue;
			if ((code = codeset_first_common(&set[c],
			    &set[c2])) < 0)
				continue;
			if (strcmp(b->origin[cls_key[c]],
			    b->origin[cls_key[c2]]) == 0 &&
			    lay[c] == LAYER_CLI)
				err_set(err, "%s and %s both name code %d",
				    keys[cls_key[c]].name,
				    keys[cls_key[c2]].name, code);
			else {
				key_where(b, cls_key[c], w1, sizeof w1);
				key_where(b, cls_key[c2], w2, sizeof w2);
				err_set(err, "%s and %s both name code %d", w1,
				    w2, code);
			}
			return -1;
		}
	}

	/* Across layers the higher explicit class keeps a code. */
	for (code = 0; code <= 255; code++) {
		best = -1;
		for (c = 0; c < CLS_COUNT; c++) {
			if (expl[c] && codeset_has(&set[c], code) &&
			    (best < 0 || lay[c] > lay[best]))
				best = c;
		}
		if (best < 0)
			continue;
		codeset_add(&named, code);
		for (c = 0; c < CLS_COUNT; c++) {
			if (c != best)
				codeset_remove(&set[c], code);
		}
	}

	/* Codes named explicitly leave the preset's or default classes. */
	for (c = 0; c < CLS_COUNT; c++) {
		if (!expl[c])
			codeset_minus(&set[c], &named);
	}

	b->p.failure_codes = set[CLS_FAILURE];
	b->p.success_codes = set[CLS_SUCCESS];
	b->p.ignore_codes = set[CLS_IGNORE];
	return 0;
}

int
policy_finish(struct policy_builder *b, struct cb_policy *out,
    struct cb_err *err)
{
	struct cb_policy	*p = &b->p;
	char			 w1[256], w2[256], d1[64], d2[64];

	if (resolve_classes(b, err) != 0)
		return -1;

	/*
	 * A built-in value gives way to an explicit one it contradicts;
	 * two explicit values that contradict each other are an error.
	 */
	if (p->trip_min_calls > p->trip_window) {
		if (b->layer[PK_TRIP_MIN_CALLS] == LAYER_BUILTIN) {
			p->trip_min_calls = p->trip_window;
			b->origin[PK_TRIP_MIN_CALLS] = capped_origin;
		} else {
			key_where(b, PK_TRIP_MIN_CALLS, w1, sizeof w1);
			key_where(b, PK_TRIP_WINDOW, w2, sizeof w2);
			err_set(err, "%s is %u, more than %s, which is %u", w1,
			    p->trip_min_calls, w2, p->trip_window);
			return -1;
		}
	}
	if (p->max_open_timeout_ms < p->open_timeout_ms) {
		if (b->layer[PK_MAX_OPEN_TIMEOUT] == LAYER_BUILTIN) {
			p->max_open_timeout_ms = p->open_timeout_ms;
			b->origin[PK_MAX_OPEN_TIMEOUT] = raised_origin;
		} else {
			key_where(b, PK_MAX_OPEN_TIMEOUT, w1, sizeof w1);
			key_where(b, PK_OPEN_TIMEOUT, w2, sizeof w2);
			format_duration(p->max_open_timeout_ms, d1, sizeof d1);
			format_duration(p->open_timeout_ms, d2, sizeof d2);
			err_set(err, "%s is %s, shorter than %s, which is %s",
			    w1, d1, w2, d2);
			return -1;
		}
	}
	p->preset = b->preset;
	if (out != NULL)
		*out = *p;
	return 0;
}
