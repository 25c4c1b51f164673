/* SPDX-License-Identifier: ISC */
/*
 * busy.c: what run and acquire share of the bulkhead (SPEC 2b) and the
 * rate limit (SPEC 2d) beyond the breaker itself: the refusal lines (who
 * holds the run slots; when the next turn comes), and the --wait loop's
 * clock.  A rate limited call waits only when its turn comes within the
 * wait, and then sleeps until it.  A busy call waits by sleeping (at most a
 * second at a time, SIGINT, SIGTERM, SIGHUP or SIGQUIT ending the sleep)
 * and then asking the store again, whose own locking is all it ever
 * blocks on: never a busy loop.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "esc.h"
#include "spawn.h"

/* The most a wait sleeps before asking the store again. */
#define BUSY_MOST_MS	1000
#define BUSY_LINE_MAX	1024

/* Append to line at *off, bounded; a line cut short stays a line. */
static void __attribute__((format(printf, 3, 4)))
add(char *line, size_t *off, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	if (*off >= BUSY_LINE_MAX)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line + *off, BUSY_LINE_MAX - *off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	*off += (size_t)n < BUSY_LINE_MAX - *off ? (size_t)n :
	    BUSY_LINE_MAX - *off - 1;
}

void
busy_refusal(struct cb_ctx *ctx, const char *name, const struct cb_ticket *t)
{
	const struct cb_slot	*s;
	char			 line[BUSY_LINE_MAX], at[32];
	char			 host[RECORD_HOST_MAX];
	size_t			 off = 0;
	unsigned		 i;

	if (ctx->quiet)
		return;
	clock_host_name(host, sizeof host);
	line[0] = '\0';
	add(line, &off, "%s: busy, %u of %u running", esc(name), t->nrunning,
	    t->max_running);
	for (i = 0; i < t->nholders; i++) {
		s = &t->holders[i];
		cmd_clock(s->since_ms, at, sizeof at);
		add(line, &off, "%s", i == 0 ? " (" : ", ");
		if (s->pid > 0)
			add(line, &off, "pid %d", (int)s->pid);
		else
			add(line, &off, "a token");
		/* A pid of another PID namespace (a container): which one. */
		if (s->pid > 0 && s->pidns != 0 && s->pidns != cmd_pidns(ctx))
			add(line, &off, " in pid:[%llu]",
			    (unsigned long long)s->pidns);
		/* The host only when it is another: a fleet store's slot. */
		if (s->host[0] != '\0' &&
		    strncmp(s->host, host, sizeof s->host) != 0)
			add(line, &off, " on %s", esc_n(s->host,
			    strnlen(s->host, sizeof s->host)));
		add(line, &off, " since %s", at);
	}
	if (t->nholders > 0 && t->nholders < t->nrunning)
		add(line, &off, ", ...");
	if (t->nholders > 0)
		add(line, &off, ")");
	cmd_warnx("%s", line);
}

void
busy_wait_start(struct busy_wait *w, int64_t wait_ms)
{
	w->deadline_ms = wait_ms > 0 ? clock_mono_ms() + wait_ms : 0;
	w->step_ms = BUSY_WAIT_FIRST_MS;
}

int
busy_wait_left(const struct busy_wait *w)
{
	return w->deadline_ms > 0 && clock_mono_ms() < w->deadline_ms;
}

int
busy_wait_sleep(struct busy_wait *w, struct cb_err *err)
{
	int64_t	left, ms;

	left = w->deadline_ms - clock_mono_ms();
	if (left <= 0)
		return 0;
	ms = w->step_ms < left ? w->step_ms : left;
	if (w->step_ms < BUSY_MOST_MS)
		w->step_ms = w->step_ms * 2 < BUSY_MOST_MS ? w->step_ms * 2 :
		    BUSY_MOST_MS;
	return spawn_sleep(ms, err);
}

int64_t
busy_wait_left_ms(const struct busy_wait *w)
{
	int64_t	left;

	if (w->deadline_ms <= 0)
		return 0;
	left = w->deadline_ms - clock_mono_ms();
	return left > 0 ? left : 0;
}

int
busy_retry(const struct busy_wait *w, const struct cb_ticket *t)
{
	if (t->admitted)
		return 0;
	if (t->rate_limited)
		return t->retry_in_ms <= busy_wait_left_ms(w);
	return t->busy && busy_wait_left(w);
}

int
busy_sleep(struct busy_wait *w, const struct cb_ticket *t, struct cb_err *err)
{
	if (t->rate_limited)
		return spawn_sleep(t->retry_in_ms, err);
	return busy_wait_sleep(w, err);
}

void
rate_refusal(struct cb_ctx *ctx, const char *name, const struct cb_ticket *t)
{
	char	next[32];

	if (ctx->quiet)
		return;
	breaker_rate_wait_text(t->retry_in_ms, next, sizeof next);
	cmd_warnx("%s: rate limited (%s); next call in %s", esc(name), t->why,
	    next);
}

int
busy_wait_arg(const char *what, const char *arg, int64_t *ms)
{
	struct cb_err	err;

	if (parse_duration(arg, ms, &err) == -1) {
		cmd_warnx("%s: --wait: %s", what, err.msg);
		return -1;
	}
	return 0;
}
