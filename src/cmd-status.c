/*
 * cmd-status.c: `cbexec status [--json | --prometheus | --names]
 * [--output FILE] [NAME | GLOB ...]`, what operators see.  A table by
 * default, a detail view for one exact NAME (in the manner of `systemctl
 * status`), JSON for scripts, the Prometheus text exposition format for
 * node_exporter's textfile collector, and names alone for completions.
 * Reads one snapshot of the store and writes nothing to it; --output
 * replaces FILE atomically (a temporary file in the same directory, fsync,
 * rename) so a collector never reads half a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "name.h"
#include "config.h"
#include "record.h"

enum status_format {
	FMT_TABLE,
	FMT_DETAIL,
	FMT_JSON,
	FMT_NAMES,
	FMT_PROM
};

struct row {
	char	*name;
	char	 state[16];
	char	 failures[48];
	char	 calls[24];
	char	 rejected[24];
	char	 changed[24];
	char	 retry[24];
	int	 st;
};

/* What --prometheus prints of one breaker: metrics are grouped by family,
 * so every breaker is read before the first line is written. */
struct prow {
	char		*name;		/* escaped as a label value */
	size_t		 namelen;
	enum cb_state	 st;
	uint64_t	 n[OUTCOME_COUNT];	/* by enum cb_outcome */
	uint64_t	 timeouts;
	uint64_t	 trans[STATE_COUNT];
	uint32_t	 consecutive;
	int64_t		 open_until_ms;		/* 0 unless open */
	int64_t		 last_run_ms;
};

/* The marks of the runs strip: what a stored mark is shown as. */
enum strip_mark {
	SM_SUCCESS,
	SM_FAILURE,
	SM_TIMEOUT,
	SM_OTHER,	/* ignored, interrupted, stale */
	SM_REJECTED,
	SM_COUNT
};

struct status_walk {
	struct cb_ctx		 *ctx;
	enum status_format	  fmt;
	FILE			 *out;
	int			  colour;
	int			  utf8;
	char			**pats;
	int			  npats;
	int			 *hit;		/* per pattern */
	int64_t			  now;
	size_t			  n;		/* records shown */
	struct row		 *rows;
	size_t			  nrows, caprows;
	struct prow		 *prows;
	size_t			  nprows, capprows;
	struct cb_policy	 *pol;		/* the table's, by config entry */
	uint8_t			 *polset;
	struct cb_record	  rec;
};

#define C_RESET		"\033[0m"
#define C_GREEN		"\033[32m"
#define C_RED		"\033[31m"
#define C_YELLOW	"\033[33m"
#define C_DIM		"\033[2m"
#define C_BOLD		"\033[1m"

static const char *const state_colour[STATE_COUNT] = {
	C_GREEN, C_RED, C_YELLOW
};

/* The detail view's "      State: " labels, right-aligned. */
#define LABEL_W		11

static void
label(FILE *f, const char *what)
{
	fprintf(f, "%*s: ", LABEL_W, what);
}

static int
has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/*
 * RFC 3339 UTC with milliseconds; for JSON (quoted) a quoted string, or
 * null for an unset time.
 */
static void
rfc3339(int64_t ms, int quoted, char *buf, size_t len)
{
	struct tm	tm;
	time_t		t;
	int64_t		sec, frac;

	if (ms <= 0) {
		snprintf(buf, len, quoted ? "null" : "-");
		return;
	}
	sec = ms / 1000;
	frac = ms % 1000;
	t = (time_t)sec;
	if (gmtime_r(&t, &tm) == NULL) {
		snprintf(buf, len, quoted ? "null" : "-");
		return;
	}
	snprintf(buf, len, "%s%04d-%02d-%02dT%02d:%02d:%02d.%03dZ%s",
	    quoted ? "\"" : "", tm.tm_year + 1900, tm.tm_mon + 1,
	    tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)frac, quoted ? "\"" : "");
}

/* Local time for people: "2026-11-30 07:41:57 CET", or "-". */
static void
local_time(int64_t ms, char *buf, size_t len)
{
	struct tm	tm;
	time_t		t;

	t = (time_t)(ms / 1000);
	if (ms <= 0 || localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%d %H:%M:%S %Z", &tm) == 0)
		snprintf(buf, len, "-");
}

/* "5m ago", rounded down to the largest unit that fits. */
static void
ago(int64_t now, int64_t then, char *buf, size_t len)
{
	char	d[32];
	int64_t	s;

	if (then <= 0) {
		snprintf(buf, len, "-");
		return;
	}
	s = (now - then) / 1000;
	if (s < 0)
		s = 0;
	if (s >= 86400)
		s -= s % 86400;
	else if (s >= 3600)
		s -= s % 3600;
	else if (s >= 60)
		s -= s % 60;
	format_duration(s * 1000, d, sizeof d);
	snprintf(buf, len, "%s ago", s == 0 ? "0s" : d);
}

static void
retry_in(const struct cb_record *r, int64_t now, char *buf, size_t len)
{
	int64_t	ms;

	if (r->state == STATE_CLOSED)
		snprintf(buf, len, "-");
	else if (r->state == STATE_HALF_OPEN)
		snprintf(buf, len, "probing");
	else if ((ms = r->open_until_ms - now) <= 0)
		snprintf(buf, len, "now");
	else
		cmd_format_wait(ms, buf, len);
}

/* A stored run mark as the strip shows it.  A timeout shows as such
 * unless the run was interrupted or stale, which is what mattered. */
static enum strip_mark
strip_mark(uint8_t m)
{
	m &= RECORD_MARK_OUTCOME | RECORD_MARK_TIMEOUT;
	switch (m & RECORD_MARK_OUTCOME) {
	case OUTCOME_REJECTED:
		return SM_REJECTED;
	case OUTCOME_INTERRUPTED:
	case OUTCOME_STALE:
		return SM_OTHER;
	default:
		break;
	}
	if (m & RECORD_MARK_TIMEOUT)
		return SM_TIMEOUT;
	switch (m) {
	case OUTCOME_SUCCESS:
		return SM_SUCCESS;
	case OUTCOME_FAILURE:
		return SM_FAILURE;
	default:
		return SM_OTHER;
	}
}

/* A run mark's name in JSON: the outcome, or "timeout". */
static const char *
mark_name(uint8_t m)
{
	if (strip_mark(m) == SM_TIMEOUT)
		return "timeout";
	return breaker_outcome_name((enum cb_outcome)(m &
	    RECORD_MARK_OUTCOME));
}

/*
 * Text from the record (reasons, user names) for a terminal: control
 * bytes are written as C escapes, so a --reason cannot move the cursor.
 */
static void
put_text(FILE *f, const char *s)
{
	unsigned char	c;

	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

/*
 * --json and --prometheus over a million breakers spent most of their time
 * in printf's format parsing, stdio's per-call locking and gmtime_r (see
 * README, Performance).  They are built by hand into one 64 kB buffer,
 * written to the output FILE with fwrite when full, after the walk and
 * before an error.  The output is byte for byte what printf wrote.
 */
struct obuf {
	FILE	*f;
	size_t	 n;
	char	 b[65536];
};

static struct obuf	ob;

static void
ob_flush(struct obuf *o)
{
	if (o->n > 0 && o->f != NULL)
		(void)fwrite(o->b, 1, o->n, o->f);	/* ferror() at the end */
	o->n = 0;
}

static void
ob_add_slow(struct obuf *o, const char *s, size_t len)
{
	size_t	k;

	while (len > 0) {
		if (o->n == sizeof o->b)
			ob_flush(o);
		k = sizeof o->b - o->n;
		if (k > len)
			k = len;
		memcpy(o->b + o->n, s, k);
		o->n += k;
		s += k;
		len -= k;
	}
}

static inline void
ob_add(struct obuf *o, const char *s, size_t len)
{
	if (len > sizeof o->b - o->n) {
		ob_add_slow(o, s, len);
		return;
	}
	memcpy(o->b + o->n, s, len);
	o->n += len;
}

/* A string literal: its length known at compile time. */
#define OB_LIT(o, lit)	ob_add((o), "" lit, sizeof(lit) - 1)

static void
ob_str(struct obuf *o, const char *s)
{
	ob_add(o, s, strlen(s));
}

static void
ob_u64(struct obuf *o, uint64_t v)
{
	char	d[24], *p = d + sizeof d;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	ob_add(o, p, (size_t)(d + sizeof d - p));
}

static void
ob_i64(struct obuf *o, int64_t v)
{
	if (v < 0) {
		ob_add(o, "-", 1);
		ob_u64(o, (uint64_t)0 - (uint64_t)v);
	} else
		ob_u64(o, (uint64_t)v);
}

static void
put2(char *p, int v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/*
 * rfc3339(ms, 1, ...) into the buffer, UTC by arithmetic (H. Hinnant's
 * days-to-civil), without gmtime_r's time zone lock.  The dates of the
 * last days seen are kept, as a store's times cluster on few days.
 */
#define OB_DAYS	64

static void
ob_time(struct obuf *o, int64_t ms)
{
	static struct {
		int64_t	day;		/* -1: empty */
		char	date[11];	/* "YYYY-MM-DDT" */
		int	big;		/* year > 9999 */
	}		 cache[OB_DAYS];
	static int	 init;
	char		 d[48], *date;
	int64_t		 day, z, era, doe, yoe, doy, mp, y, m, dd;
	int		 sod, frac, k;

	if (ms <= 0) {
		OB_LIT(o, "null");
		return;
	}
	if (!init) {
		for (k = 0; k < OB_DAYS; k++)
			cache[k].day = -1;
		init = 1;
	}
	day = ms / 86400000;
	k = (int)(day % OB_DAYS);
	date = cache[k].date;
	if (cache[k].day != day) {
		cache[k].day = day;
		z = day + 719468;
		era = z / 146097;
		doe = z - era * 146097;
		yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
		doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
		mp = (5 * doy + 2) / 153;
		dd = doy - (153 * mp + 2) / 5 + 1;
		m = mp < 10 ? mp + 3 : mp - 9;
		y = yoe + era * 400 + (m <= 2);
		cache[k].big = y > 9999;
		if (!cache[k].big) {
			put2(date, (int)(y / 100));
			put2(date + 2, (int)(y % 100));
			date[4] = '-';
			put2(date + 5, (int)m);
			date[7] = '-';
			put2(date + 8, (int)dd);
			date[10] = 'T';
		}
	}
	if (cache[k].big) {
		rfc3339(ms, 1, d, sizeof d);	/* what printf made of it */
		ob_str(o, d);
		return;
	}
	sod = (int)(ms % 86400000 / 1000);
	frac = (int)(ms % 1000);
	d[0] = '"';
	memcpy(d + 1, date, 11);
	put2(d + 12, sod / 3600);
	d[14] = ':';
	put2(d + 15, sod / 60 % 60);
	d[17] = ':';
	put2(d + 18, sod % 60);
	d[20] = '.';
	d[21] = (char)('0' + frac / 100);
	put2(d + 22, frac % 100);
	d[24] = 'Z';
	d[25] = '"';
	ob_add(o, d, 26);
}

static void
json_string(struct obuf *o, const char *s, size_t len)
{
	static const char	hex[] = "0123456789abcdef";
	size_t			i, run;
	unsigned char		c;
	char			e[6];

	ob_add(o, "\"", 1);
	for (i = 0; i < len; i += run) {
		for (run = 0; i + run < len; run++) {
			c = (unsigned char)s[i + run];
			if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f)
				break;
		}
		ob_add(o, s + i, run);
		if (i + run == len)
			break;
		c = (unsigned char)s[i + run];
		e[0] = '\\';
		if (c == '"' || c == '\\') {
			e[1] = (char)c;
			ob_add(o, e, 2);
		} else if (c == '\n' || c == '\t') {
			e[1] = c == '\n' ? 'n' : 't';
			ob_add(o, e, 2);
		} else {
			memcpy(e, "\\u00", 4);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 0xf];
			ob_add(o, e, 6);
		}
		run++;
	}
	ob_add(o, "\"", 1);
}

static void
json_string_or_null(struct obuf *o, const char *s)
{
	if (s[0] == '\0')
		OB_LIT(o, "null");
	else
		json_string(o, s, strlen(s));
}

/* Bytes as lower-case hex, two digits each. */
static void
ob_hex(struct obuf *o, const uint8_t *p, size_t len)
{
	static const char	hex[] = "0123456789abcdef";
	char			d[2];
	size_t			i;

	for (i = 0; i < len; i++) {
		d[0] = hex[p[i] >> 4];
		d[1] = hex[p[i] & 0xf];
		ob_add(o, d, 2);
	}
}

static void
ob_hex64(struct obuf *o, uint64_t v)
{
	uint8_t	b[8];
	int	i;

	for (i = 7; i >= 0; i--) {
		b[i] = (uint8_t)v;
		v >>= 8;
	}
	ob_hex(o, b, sizeof b);
}

static void
print_json(struct status_walk *w, const char *name, size_t namelen)
{
	const struct cb_record	*r = &w->rec;
	const struct cb_histent	*h;
	struct obuf		*o = &ob;
	const char		*bit;
	size_t			 i, nfail;

	ob_str(o, w->n == 0 ? "[\n  {\"name\": " : ",\n  {\"name\": ");
	json_string(o, name, namelen);
	OB_LIT(o, ", \"state\": \"");
	ob_str(o, record_state_name(r->state));
	OB_LIT(o, "\", \"epoch\": ");
	ob_u64(o, r->epoch);
	OB_LIT(o, ", \"consecutive_failures\": ");
	ob_u64(o, r->consecutive_failures);
	OB_LIT(o, ", \"half_open_successes\": ");
	ob_u64(o, r->half_open_successes);
	OB_LIT(o, ", \"calls\": ");
	ob_u64(o, r->calls);
	OB_LIT(o, ", \"successes\": ");
	ob_u64(o, r->successes);
	OB_LIT(o, ", \"failures\": ");
	ob_u64(o, r->failures);
	OB_LIT(o, ", \"timeouts\": ");
	ob_u64(o, r->timeouts);
	OB_LIT(o, ", \"ignored\": ");
	ob_u64(o, r->ignored);
	OB_LIT(o, ", \"interrupted\": ");
	ob_u64(o, r->interrupted);
	OB_LIT(o, ", \"stale\": ");
	ob_u64(o, r->stale);
	OB_LIT(o, ", \"rejected\": ");
	ob_u64(o, r->rejected);
	OB_LIT(o, ", \"transitions\": {\"closed\": ");
	ob_u64(o, r->transitions[STATE_CLOSED]);
	OB_LIT(o, ", \"open\": ");
	ob_u64(o, r->transitions[STATE_OPEN]);
	OB_LIT(o, ", \"half-open\": ");
	ob_u64(o, r->transitions[STATE_HALF_OPEN]);
	OB_LIT(o, "}, \"created_at\": ");
	ob_time(o, r->created_at_ms);
	OB_LIT(o, ", \"changed_at\": ");
	ob_time(o, r->changed_at_ms);
	OB_LIT(o, ", \"opened_at\": ");
	ob_time(o, r->opened_at_ms);
	OB_LIT(o, ", \"open_until\": ");
	ob_time(o, r->state == STATE_OPEN ? r->open_until_ms : 0);
	OB_LIT(o, ", \"last_run_at\": ");
	ob_time(o, r->last_run_at_ms);
	OB_LIT(o, ", \"last_used_at\": ");
	ob_time(o, r->last_used_ms);
	OB_LIT(o, ", \"last_exit\": ");
	if (r->last_exit >= 0)
		ob_i64(o, r->last_exit);
	else
		OB_LIT(o, "null");
	OB_LIT(o, ", \"last_duration_ms\": ");
	if (r->last_duration_ms >= 0)
		ob_i64(o, r->last_duration_ms);
	else
		OB_LIT(o, "null");
	OB_LIT(o, ", \"cooldown_ms\": ");
	ob_i64(o, r->cooldown_ms);
	OB_LIT(o, ", \"reason\": ");
	json_string_or_null(o, r->reason);

	OB_LIT(o, ", \"probes\": [");
	for (i = 0; i < r->nslots; i++) {
		ob_str(o, i ? ", {\"token\": \"" : "{\"token\": \"");
		ob_hex64(o, r->slots[i].token);
		OB_LIT(o, "\", \"pid\": ");
		ob_i64(o, r->slots[i].pid);
		OB_LIT(o, ", \"start_time\": ");
		ob_u64(o, r->slots[i].start_time);
		OB_LIT(o, ", \"boot_id\": \"");
		ob_hex(o, r->slots[i].boot_id, sizeof r->slots[i].boot_id);
		OB_LIT(o, "\", \"lease_until\": ");
		ob_time(o, r->slots[i].lease_until_ms);
		OB_LIT(o, "}");
	}

	/* The rate window, oldest first, as 0 (success) / 1 (failure). */
	for (i = 0, nfail = 0; i < r->wlen; i++)
		nfail += (r->window[i / 8] >> (i % 8)) & 1;
	OB_LIT(o, "], \"window_calls\": ");
	ob_u64(o, r->wlen);
	OB_LIT(o, ", \"window_failures\": ");
	ob_u64(o, nfail);
	OB_LIT(o, ", \"window\": [");
	for (i = 0; i < r->wlen; i++) {
		bit = (r->window[i / 8] >> (i % 8)) & 1 ? ",1" : ",0";
		ob_add(o, i ? bit : bit + 1, i ? 2 : 1);
	}
	OB_LIT(o, "], \"failure_times\": [");
	for (i = 0; i < r->nfailtimes; i++) {
		if (i)
			OB_LIT(o, ", ");
		ob_time(o, r->failtimes[i]);
	}

	OB_LIT(o, "], \"runs\": [");
	for (i = 0; i < r->nruns; i++) {
		ob_str(o, i ? ", \"" : "\"");
		ob_str(o, mark_name(r->runs[i]));
		OB_LIT(o, "\"");
	}
	OB_LIT(o, "], \"history\": [");
	for (i = 0; i < r->nhist; i++) {
		h = &r->hist[i];
		ob_str(o, i ? ", {\"at\": " : "{\"at\": ");
		ob_time(o, h->at_ms);
		OB_LIT(o, ", \"from\": \"");
		ob_str(o, record_state_name(h->from));
		OB_LIT(o, "\", \"to\": \"");
		ob_str(o, record_state_name(h->to));
		OB_LIT(o, "\", \"reason\": ");
		json_string_or_null(o, h->reason);
		OB_LIT(o, ", \"user\": ");
		json_string_or_null(o, h->user);
		OB_LIT(o, "}");
	}
	OB_LIT(o, "]}");
}

static int
policy_of(struct cb_ctx *ctx, const char *name, struct cb_policy *p)
{
	struct policy_builder	b;
	struct cb_err		err;

	policy_init(&b);
	if (cmd_policy(ctx, name, &b) == -1)
		return -1;
	if (policy_finish(&b, p, &err) == -1) {
		cmd_warnx("%s: %s", name, err.msg);
		return -1;
	}
	return 0;
}

/* The effective policy in one line. */
static void
print_policy(FILE *f, const struct cb_policy *p)
{
	char	a[32], b[32];

	switch (p->trip_policy) {
	case TRIP_RATE:
		fprintf(f, "trip at %g%% failures of the last %u calls "
		    "(at least %u)", p->trip_failure_rate * 100,
		    p->trip_window, p->trip_min_calls);
		break;
	case TRIP_TIME:
		format_duration(p->trip_period_ms, a, sizeof a);
		fprintf(f, "trip after %u failure%s within %s",
		    p->trip_failures, p->trip_failures == 1 ? "" : "s", a);
		break;
	default:
		fprintf(f, "trip after %u consecutive failure%s",
		    p->trip_failures, p->trip_failures == 1 ? "" : "s");
		break;
	}
	format_duration(p->open_timeout_ms, a, sizeof a);
	fprintf(f, "; open %s", a);
	if (p->backoff != 1.0) {
		format_duration(p->max_open_timeout_ms, b, sizeof b);
		fprintf(f, ", x%g per failed probe up to %s", p->backoff, b);
	}
	if (p->jitter > 0)
		fprintf(f, ", jitter %g", p->jitter);
	fprintf(f, "; %u probe%s", p->half_open_max_calls,
	    p->half_open_max_calls == 1 ? "" : "s");
	if (p->timeout_ms > 0) {
		format_duration(p->timeout_ms, a, sizeof a);
		fprintf(f, "; timeout %s", a);
	}
	if (p->on_open == ON_OPEN_SKIP)
		fputs("; on open: skip (exit 0)\n", f);
	else
		fprintf(f, "; on open: fail (exit %d)\n", p->open_exit_code);
}

static void
print_strip(struct status_walk *w)
{
	static const char *const utf8[SM_COUNT] = {
		"\xe2\x9c\x93",		/* U+2713 check mark */
		"\xe2\x9c\x97",		/* U+2717 ballot x */
		"\xe2\x8f\xb1",		/* U+23F1 stopwatch */
		"\xc2\xb7",		/* U+00B7 middle dot */
		"\xe2\x8a\x98"		/* U+2298 circled division slash */
	};
	static const char *const ascii[SM_COUNT] = {
		"+", "x", "T", ".", "-"
	};
	static const char *const colour[SM_COUNT] = {
		C_GREEN, C_RED, C_RED, C_DIM, C_YELLOW
	};
	static const char *const legend[SM_COUNT] = {
		"success", "failure", "timeout",
		"ignored/interrupted/stale", "rejected"
	};
	const struct cb_record	*r = &w->rec;
	const char *const	*marks = w->utf8 ? utf8 : ascii;
	FILE			*f = w->out;
	enum strip_mark		 m;
	size_t			 i;

	label(f, "Runs");
	if (r->nruns == 0)
		fputs("none yet", f);
	for (i = 0; i < r->nruns; i++) {
		m = strip_mark(r->runs[i]);
		fprintf(f, "%s%s%s", w->colour ? colour[m] : "", marks[m],
		    w->colour ? C_RESET : "");
	}
	if (r->nruns == 0) {
		if (r->refused_since_run > 0)
			fprintf(f, " (%u refused)", r->refused_since_run);
		fputc('\n', f);
		return;
	}
	fprintf(f, "  (last %u, newest last", (unsigned)r->nruns);
	if (r->refused_since_run > 0)
		fprintf(f, "; %u refused since", r->refused_since_run);
	fputs(")\n", f);
	fprintf(f, "%*s", LABEL_W + 2, "");
	/* Refusals are a count, not marks, since record version 3. */
	for (i = 0; i < SM_REJECTED; i++)
		fprintf(f, "%s%s %s", i ? "  " : "", marks[i], legend[i]);
	fputc('\n', f);
}

/* When the breaker will next let a probe through. */
static void
print_next(struct status_walk *w, const struct cb_policy *p)
{
	const struct cb_record	*r = &w->rec;
	FILE			*f = w->out;
	char			 a[48], b[48];
	int64_t			 lease = 0;
	size_t			 i;

	label(f, "Next probe");
	switch (r->state) {
	case STATE_CLOSED:
		fputs("- (closed: every call runs)\n", f);
		break;
	case STATE_OPEN:
		retry_in(r, w->now, a, sizeof a);
		local_time(r->open_until_ms, b, sizeof b);
		if (strcmp(a, "now") == 0)
			fprintf(f, "now (cool-down ended %s; the next call "
			    "probes)\n", b);
		else
			fprintf(f, "in %s, at %s\n", a, b);
		break;
	default:
		if (r->nslots < p->half_open_max_calls) {
			fprintf(f, "now (half-open: %u of %u probes running, "
			    "%u of %u succeeded)\n", (unsigned)r->nslots,
			    p->half_open_max_calls, r->half_open_successes,
			    p->half_open_max_calls);
			break;
		}
		for (i = 0; i < r->nslots; i++)
			if (lease == 0 || r->slots[i].lease_until_ms < lease)
				lease = r->slots[i].lease_until_ms;
		local_time(lease, b, sizeof b);
		fprintf(f, "when a probe ends (half-open: %u of %u running, "
		    "first lease ends %s)\n", (unsigned)r->nslots,
		    p->half_open_max_calls, b);
		break;
	}
}

static void
print_history(struct status_walk *w)
{
	const struct cb_record	*r = &w->rec;
	const struct cb_histent	*h;
	FILE			*f = w->out;
	const char		*arrow = w->utf8 ? " \xe2\x86\x92 " : " -> ";
	char			 a[48], ft[32];
	size_t			 i;
	int			 n;

	if (r->nhist == 0) {
		fputs("\nTransitions: none yet\n", f);
		return;
	}
	fprintf(f, "\nTransitions (last %u, newest last):\n",
	    (unsigned)r->nhist);
	for (i = 0; i < r->nhist; i++) {
		h = &r->hist[i];
		local_time(h->at_ms, a, sizeof a);
		n = snprintf(ft, sizeof ft, "%s%s%s",
		    record_state_name(h->from), arrow,
		    record_state_name(h->to));
		/* Pad by columns, not bytes: the arrow is 3 bytes wide in
		 * UTF-8 and one column. */
		fprintf(f, "  %s  %s%*s  ", a, ft,
		    (w->utf8 ? 22 : 20) - n > 0 ? (w->utf8 ? 22 : 20) - n : 0,
		    "");
		put_text(f, h->reason);
		if (h->user[0] != '\0' && strstr(h->reason, h->user) == NULL) {
			fputs(" (by ", f);
			put_text(f, h->user);
			fputc(')', f);
		}
		fputc('\n', f);
	}
}

static int
print_detail(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	FILE			*f = w->out;
	struct cb_policy	 p;
	char			 a[48], b[48], c[48];

	if (policy_of(w->ctx, name, &p) == -1)
		return -1;
	fprintf(f, "%s%s%s %s%s%s - %s%s%s (epoch %llu)\n",
	    w->colour ? state_colour[r->state] : "",
	    w->utf8 ? "\xe2\x97\x8f" : "*", w->colour ? C_RESET : "",
	    w->colour ? C_BOLD : "", name, w->colour ? C_RESET : "",
	    w->colour ? state_colour[r->state] : "",
	    record_state_name(r->state), w->colour ? C_RESET : "",
	    (unsigned long long)r->epoch);

	label(f, "State");
	fprintf(f, "%s%s%s", w->colour ? state_colour[r->state] : "",
	    record_state_name(r->state), w->colour ? C_RESET : "");
	local_time(r->changed_at_ms, a, sizeof a);
	ago(w->now, r->changed_at_ms, b, sizeof b);
	fprintf(f, " since %s (%s)", a, b);
	if (r->transitions[STATE_CLOSED] + r->transitions[STATE_OPEN] +
	    r->transitions[STATE_HALF_OPEN] == 0)
		fputs(", when it was created", f);
	if (r->reason[0] != '\0') {
		fputs(": ", f);
		put_text(f, r->reason);
	}
	fputc('\n', f);

	print_next(w, &p);

	breaker_progress(r, &p, w->now, a, sizeof a);
	label(f, "Failures");
	fprintf(f, "%s toward tripping (%s)\n", a,
	    p.trip_policy == TRIP_RATE ? "rate" :
	    p.trip_policy == TRIP_TIME ? "time" : "consecutive");
	label(f, "Policy");
	print_policy(f, &p);

	print_strip(w);
	label(f, "Totals");
	fprintf(f, "%llu call%s: %llu success%s, %llu failure%s "
	    "(%llu timeout%s), %llu ignored, %llu interrupted, %llu stale; "
	    "%llu rejected\n",
	    (unsigned long long)r->calls, r->calls == 1 ? "" : "s",
	    (unsigned long long)r->successes, r->successes == 1 ? "" : "es",
	    (unsigned long long)r->failures, r->failures == 1 ? "" : "s",
	    (unsigned long long)r->timeouts, r->timeouts == 1 ? "" : "s",
	    (unsigned long long)r->ignored,
	    (unsigned long long)r->interrupted,
	    (unsigned long long)r->stale, (unsigned long long)r->rejected);
	label(f, "Last run");
	if (r->last_run_at_ms > 0) {
		local_time(r->last_run_at_ms, a, sizeof a);
		ago(w->now, r->last_run_at_ms, b, sizeof b);
		if (r->last_duration_ms >= 0)
			format_duration(r->last_duration_ms, c, sizeof c);
		else
			snprintf(c, sizeof c, "?");
		if (r->last_exit >= 0)
			fprintf(f, "%s (%s): exit %d after %s\n", a, b,
			    (int)r->last_exit, c);
		else
			fprintf(f, "%s (%s): no exit status, after %s\n", a,
			    b, c);
	} else
		fputs("none yet\n", f);
	print_history(w);
	return 0;
}

/*
 * The policy of a table row.  Every name that one config entry matches
 * (or that none does) has the same policy, so it is built once per entry,
 * not once per breaker: a million rows spent 40% of their time there.
 */
static const struct cb_policy *
row_policy(struct status_walk *w, const char *name)
{
	size_t	k;

	if (w->pol == NULL) {
		w->pol = xcalloc(w->ctx->cfg.nbreakers + 1, sizeof *w->pol);
		w->polset = xcalloc(w->ctx->cfg.nbreakers + 1, 1);
	}
	k = config_entry(&w->ctx->cfg, name);
	if (!w->polset[k]) {
		if (policy_of(w->ctx, name, &w->pol[k]) == -1)
			return NULL;
		w->polset[k] = 1;
	}
	return &w->pol[k];
}

static int
add_row(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	const struct cb_policy	*p;
	struct row		*row;

	if ((p = row_policy(w, name)) == NULL)
		return -1;
	if (w->nrows == w->caprows) {
		w->caprows = w->caprows ? w->caprows * 2 : 64;
		w->rows = xrealloc(w->rows, w->caprows * sizeof *w->rows);
	}
	row = &w->rows[w->nrows++];
	row->name = xstrdup(name);
	row->st = r->state;
	snprintf(row->state, sizeof row->state, "%s",
	    record_state_name(r->state));
	breaker_progress(r, p, w->now, row->failures, sizeof row->failures);
	snprintf(row->calls, sizeof row->calls, "%llu",
	    (unsigned long long)r->calls);
	snprintf(row->rejected, sizeof row->rejected, "%llu",
	    (unsigned long long)r->rejected);
	/* CHANGED: "-" for a breaker that never made a transition. */
	ago(w->now, r->transitions[STATE_CLOSED] + r->transitions[STATE_OPEN] +
	    r->transitions[STATE_HALF_OPEN] > 0 ? r->changed_at_ms : 0,
	    row->changed, sizeof row->changed);
	retry_in(r, w->now, row->retry, sizeof row->retry);
	return 0;
}

/*
 * A label value in the exposition format: \ " and newline escaped.  Done
 * once per breaker: its name appears in 23 samples.
 */
static char *
prom_label(const char *s)
{
	char	*e, *p;

	p = e = xmalloc(2 * strlen(s) + 1);
	for (; *s != '\0'; s++) {
		if (*s == '\\' || *s == '"' || *s == '\n') {
			*p++ = '\\';
			*p++ = *s == '\n' ? 'n' : *s;
		} else
			*p++ = *s;
	}
	*p = '\0';
	return e;
}

static void
add_prow(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	struct prow		*pr;

	if (w->nprows == w->capprows) {
		w->capprows = w->capprows ? w->capprows * 2 : 64;
		w->prows = xrealloc(w->prows, w->capprows * sizeof *w->prows);
	}
	pr = &w->prows[w->nprows++];
	memset(pr, 0, sizeof *pr);
	pr->name = prom_label(name);
	pr->namelen = strlen(pr->name);
	pr->st = r->state;
	pr->n[OUTCOME_SUCCESS] = r->successes;
	pr->n[OUTCOME_FAILURE] = r->failures;
	pr->n[OUTCOME_IGNORED] = r->ignored;
	pr->n[OUTCOME_INTERRUPTED] = r->interrupted;
	pr->n[OUTCOME_STALE] = r->stale;
	pr->n[OUTCOME_REJECTED] = r->rejected;
	pr->timeouts = r->timeouts;
	memcpy(pr->trans, r->transitions, sizeof pr->trans);
	pr->consecutive = r->consecutive_failures;
	pr->open_until_ms = r->state == STATE_OPEN ? r->open_until_ms : 0;
	pr->last_run_ms = r->last_run_at_ms;
}

static int
walk_cb(const char *key, size_t keylen, const uint8_t *data, size_t len,
    void *arg, struct cb_err *err)
{
	struct status_walk	*w = arg;
	char			 name[256];
	int			 i, match = w->npats == 0;

	if (keylen >= sizeof name)
		return 0;	/* not a name cbexec writes */
	memcpy(name, key, keylen);
	name[keylen] = '\0';
	for (i = 0; i < w->npats; i++) {
		if (strcmp(w->pats[i], name) == 0 ||
		    (has_glob(w->pats[i]) &&
		    fnmatch(w->pats[i], name, 0) == 0)) {
			w->hit[i] = 1;
			match = 1;
		}
	}
	if (!match)
		return 0;
	if (w->fmt == FMT_NAMES) {
		fprintf(w->out, "%s\n", name);
		w->n++;
		return 0;
	}
	if (cmd_decode(w->ctx, name, data, len, &w->rec, err) == -1)
		return -1;
	switch (w->fmt) {
	case FMT_JSON:
		print_json(w, name, keylen);
		break;
	case FMT_PROM:
		add_prow(w, name);
		break;
	case FMT_DETAIL:
		if (print_detail(w, name) == -1)
			goto fail;
		break;
	default:
		if (add_row(w, name) == -1)
			goto fail;
		break;
	}
	w->n++;
	return 0;
fail:
	err_set(err, "status of '%s' failed", name);
	return -1;
}

static void
print_table(struct status_walk *w)
{
	static const char	*hdr[] = { "NAME", "STATE", "FAILURES",
	    "CALLS", "REJECTED", "CHANGED", "RETRY-IN" };
	FILE			*f = w->out;
	size_t			 i, wd[7];
	struct row		*r;

	for (i = 0; i < 7; i++)
		wd[i] = strlen(hdr[i]);
	for (i = 0; i < w->nrows; i++) {
		r = &w->rows[i];
		if (strlen(r->name) > wd[0])
			wd[0] = strlen(r->name);
		if (strlen(r->failures) > wd[2])
			wd[2] = strlen(r->failures);
		if (strlen(r->calls) > wd[3])
			wd[3] = strlen(r->calls);
		if (strlen(r->rejected) > wd[4])
			wd[4] = strlen(r->rejected);
		if (strlen(r->changed) > wd[5])
			wd[5] = strlen(r->changed);
	}
	wd[1] = 9;
	fprintf(f, "%-*s  %-*s  %-*s  %*s  %*s  %-*s  %s\n", (int)wd[0],
	    hdr[0], (int)wd[1], hdr[1], (int)wd[2], hdr[2], (int)wd[3],
	    hdr[3], (int)wd[4], hdr[4], (int)wd[5], hdr[5], hdr[6]);
	for (i = 0; i < w->nrows; i++) {
		r = &w->rows[i];
		fprintf(f, "%-*s  %s%-*s%s  %-*s  %*s  %*s  %-*s  %s\n",
		    (int)wd[0], r->name, w->colour ? state_colour[r->st] : "",
		    (int)wd[1], r->state, w->colour ? C_RESET : "",
		    (int)wd[2], r->failures, (int)wd[3], r->calls,
		    (int)wd[4], r->rejected, (int)wd[5], r->changed,
		    r->retry);
	}
}

static void
prom_family(struct obuf *o, const char *metric, const char *type,
    const char *help)
{
	OB_LIT(o, "# HELP ");
	ob_str(o, metric);
	OB_LIT(o, " ");
	ob_str(o, help);
	OB_LIT(o, "\n# TYPE ");
	ob_str(o, metric);
	OB_LIT(o, " ");
	ob_str(o, type);
	OB_LIT(o, "\n");
}

/* metric{name="NAME"[,label="value"]} (name already escaped); the
 * metric is a literal, its length known at compile time. */
#define PROM_SAMPLE(o, metric, pr, label, value) \
	prom_sample_len((o), "" metric, sizeof(metric) - 1, (pr), (label), \
	    (value))

static void
prom_sample_len(struct obuf *o, const char *metric, size_t metriclen,
    const struct prow *pr, const char *label, const char *value)
{
	ob_add(o, metric, metriclen);
	OB_LIT(o, "{name=\"");
	ob_add(o, pr->name, pr->namelen);
	if (label != NULL) {
		OB_LIT(o, "\",");
		ob_str(o, label);
		OB_LIT(o, "=\"");
		ob_str(o, value);	/* a state or outcome: nothing to escape */
	}
	OB_LIT(o, "\"} ");
}

static void
prom_u64(struct obuf *o, uint64_t v)
{
	ob_u64(o, v);
	OB_LIT(o, "\n");
}

/* Unix seconds with milliseconds, "0" for none. */
static void
prom_time(struct obuf *o, int64_t ms)
{
	char	d[3];

	if (ms <= 0) {
		OB_LIT(o, "0\n");
		return;
	}
	ob_u64(o, (uint64_t)(ms / 1000));
	d[0] = '.';
	d[1] = (char)('0' + ms % 1000 / 100);
	d[2] = (char)('0' + ms % 100 / 10);
	ob_add(o, d, 3);
	d[0] = (char)('0' + ms % 10);
	d[1] = '\n';
	ob_add(o, d, 2);
}

static void
print_prom(struct status_walk *w)
{
	static const enum cb_outcome	 outs[] = { OUTCOME_SUCCESS,
	    OUTCOME_FAILURE, OUTCOME_IGNORED, OUTCOME_INTERRUPTED,
	    OUTCOME_STALE, OUTCOME_REJECTED };
	struct obuf			*o = &ob;
	const struct prow		*pr;
	size_t				 i, j;
	int				 s;

	prom_family(o, "cbexec_breaker_state", "gauge",
	    "Breaker state: 1 for the current state, 0 for the others.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		for (s = 0; s < STATE_COUNT; s++) {
			PROM_SAMPLE(o, "cbexec_breaker_state", pr,
			    "state", record_state_name((enum cb_state)s));
			prom_u64(o, pr->st == (enum cb_state)s);
		}
	}
	prom_family(o, "cbexec_calls_total", "counter",
	    "Guarded calls by outcome; rejected calls never ran.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		for (j = 0; j < sizeof outs / sizeof outs[0]; j++) {
			PROM_SAMPLE(o, "cbexec_calls_total", pr,
			    "outcome", breaker_outcome_name(outs[j]));
			prom_u64(o, pr->n[outs[j]]);
		}
	}
	prom_family(o, "cbexec_timeouts_total", "counter",
	    "Runs that timed out, also counted in cbexec_calls_total under "
	    "the outcome timeout_is gives them.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_timeouts_total", pr, NULL, NULL);
		prom_u64(o, pr->timeouts);
	}
	prom_family(o, "cbexec_transitions_total", "counter",
	    "Transitions by the state they entered.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		for (s = 0; s < STATE_COUNT; s++) {
			PROM_SAMPLE(o, "cbexec_transitions_total", pr,
			    "to", record_state_name((enum cb_state)s));
			prom_u64(o, pr->trans[s]);
		}
	}
	prom_family(o, "cbexec_consecutive_failures", "gauge",
	    "Failures in a row since the last success.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_consecutive_failures", pr, NULL, NULL);
		prom_u64(o, pr->consecutive);
	}
	prom_family(o, "cbexec_open_until_seconds", "gauge",
	    "When an open breaker lets the next probe through, as Unix "
	    "time; 0 when not open.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_open_until_seconds", pr, NULL, NULL);
		prom_time(o, pr->open_until_ms);
	}
	prom_family(o, "cbexec_last_run_timestamp_seconds", "gauge",
	    "When the last guarded run ended, as Unix time; 0 before the "
	    "first.");
	for (i = 0; i < w->nprows; i++) {
		pr = &w->prows[i];
		PROM_SAMPLE(o, "cbexec_last_run_timestamp_seconds", pr, NULL,
		    NULL);
		prom_time(o, pr->last_run_ms);
	}
}

/*
 * --output: a temporary file next to path (".NAME.XXXXXX", which a
 * textfile collector ignores since it does not end in .prom), mode 0644
 * so that a collector running as another user can read the result.
 */
static FILE *
output_open(const char *path, char **tmp)
{
	const char	*slash, *base;
	FILE		*f;
	int		 fd;

	slash = strrchr(path, '/');
	base = slash != NULL ? slash + 1 : path;
	if (base[0] == '\0') {
		cmd_warnx("status: --output '%s' names a directory", path);
		return NULL;
	}
	xasprintf(tmp, "%.*s.%s.XXXXXX", slash != NULL ?
	    (int)(slash - path + 1) : 0, path, base);
	if ((fd = mkstemp(*tmp)) == -1) {
		cmd_warn("cannot create '%s'", *tmp);
		goto fail;
	}
	if (fchmod(fd, 0644) == -1 || (f = fdopen(fd, "w")) == NULL) {
		cmd_warn("cannot set up '%s'", *tmp);
		(void)close(fd);
		(void)unlink(*tmp);
		goto fail;
	}
	return f;
fail:
	free(*tmp);
	*tmp = NULL;
	return NULL;
}

/* Flush, fsync and rename tmp over path (ok), or remove tmp (!ok). */
static int
output_close(FILE *f, char *tmp, const char *path, int ok)
{
	const char	*slash;
	char		*dir;
	int		 dfd;

	if (!ok)
		goto drop;
	if (fflush(f) == EOF || ferror(f) || fsync(fileno(f)) == -1) {
		cmd_warn("cannot write '%s'", tmp);
		goto drop;
	}
	if (fclose(f) == EOF) {
		f = NULL;
		cmd_warn("cannot write '%s'", tmp);
		goto drop;
	}
	f = NULL;
	if (rename(tmp, path) == -1) {
		cmd_warn("cannot rename '%s' to '%s'", tmp, path);
		goto drop;
	}
	/* Make the rename itself durable; failing here loses nothing. */
	slash = strrchr(path, '/');
	dir = slash == NULL ? xstrdup(".") : slash == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(slash - path));
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		(void)close(dfd);
	}
	free(dir);
	free(tmp);
	return 0;
drop:
	if (f != NULL)
		(void)fclose(f);
	(void)unlink(tmp);
	free(tmp);
	return -1;
}

/* UTF-8 marks only when the locale's character set is UTF-8. */
static int
locale_utf8(void)
{
	const char	*cs;

	if (setlocale(LC_CTYPE, "") == NULL)
		return 0;
	cs = nl_langinfo(CODESET);
	return cs != NULL && (strcasecmp(cs, "UTF-8") == 0 ||
	    strcasecmp(cs, "utf8") == 0);
}

/* Colour on a terminal only, and never with NO_COLOR or TERM=dumb. */
static int
want_colour(FILE *f)
{
	const char	*nc, *term;

	nc = getenv("NO_COLOR");
	term = getenv("TERM");
	return f == stdout && isatty(STDOUT_FILENO) &&
	    (nc == NULL || nc[0] == '\0') &&
	    (term == NULL || strcmp(term, "dumb") != 0);
}

static int
set_format(struct status_walk *w, enum status_format fmt, const char *opt)
{
	if (w->fmt != FMT_TABLE && w->fmt != fmt) {
		cmd_warnx("status: %s: only one of --json, --prometheus and "
		    "--names", opt);
		return -1;
	}
	w->fmt = fmt;
	return 0;
}

/* What cmd_status_exec's own getopt loop takes (for `help --options`). */
static const struct cmd_opt status_grammar[] = {
	{ "json",	0, 'j', no_argument },
	{ "names",	0, 'n', no_argument },
	{ "prometheus",	0, 'p', no_argument },
	{ "output",	0, 'O', required_argument },
	{ NULL,		0, 0,   0 }
};

static int
cmd_status_exec(struct cb_ctx *ctx, int argc, char **argv)
{
	static const struct option	 longopts[] = {
		{ "json",	no_argument,		NULL, 'j' },
		{ "names",	no_argument,		NULL, 'n' },
		{ "prometheus",	no_argument,		NULL, 'p' },
		{ "output",	required_argument,	NULL, 'O' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct status_walk		 w;
	struct cb_err			 err;
	struct store			*store;
	const char			*output = NULL;
	char				*tmp = NULL;
	size_t				 i;
	int				 ch, status = EXIT_OK;

	memset(&w, 0, sizeof w);
	w.ctx = ctx;
	w.fmt = FMT_TABLE;
	w.out = stdout;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			if (set_format(&w, FMT_JSON, "--json") == -1)
				return cmd_usage(&cmd_status_entry,
				    EXIT_USAGE);
			break;
		case 'n':
			if (set_format(&w, FMT_NAMES, "--names") == -1)
				return cmd_usage(&cmd_status_entry,
				    EXIT_USAGE);
			break;
		case 'p':
			if (set_format(&w, FMT_PROM, "--prometheus") == -1)
				return cmd_usage(&cmd_status_entry,
				    EXIT_USAGE);
			break;
		case 'O':
			if (optarg[0] == '\0') {
				cmd_warnx("status: --output needs a file "
				    "name");
				return cmd_usage(&cmd_status_entry,
				    EXIT_USAGE);
			}
			output = optarg;
			break;
		case 'h':
			printf("usage: cbexec status %s\n%s",
			    cmd_status_entry.usage, cmd_status_entry.help);
			return EXIT_OK;
		default:
			if (optopt == 'O')
				cmd_warnx("status: option '--output' needs "
				    "an argument");
			else
				cmd_warnx("status: unknown option '%s'",
				    argv[optind - 1]);
			return cmd_usage(&cmd_status_entry, EXIT_USAGE);
		}
	}
	w.pats = argv + optind;
	w.npats = argc - optind;
	for (i = 0; i < (size_t)w.npats; i++) {
		if (!has_glob(w.pats[i]) &&
		    name_valid(w.pats[i], &err) == -1) {
			cmd_warnx("%s", err.msg);
			return EXIT_USAGE;
		}
	}
	if (w.fmt == FMT_TABLE && w.npats == 1 && !has_glob(w.pats[0]))
		w.fmt = FMT_DETAIL;
	w.hit = xcalloc((size_t)w.npats + 1, sizeof *w.hit);
	w.now = clock_wall_ms();
	w.utf8 = locale_utf8();

	if (cmd_config(ctx) == -1) {
		free(w.hit);
		return EXIT_FAIL;
	}
	if (output != NULL && (w.out = output_open(output, &tmp)) == NULL) {
		free(w.hit);
		return EXIT_FAIL;
	}
	w.colour = want_colour(w.out);
	ob.f = w.out;
	store = cmd_store(ctx, 1, &err);
	if (store == NULL && err.code != CB_ERR_MISSING) {
		cmd_warnx("%s", err.msg);
		status = EXIT_FAIL;
		goto out;
	}
	if (store != NULL && store_each(store, walk_cb, &w, &err) == -1) {
		ob_flush(&ob);
		cmd_warnx("%s", err.msg);
		status = EXIT_FAIL;
		goto out;
	}
	if (w.fmt == FMT_JSON)
		ob_str(&ob, w.n == 0 ? "[]\n" : "\n]\n");
	else if (w.fmt == FMT_PROM)
		print_prom(&w);
	else if (w.fmt == FMT_TABLE && w.nrows > 0)
		print_table(&w);
	ob_flush(&ob);
	for (i = 0; i < (size_t)w.npats; i++) {
		if (!w.hit[i] && !has_glob(w.pats[i])) {
			cmd_warnx("no such breaker '%s'", w.pats[i]);
			status = EXIT_FAIL;
		}
	}
out:
	if (tmp != NULL) {
		/* A partial answer never replaces the last good file. */
		if (output_close(w.out, tmp, output, status == EXIT_OK) == -1)
			status = EXIT_FAIL;
	} else if (fflush(stdout) == EOF || ferror(stdout)) {
		cmd_warn("cannot write to standard output");
		status = EXIT_FAIL;
	}
	for (i = 0; i < w.nrows; i++)
		free(w.rows[i].name);
	free(w.rows);
	for (i = 0; i < w.nprows; i++)
		free(w.prows[i].name);
	free(w.prows);
	free(w.pol);
	free(w.polset);
	free(w.hit);
	return status;
}

const struct cmd_entry cmd_status_entry = {
	"status",
	"[--json | --prometheus | --names] [--output FILE] [NAME | GLOB ...]",
	"show breakers: a table, one in detail, JSON, Prometheus or names",
	"      --json          every field of every breaker, as a JSON array\n"
	"      --prometheus    metrics in the Prometheus text format (for\n"
	"                      node_exporter's textfile collector)\n"
	"      --names         names only, one a line\n"
	"      --output FILE   write to FILE atomically (temporary file,\n"
	"                      fsync, rename; mode 0644) instead of stdout\n"
	"One exact NAME shows that breaker in detail; GLOBs (fnmatch)\n"
	"filter.  Colour only on a terminal, never with NO_COLOR.\n",
	{ status_grammar, 0, -1, 0, NULL },
	0,
	NULL,
	NULL,
	cmd_status_exec
};
