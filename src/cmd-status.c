/*
 * cmd-status.c: `cbexec status [--json | --names] [NAME | GLOB ...]`, what
 * operators see.  A table by default, a detail view for one exact NAME,
 * JSON for scripts and names alone for completions.  Reads one snapshot of
 * the store and writes nothing.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "record.h"

enum status_format {
	FMT_TABLE,
	FMT_DETAIL,
	FMT_JSON,
	FMT_NAMES
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

struct status_walk {
	struct cb_ctx		 *ctx;
	enum status_format	  fmt;
	char			**pats;
	int			  npats;
	int			 *hit;		/* per pattern */
	int64_t			  now;
	size_t			  n;		/* records shown */
	struct row		 *rows;
	size_t			  nrows, caprows;
	struct cb_record	  rec;
};

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
	    quoted ? "\"" : "", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)frac, quoted ? "\"" : "");
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
		format_duration((ms + 999) / 1000 * 1000, buf, len);
}

/*
 * JSON is built by hand in one buffer per record and written with one
 * fwrite: `status --json` over a million breakers spent four fifths of its
 * time in printf's format parsing (see README, Performance).  The output is
 * byte for byte what the printf version wrote.
 */
struct jbuf {
	char	b[65536];
	size_t	n;
};

static struct jbuf	jb;	/* flushed after the walk */

static void
jb_flush(struct jbuf *j)
{
	if (j->n > 0)
		(void)fwrite(j->b, 1, j->n, stdout);
	j->n = 0;
}

static void
jb_add_slow(struct jbuf *j, const char *s, size_t len)
{
	size_t	k;

	while (len > 0) {
		if (j->n == sizeof j->b)
			jb_flush(j);
		k = sizeof j->b - j->n;
		if (k > len)
			k = len;
		memcpy(j->b + j->n, s, k);
		j->n += k;
		s += k;
		len -= k;
	}
}

static inline void
jb_add(struct jbuf *j, const char *s, size_t len)
{
	if (len > sizeof j->b - j->n) {
		jb_add_slow(j, s, len);
		return;
	}
	memcpy(j->b + j->n, s, len);
	j->n += len;
}

/* A string literal: its length known at compile time. */
#define JB_LIT(j, lit)	jb_add((j), "" lit, sizeof(lit) - 1)

static void
jb_str(struct jbuf *j, const char *s)
{
	jb_add(j, s, strlen(s));
}

static void
jb_u64(struct jbuf *j, uint64_t v)
{
	char	d[24], *p = d + sizeof d;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	jb_add(j, p, (size_t)(d + sizeof d - p));
}

static void
jb_i64(struct jbuf *j, int64_t v)
{
	if (v < 0) {
		jb_add(j, "-", 1);
		jb_u64(j, (uint64_t)0 - (uint64_t)v);
	} else
		jb_u64(j, (uint64_t)v);
}

static void
put2(char *p, int v)
{
	p[0] = (char)('0' + v / 10 % 10);
	p[1] = (char)('0' + v % 10);
}

/*
 * rfc3339(ms, 1, ...) into the buffer, UTC by arithmetic (H. Hinnant's
 * days-to-civil), skipping gmtime_r's time zone lock and lookup.  Dates
 * are remembered in a small table by day, as a store's times cluster on
 * few days.
 */
#define JB_DAYS	64

static void
jb_time(struct jbuf *j, int64_t ms)
{
	static struct {
		int64_t	day;		/* -1: empty */
		char	date[11];	/* "YYYY-MM-DDT" */
		int	big;		/* year > 9999 */
	}		 cache[JB_DAYS];
	static int	 init;
	char		 d[48], *date;
	int64_t		 day, z, era, doe, yoe, doy, mp, y, m, dd;
	int		 sod, frac, k;

	if (ms <= 0) {
		JB_LIT(j, "null");
		return;
	}
	if (!init) {
		for (k = 0; k < JB_DAYS; k++)
			cache[k].day = -1;
		init = 1;
	}
	day = ms / 86400000;
	k = (int)(day % JB_DAYS);
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
		jb_str(j, d);
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
	jb_add(j, d, 26);
}

static void
jb_json_string(struct jbuf *j, const char *s, size_t len)
{
	static const char	hex[] = "0123456789abcdef";
	size_t			i, run;
	unsigned char		c;
	char			e[6];

	jb_add(j, "\"", 1);
	for (i = 0; i < len; i += run) {
		for (run = 0; i + run < len; run++) {
			c = (unsigned char)s[i + run];
			if (c == '"' || c == '\\' || c < 0x20 || c == 0x7f)
				break;
		}
		jb_add(j, s + i, run);
		if (i + run == len)
			break;
		c = (unsigned char)s[i + run];
		if (c == '"' || c == '\\') {
			e[0] = '\\';
			e[1] = (char)c;
			jb_add(j, e, 2);
		} else {
			memcpy(e, "\\u00", 4);
			e[4] = hex[c >> 4];
			e[5] = hex[c & 0xf];
			jb_add(j, e, 6);
		}
		run++;
	}
	jb_add(j, "\"", 1);
}

static void
print_json(struct status_walk *w, const char *name, size_t namelen)
{
	struct jbuf		*j = &jb;
	const struct cb_record	*r = &w->rec;
	size_t			 i;

	jb_str(j, w->n == 0 ? "[\n  {\"name\": " : ",\n  {\"name\": ");
	jb_json_string(j, name, namelen);
	JB_LIT(j, ", \"state\": \"");
	jb_str(j, record_state_name(r->state));
	JB_LIT(j, "\", \"epoch\": ");
	jb_u64(j, r->epoch);
	JB_LIT(j, ", \"consecutive_failures\": ");
	jb_u64(j, r->consecutive_failures);
	JB_LIT(j, ", \"half_open_successes\": ");
	jb_u64(j, r->half_open_successes);
	JB_LIT(j, ", \"calls\": ");
	jb_u64(j, r->calls);
	JB_LIT(j, ", \"successes\": ");
	jb_u64(j, r->successes);
	JB_LIT(j, ", \"failures\": ");
	jb_u64(j, r->failures);
	JB_LIT(j, ", \"timeouts\": ");
	jb_u64(j, r->timeouts);
	JB_LIT(j, ", \"ignored\": ");
	jb_u64(j, r->ignored);
	JB_LIT(j, ", \"interrupted\": ");
	jb_u64(j, r->interrupted);
	JB_LIT(j, ", \"stale\": ");
	jb_u64(j, r->stale);
	JB_LIT(j, ", \"rejected\": ");
	jb_u64(j, r->rejected);
	JB_LIT(j, ", \"transitions\": {\"closed\": ");
	jb_u64(j, r->transitions[STATE_CLOSED]);
	JB_LIT(j, ", \"open\": ");
	jb_u64(j, r->transitions[STATE_OPEN]);
	JB_LIT(j, ", \"half-open\": ");
	jb_u64(j, r->transitions[STATE_HALF_OPEN]);
	JB_LIT(j, "}, \"created_at\": ");
	jb_time(j, r->created_at_ms);
	JB_LIT(j, ", \"changed_at\": ");
	jb_time(j, r->changed_at_ms);
	JB_LIT(j, ", \"opened_at\": ");
	jb_time(j, r->opened_at_ms);
	JB_LIT(j, ", \"open_until\": ");
	jb_time(j, r->state == STATE_OPEN ? r->open_until_ms : 0);
	JB_LIT(j, ", \"last_run_at\": ");
	jb_time(j, r->last_run_at_ms);
	JB_LIT(j, ", \"last_used_at\": ");
	jb_time(j, r->last_used_ms);
	JB_LIT(j, ", \"last_exit\": ");
	if (r->last_exit >= 0)
		jb_i64(j, r->last_exit);
	else
		JB_LIT(j, "null");
	JB_LIT(j, ", \"last_duration_ms\": ");
	if (r->last_duration_ms >= 0)
		jb_i64(j, r->last_duration_ms);
	else
		JB_LIT(j, "null");
	JB_LIT(j, ", \"cooldown_ms\": ");
	jb_i64(j, r->cooldown_ms);
	JB_LIT(j, ", \"reason\": ");
	if (r->reason[0] != '\0')
		jb_json_string(j, r->reason, strlen(r->reason));
	else
		JB_LIT(j, "null");
	JB_LIT(j, ", \"probes\": [");
	for (i = 0; i < r->nslots; i++) {
		jb_str(j, i ? ", {\"pid\": " : "{\"pid\": ");
		jb_i64(j, r->slots[i].pid);
		JB_LIT(j, ", \"lease_until\": ");
		jb_time(j, r->slots[i].lease_until_ms);
		JB_LIT(j, "}");
	}
	JB_LIT(j, "], \"window_calls\": ");
	jb_u64(j, r->wlen);
	JB_LIT(j, ", \"failure_times\": ");
	jb_u64(j, r->nfailtimes);
	JB_LIT(j, "}");
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

static int
print_detail(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	struct cb_policy	 p;
	char			 a[48], b[48], c[48], d[48];

	if (policy_of(w->ctx, name, &p) == -1)
		return -1;
	printf("%s: %s (epoch %llu)\n", name, record_state_name(r->state),
	    (unsigned long long)r->epoch);
	rfc3339(r->changed_at_ms, 0, a, sizeof a);
	ago(w->now, r->changed_at_ms, b, sizeof b);
	printf("  changed:  %s, %s", a, b);
	if (r->reason[0] != '\0')
		printf(": %s", r->reason);
	putchar('\n');
	if (r->state == STATE_OPEN) {
		retry_in(r, w->now, a, sizeof a);
		rfc3339(r->open_until_ms, 0, b, sizeof b);
		printf("  retry in: %s (open until %s)\n", a, b);
	} else if (r->state == STATE_HALF_OPEN)
		printf("  probes:   %u of %u running, %u of %u succeeded\n",
		    (unsigned)r->nslots, p.half_open_max_calls,
		    r->half_open_successes, p.half_open_max_calls);
	breaker_progress(r, &p, w->now, a, sizeof a);
	format_duration(p.open_timeout_ms, b, sizeof b);
	format_duration(p.max_open_timeout_ms, c, sizeof c);
	printf("  failures: %s (%s)\n", a, p.trip_policy == TRIP_RATE ?
	    "rate" : p.trip_policy == TRIP_TIME ? "time" : "consecutive");
	printf("  policy:   open %s, x%g per failed probe up to %s, "
	    "%u probe%s\n", b, p.backoff, c, p.half_open_max_calls,
	    p.half_open_max_calls == 1 ? "" : "s");
	printf("  calls:    %llu (%llu success, %llu failure, %llu timeout, "
	    "%llu ignored, %llu interrupted, %llu stale), %llu rejected\n",
	    (unsigned long long)r->calls, (unsigned long long)r->successes,
	    (unsigned long long)r->failures, (unsigned long long)r->timeouts,
	    (unsigned long long)r->ignored,
	    (unsigned long long)r->interrupted,
	    (unsigned long long)r->stale, (unsigned long long)r->rejected);
	if (r->last_run_at_ms > 0) {
		rfc3339(r->last_run_at_ms, 0, a, sizeof a);
		ago(w->now, r->last_run_at_ms, b, sizeof b);
		format_duration(r->last_duration_ms, c, sizeof c);
		snprintf(d, sizeof d, "%d", (int)r->last_exit);
		printf("  last run: %s, %s: exit %s after %s\n", a, b, d, c);
	}
	return 0;
}

static int
add_row(struct status_walk *w, const char *name)
{
	const struct cb_record	*r = &w->rec;
	struct cb_policy	 p;
	struct row		*row;

	if (policy_of(w->ctx, name, &p) == -1)
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
	breaker_progress(r, &p, w->now, row->failures, sizeof row->failures);
	snprintf(row->calls, sizeof row->calls, "%llu",
	    (unsigned long long)r->calls);
	snprintf(row->rejected, sizeof row->rejected, "%llu",
	    (unsigned long long)r->rejected);
	ago(w->now, r->changed_at_ms, row->changed, sizeof row->changed);
	retry_in(r, w->now, row->retry, sizeof row->retry);
	return 0;
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
		printf("%s\n", name);
		w->n++;
		return 0;
	}
	if (cmd_decode(w->ctx, name, data, len, &w->rec, err) == -1)
		return -1;
	switch (w->fmt) {
	case FMT_JSON:
		print_json(w, name, keylen);
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
	static const char	*colour[] = { "\033[32m", "\033[31m",
	    "\033[33m" };
	const char		*nc;
	size_t			 i, wd[7];
	struct row		*r;
	int			 tty;

	nc = getenv("NO_COLOR");
	tty = isatty(STDOUT_FILENO) && (nc == NULL || nc[0] == '\0');
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
	printf("%-*s  %-*s  %-*s  %*s  %*s  %-*s  %s\n", (int)wd[0], hdr[0],
	    (int)wd[1], hdr[1], (int)wd[2], hdr[2], (int)wd[3], hdr[3],
	    (int)wd[4], hdr[4], (int)wd[5], hdr[5], hdr[6]);
	for (i = 0; i < w->nrows; i++) {
		r = &w->rows[i];
		printf("%-*s  %s%-*s%s  %-*s  %*s  %*s  %-*s  %s\n",
		    (int)wd[0], r->name, tty ? colour[r->st] : "",
		    (int)wd[1], r->state, tty ? "\033[0m" : "",
		    (int)wd[2], r->failures, (int)wd[3], r->calls,
		    (int)wd[4], r->rejected, (int)wd[5], r->changed,
		    r->retry);
	}
}

static int
cmd_status_exec(struct cb_ctx *ctx, int argc, char **argv)
{
	static const struct option	 longopts[] = {
		{ "json",	no_argument,	NULL, 'j' },
		{ "names",	no_argument,	NULL, 'n' },
		{ "help",	no_argument,	NULL, 'h' },
		{ NULL,		0,		NULL, 0 }
	};
	struct status_walk		 w;
	struct cb_err			 err;
	struct store			*store;
	size_t				 i;
	int				 ch, missing, status = EXIT_OK;

	memset(&w, 0, sizeof w);
	w.ctx = ctx;
	w.fmt = FMT_TABLE;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			w.fmt = FMT_JSON;
			break;
		case 'n':
			w.fmt = FMT_NAMES;
			break;
		case 'h':
			printf("usage: cbexec status %s\n%s",
			    cmd_status_entry.usage, cmd_status_entry.help);
			return EXIT_OK;
		default:
			cmd_warnx("status: unknown option '%s'",
			    argv[optind - 1]);
			return cmd_usage(&cmd_status_entry, EXIT_USAGE);
		}
	}
	w.pats = argv + optind;
	w.npats = argc - optind;
	for (i = 0; i < (size_t)w.npats; i++) {
		if (!has_glob(w.pats[i]) &&
		    cmd_name_valid(w.pats[i], &err) == -1) {
			cmd_warnx("%s", err.msg);
			return EXIT_USAGE;
		}
	}
	if (w.fmt == FMT_TABLE && w.npats == 1 && !has_glob(w.pats[0]))
		w.fmt = FMT_DETAIL;
	w.hit = xcalloc((size_t)w.npats + 1, sizeof *w.hit);
	w.now = clock_wall_ms();

	if (cmd_config(ctx) == -1) {
		free(w.hit);
		return EXIT_FAIL;
	}
	store = cmd_store(ctx, 1, &missing, &err);
	if (store == NULL && !missing) {
		cmd_warnx("%s", err.msg);
		status = EXIT_FAIL;
		goto out;
	}
	if (store != NULL && store_each(store, walk_cb, &w, &err) == -1) {
		jb_flush(&jb);
		cmd_warnx("%s", err.msg);
		status = EXIT_FAIL;
		goto out;
	}
	jb_flush(&jb);
	if (w.fmt == FMT_JSON)
		printf("%s\n", w.n == 0 ? "[]" : "\n]");
	else if (w.fmt == FMT_TABLE && w.nrows > 0)
		print_table(&w);
	for (i = 0; i < (size_t)w.npats; i++) {
		if (!w.hit[i] && !has_glob(w.pats[i])) {
			cmd_warnx("no such breaker '%s'", w.pats[i]);
			status = EXIT_FAIL;
		}
	}
out:
	for (i = 0; i < w.nrows; i++)
		free(w.rows[i].name);
	free(w.rows);
	free(w.hit);
	return status;
}

const struct cmd_entry cmd_status_entry = {
	"status",
	"[--json | --names] [NAME | GLOB ...]",
	"show breakers: a table, one in detail, JSON or names",
	"      --json   every field of every breaker, as a JSON array\n"
	"      --names  names only, one a line\n"
	"One exact NAME shows that breaker in detail; GLOBs (fnmatch) filter.\n",
	cmd_status_exec
};
