/* SPDX-License-Identifier: ISC */
/*
 * gen.c: write a state file with N breakers for the scale benchmark, through
 * cbexec's own store (store-lmdb.c) and record encoding (record.c), so the
 * file has exactly the layout, flags and map growth cbexec gives it.  Each
 * breaker is one store_update(), as cbexec would create it, in a shuffled
 * order (a fleet does not name its jobs in sorted order); the file is opened
 * with sync = none, which changes what reaches the disk when, not what the
 * file holds.  Names are PREFIX-%07u; the records look like closed breakers
 * that have run a while (counts, last run, last exit, last success, the
 * whole snapshot of the built-in policy, who ran it: what every run writes
 * since record format 4).
 *
 *	gen STATE N [PREFIX]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record.h"
#include "store.h"
#include "util.h"

struct gen {
	uint32_t	i;
	int64_t		now_ms;
};

static int
gcd_ok(uint64_t a, uint64_t b)
{
	uint64_t	t;

	while (b != 0) {
		t = a % b;
		a = b;
		b = t;
	}
	return a == 1;
}

static int
gen_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out, void *arg,
    struct cb_err *err)
{
	const struct gen	*g = arg;
	struct cb_record	 r;

	(void)old;
	(void)oldlen;
	(void)err;
	record_init(&r, g->now_ms - 86400000 - g->i % 86400000);
	r.calls = r.successes = 1 + g->i % 5000;
	r.last_run_at_ms = r.last_used_ms = g->now_ms - g->i % 3600000;
	r.last_success_ms = r.last_run_at_ms;
	r.last_exit = 0;
	r.last_duration_ms = 100 + g->i % 900;
	r.identity = (uint64_t)g->i * 0x9e3779b97f4a7c15ULL;
	r.policy.set = r.policy.full = 1;
	r.policy.trip_failures = 5;
	r.policy.trip_period_ms = 60000;
	r.policy.trip_window = 20;
	r.policy.trip_min_calls = 10;
	r.policy.trip_failure_rate = 0.5;
	r.policy.open_timeout_ms = 60000;
	r.policy.max_open_timeout_ms = 600000;
	r.policy.backoff = 2.0;
	r.policy.half_open_max_calls = 1;
	snprintf(r.last_run_by.user, sizeof r.last_run_by.user, "www-data");
	snprintf(r.last_run_by.host, sizeof r.last_run_by.host, "web-%02u",
	    g->i % 100);
	snprintf(r.last_run_by.argv0, sizeof r.last_run_by.argv0,
	    "/usr/local/bin/job-%u", g->i % 1000);
	record_encode(&r, out);
	return STORE_PUT;
}

int
main(int argc, char **argv)
{
	struct store_opts	 opts;
	struct store		*s;
	struct cb_err		 err;
	struct timespec		 ts;
	struct gen		 g;
	const char		*prefix;
	char			 name[64];
	uint64_t		 n, k, a;

	if (argc < 3 || (n = strtoull(argv[2], NULL, 10)) == 0 ||
	    n > 100000000) {
		fprintf(stderr, "usage: gen STATE N [PREFIX]\n");
		return 2;
	}
	prefix = argc > 3 ? argv[3] : "bench";
	memset(&opts, 0, sizeof opts);
	opts.path = argv[1];
	opts.mode = 0600;
	opts.sync = STORE_SYNC_NONE;
	opts.keep_open = 1;
	if ((s = store_lmdb_open(&opts, &err)) == NULL) {
		fprintf(stderr, "gen: %s\n", err.msg);
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	g.now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;

	/* k -> (a * k) mod n visits every index once when gcd(a, n) = 1. */
	for (a = 2654435761u % n; a < 2 || gcd_ok(a, n) == 0; a++)
		;
	for (k = 0; k < n; k++) {
		g.i = (uint32_t)((a * k) % n);
		snprintf(name, sizeof name, "%s-%07u", prefix, g.i);
		if (store_update(s, name, gen_cb, &g, &err) == -1) {
			fprintf(stderr, "gen: %s\n", err.msg);
			store_close(s);
			return 1;
		}
	}
	store_close(s);
	return 0;
}
