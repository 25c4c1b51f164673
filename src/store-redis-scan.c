/* SPDX-License-Identifier: ISC */
/*
 * store-redis-scan.c: the fleet store's walks over every key under the
 * prefix (store-redis.c): SCAN, sorted and without its duplicates, then
 * MGET in batches for each(); gc's prune() and the max_records eviction
 * after a creation on top of it, both deleting a record only if it still
 * holds the bytes they judged (a conditional delete through the
 * optimistic update).  One of the three files that include hiredis.h
 * (store-redis-int.h).
 */
#include <sys/types.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "clock.h"
#include "store.h"
#include "store-redis-int.h"
#include "units.h"
#include "util.h"

/* Keys per SCAN step and per MGET. */
#define REDIS_SCAN_COUNT	"500"
#define REDIS_MGET_BATCH	200

/*
 * A walk is bounded by one deadline, sr->walk_deadline, so that a server
 * that never returns cursor 0 (or a DBSIZE that would allow 72 hours of
 * steps) cannot make status or gc run for ever: scan_timeout for status
 * and gc, store_timeout for eviction on the run path (SPEC 9).  Every
 * command of the walk ends by it too (redis_begin).
 */

struct redis_name {
	char	*key;
	size_t	 len;
};

static int
name_cmp(const void *a, const void *b)
{
	const struct redis_name	*x = a, *y = b;
	size_t			 n;
	int			 c;

	n = x->len < y->len ? x->len : y->len;
	if ((c = memcmp(x->key, y->key, n)) != 0)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/* The SCAN MATCH pattern: the prefix with glob bytes escaped, then '*'. */
static char *
redis_pattern(const struct store_redis *sr)
{
	char	*pat, *p;
	size_t	 i;

	p = pat = xmalloc(2 * sr->prefixlen + 2);
	for (i = 0; i < sr->prefixlen; i++) {
		if (strchr("*?[]\\", sr->key.data[i]) != NULL)
			*p++ = '\\';
		*p++ = (char)sr->key.data[i];
	}
	*p++ = '*';
	*p = '\0';
	return pat;
}

/* Start a walk of at most ms; redis_walk_end ends it. */
static void
redis_walk_start(struct store_redis *sr, int64_t ms)
{
	sr->walk_deadline = clock_mono_ms() + ms;
}

static void
redis_walk_end(struct store_redis *sr)
{
	sr->walk_deadline = 0;
}

/* The walk is late: say so, whatever the command that was cut said. */
static void
redis_walk_late(struct store_redis *sr, const char *what, int64_t ms,
    struct cb_err *err)
{
	char	d[32];

	format_duration(ms, d, sizeof d);
	err_set(err, "%s in state '%s': SCAN did not end within %s", what,
	    sr->s.path, d);
	sr->s.down = 1;
	sr->timedout = 1;
}

/* DBSIZE: the keys of the database, or -1 after filling err. */
static long long
redis_dbsize(struct store_redis *sr, const char *what, struct cb_err *err)
{
	const char	*argv[1] = { "DBSIZE" };
	redisReply	*r;
	long long	 k;

	if ((r = redis_call(sr, what, 1, argv, NULL, err)) == NULL)
		return -1;
	if (r->type != REDIS_REPLY_INTEGER || r->integer < 0) {
		redis_bad_reply(sr, what, r, err);
		k = -1;
	} else
		k = r->integer;
	freeReplyObject(r);
	return k;
}

/*
 * Every key under the prefix, sorted, without SCAN's duplicates, within
 * the walk's deadline (sr->walk_deadline, set to ms from its start).
 */
static int
redis_scan(struct store_redis *sr, int64_t ms, struct redis_name **namesp,
    size_t *np, struct cb_err *err)
{
	static const char	 what[] = "cannot list breakers";
	struct redis_name	*names = NULL;
	redisReply		*r, *keys;
	const char		*argv[6];
	char			 cursor[32], *pat;
	size_t			 n = 0, cap = 0, i, j;
	int			 rc = -1;

	pat = redis_pattern(sr);
	snprintf(cursor, sizeof cursor, "0");
	for (;;) {
		if (clock_mono_ms() >= sr->walk_deadline) {
			redis_walk_late(sr, what, ms, err);
			goto out;
		}
		argv[0] = "SCAN";
		argv[1] = cursor;
		argv[2] = "MATCH";
		argv[3] = pat;
		argv[4] = "COUNT";
		argv[5] = REDIS_SCAN_COUNT;
		if ((r = redis_call(sr, what, 6, argv, NULL, err)) == NULL) {
			if (sr->timedout &&
			    clock_mono_ms() >= sr->walk_deadline)
				redis_walk_late(sr, what, ms, err);
			goto out;
		}
		if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
		    r->element[0]->type != REDIS_REPLY_STRING ||
		    r->element[0]->len >= sizeof cursor ||
		    r->element[1]->type != REDIS_REPLY_ARRAY) {
			redis_bad_reply(sr, what, r, err);
			freeReplyObject(r);
			goto out;
		}
		memcpy(cursor, r->element[0]->str, r->element[0]->len);
		cursor[r->element[0]->len] = '\0';
		keys = r->element[1];
		for (i = 0; i < keys->elements; i++) {
			if (keys->element[i]->type != REDIS_REPLY_STRING ||
			    keys->element[i]->len <= sr->prefixlen)
				continue;
			if (n == cap) {
				cap = cap == 0 ? 64 : cap * 2;
				names = xrealloc(names, cap * sizeof *names);
			}
			names[n].len = keys->element[i]->len;
			names[n].key = xmalloc(names[n].len);
			memcpy(names[n].key, keys->element[i]->str,
			    names[n].len);
			n++;
		}
		freeReplyObject(r);
		if (strcmp(cursor, "0") == 0)
			break;
	}
	if (n > 1) {
		qsort(names, n, sizeof *names, name_cmp);
		for (i = 1, j = 1; i < n; i++) {
			if (name_cmp(&names[i], &names[j - 1]) == 0)
				free(names[i].key);
			else
				names[j++] = names[i];
		}
		n = j;
	}
	rc = 0;
out:
	free(pat);
	if (rc == -1) {
		for (i = 0; i < n; i++)
			free(names[i].key);
		free(names);
		names = NULL;
		n = 0;
	}
	*namesp = names;
	*np = n;
	return rc;
}

int
redis_each(struct store *s, store_each_fn fn, void *arg, struct cb_err *err)
{
	struct store_redis	*sr = (struct store_redis *)s;
	struct redis_name	*names = NULL;
	redisReply		*r, *v;
	sigset_t		 old;
	const char		**argv;
	size_t			*lens, n = 0, i, j, batch;
	int			 rc = -1, stop = 0, tries;

	s->down = 0;
	sr->timedout = 0;
	redis_pipe_block(&old);
	redis_walk_start(sr, sr->scan_timeout_ms);
	argv = xcalloc(REDIS_MGET_BATCH + 1, sizeof *argv);
	lens = xcalloc(REDIS_MGET_BATCH + 1, sizeof *lens);
	for (tries = 0; tries < 2; tries++) {
		s->down = 0;
		if (redis_connect(sr, err) == -1)
			goto out;
		if ((rc = redis_scan(sr, sr->scan_timeout_ms, &names, &n,
		    err)) == 0)
			break;
		if (sr->c != NULL || sr->timedout)
			goto out;	/* an error reply, or no answer */
	}
	if (rc == -1)
		goto out;
	rc = -1;
	for (i = 0; i < n && !stop; i += batch) {
		batch = n - i < REDIS_MGET_BATCH ? n - i : REDIS_MGET_BATCH;
		argv[0] = "MGET";
		lens[0] = 4;
		for (j = 0; j < batch; j++) {
			argv[j + 1] = names[i + j].key;
			lens[j + 1] = names[i + j].len;
		}
		if ((r = redis_call(sr, "cannot read breakers", (int)batch + 1,
		    argv, lens, err)) == NULL)
			goto out;
		if (r->type != REDIS_REPLY_ARRAY || r->elements != batch) {
			redis_bad_reply(sr, "cannot read breakers", r, err);
			freeReplyObject(r);
			goto out;
		}
		for (j = 0; j < batch && !stop; j++) {
			v = r->element[j];
			/* Gone since the SCAN, or not a string: skip it. */
			if (v->type != REDIS_REPLY_STRING)
				continue;
			switch (fn(names[i + j].key + sr->prefixlen,
			    names[i + j].len - sr->prefixlen,
			    (const uint8_t *)v->str, v->len, arg, err)) {
			case 0:
				break;
			case 1:
				stop = 1;
				break;
			default:
				freeReplyObject(r);
				goto out;
			}
		}
		freeReplyObject(r);
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i].key);
	free(names);
	free(argv);
	free(lens);
	redis_walk_end(sr);
	redis_pipe_restore(&old);
	return rc;
}

/*
 * gc and eviction delete a record only if it still holds the bytes they
 * judged: an atomic conditional delete, the WATCH of update() making sure
 * that nobody changed it in between.
 */
struct redis_cond {
	const uint8_t	*data;		/* the bytes judged */
	size_t		 len;
	store_prune_fn	 fn;		/* or: judge again (gc) */
	void		*arg;
	const char	*name;
	size_t		 namelen;
	int		 deleted;	/* the last call asked for DEL */
};

static int
cond_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out, void *arg,
    struct cb_err *err)
{
	struct redis_cond	*c = arg;
	int			 rc;

	(void)out;
	c->deleted = 0;
	if (old == NULL)
		return STORE_KEEP;
	if (c->fn != NULL) {
		if ((rc = c->fn(c->name, c->namelen, old, oldlen, c->arg,
		    err)) == -1)
			return -1;
		c->deleted = rc == 1;
	} else
		c->deleted = oldlen == c->len && memcmp(old, c->data,
		    oldlen) == 0;
	return c->deleted ? STORE_DELETE : STORE_KEEP;
}

/* A store name from a key: NUL-terminated, or -1 for one we cannot use. */
static int
redis_name(const struct store_redis *sr, const char *key, size_t keylen,
    char name[STORE_NAME_MAX + 1])
{
	size_t	len = keylen - sr->prefixlen;

	if (keylen <= sr->prefixlen || len > STORE_NAME_MAX ||
	    memchr(key + sr->prefixlen, '\0', len) != NULL)
		return -1;
	memcpy(name, key + sr->prefixlen, len);
	name[len] = '\0';
	return 0;
}

struct redis_prune_step {
	struct store_redis	*sr;
	store_prune_fn		 fn;
	void			*arg;
	struct cb_buf		*removed;
};

/* Each record as read by MGET: those fn selects are deleted if still so. */
static int
prune_cb(const char *name, size_t namelen, const uint8_t *data, size_t len,
    void *arg, struct cb_err *err)
{
	struct redis_prune_step	*ps = arg;
	struct redis_cond	 c;
	char			 nm[STORE_NAME_MAX + 1];
	int			 rc;

	if ((rc = ps->fn(name, namelen, data, len, ps->arg, err)) != 1)
		return rc;
	if (namelen > STORE_NAME_MAX || memchr(name, '\0', namelen) != NULL)
		return 0;
	memcpy(nm, name, namelen);
	nm[namelen] = '\0';
	memset(&c, 0, sizeof c);
	c.fn = ps->fn;
	c.arg = ps->arg;
	c.name = nm;
	c.namelen = namelen;
	if (redis_update_loop(ps->sr, nm, cond_cb, &c, err) == -1)
		return -1;
	if (c.deleted)
		buf_add(ps->removed, nm, namelen + 1);
	return 0;
}

/*
 * gc: walk the records as each() does, and delete each one that fn
 * selects with a conditional delete, fn judging the then current bytes
 * again (so a breaker used meanwhile stays).
 */
int
redis_prune(struct store *s, store_prune_fn fn, void *arg,
    struct cb_buf *removed, struct cb_err *err)
{
	struct redis_prune_step	ps;

	ps.sr = (struct store_redis *)s;
	ps.fn = fn;
	ps.arg = arg;
	ps.removed = removed;
	return redis_each(s, prune_cb, &ps, err);
}

/* An eviction candidate. */
struct redis_cand {
	char			 name[STORE_NAME_MAX + 1];
	struct store_rank	 rank;
	uint8_t			*data;
	size_t			 len;
};

static int
cand_cmp(const void *a, const void *b)
{
	const struct redis_cand	*x = a, *y = b;

	if (x->rank.pinned != y->rank.pinned)
		return x->rank.pinned - y->rank.pinned;
	return x->rank.last_used_ms < y->rank.last_used_ms ? -1 :
	    x->rank.last_used_ms > y->rank.last_used_ms;
}

/*
 * MGET the keys names[idx[0..n-1]] and rank them into cand (skipping
 * the record just made, gone ones and unreadable ones); the number added.
 */
static size_t
redis_rank(struct store_redis *sr, const struct redis_name *names,
    const size_t *idx, size_t n, const char *made, struct redis_cand *cand,
    struct cb_err *err)
{
	redisReply	*r, *v;
	const char	**argv;
	size_t		*lens, i, j, batch, nc = 0;

	argv = xcalloc(REDIS_MGET_BATCH + 1, sizeof *argv);
	lens = xcalloc(REDIS_MGET_BATCH + 1, sizeof *lens);
	for (i = 0; i < n; i += batch) {
		batch = n - i < REDIS_MGET_BATCH ? n - i : REDIS_MGET_BATCH;
		argv[0] = "MGET";
		lens[0] = 4;
		for (j = 0; j < batch; j++) {
			argv[j + 1] = names[idx[i + j]].key;
			lens[j + 1] = names[idx[i + j]].len;
		}
		if ((r = redis_call(sr, "cannot evict", (int)batch + 1, argv,
		    lens, err)) == NULL)
			break;
		for (j = 0; r->type == REDIS_REPLY_ARRAY && j < r->elements &&
		    j < batch; j++) {
			v = r->element[j];
			if (v->type != REDIS_REPLY_STRING ||
			    redis_name(sr, names[idx[i + j]].key,
			    names[idx[i + j]].len, cand[nc].name) == -1 ||
			    strcmp(cand[nc].name, made) == 0 ||
			    sr->rank((const uint8_t *)v->str, v->len,
			    &cand[nc].rank) == -1)
				continue;
			cand[nc].data = xmalloc(v->len + 1);
			memcpy(cand[nc].data, v->str, v->len);
			cand[nc].len = v->len;
			nc++;
		}
		freeReplyObject(r);
	}
	free(argv);
	free(lens);
	return nc;
}

/*
 * After a creation: when the prefix holds more than max_records keys,
 * delete up to STORE_MAX_EVICT of the least recently used, chosen as
 * store.h says (exact up to STORE_EXACT_SCAN keys, else from a random
 * sample of STORE_SAMPLE, the whole set only when the sample holds no
 * unpinned record).  DBSIZE first, so that a database holding no more
 * keys than the bound costs one round trip.  Unlike LMDB this is a step
 * after the creation, not in its transaction: a failure leaves the store
 * over its bound until the next creation, and the creation stands.
 */
void
redis_evict(struct store_redis *sr, const char *made)
{
	struct store_evicted	*ev = &sr->s.evicted;
	struct redis_name	*names = NULL;
	struct redis_cand	*cand = NULL;
	struct redis_cond	 c;
	struct cb_err		 err;
	sigset_t		 old;
	size_t			*idx = NULL, n = 0, nc = 0, ns, i, want;
	long long		 k;

	redis_pipe_block(&old);
	redis_walk_start(sr, sr->timeout_ms);
	if (redis_connect(sr, &err) == -1 ||
	    (k = redis_dbsize(sr, "cannot evict", &err)) == -1)
		goto out;
	if ((unsigned long long)k <= sr->max_records ||
	    redis_scan(sr, sr->timeout_ms, &names, &n, &err) == -1 ||
	    n <= sr->max_records)
		goto out;
	want = n - sr->max_records;
	if (want > STORE_MAX_EVICT)
		want = STORE_MAX_EVICT;
	idx = xcalloc(n, sizeof *idx);
	cand = xcalloc(n < STORE_SAMPLE ? STORE_SAMPLE : n, sizeof *cand);
	if (n <= STORE_EXACT_SCAN) {
		for (i = 0; i < n; i++)
			idx[i] = i;
		ns = n;
	} else {
		for (i = 0; i < STORE_SAMPLE; i++)
			idx[i] = (size_t)(clock_random() % n);
		ns = STORE_SAMPLE;
	}
	nc = redis_rank(sr, names, idx, ns, made, cand, &err);
	qsort(cand, nc, sizeof *cand, cand_cmp);
	if (ns < n && (nc == 0 || cand[0].rank.pinned)) {
		/* Pinned ones go only if nothing else is left anywhere. */
		for (i = 0; i < nc; i++)
			free(cand[i].data);
		for (i = 0; i < n; i++)
			idx[i] = i;
		nc = redis_rank(sr, names, idx, n, made, cand, &err);
		qsort(cand, nc, sizeof *cand, cand_cmp);
	}
	for (i = 0; i < nc && ev->n < (int)want; i++) {
		if (i > 0 && !cand[0].rank.pinned && cand[i].rank.pinned)
			break;
		memset(&c, 0, sizeof c);
		c.data = cand[i].data;
		c.len = cand[i].len;
		if (redis_update_loop(sr, cand[i].name, cond_cb, &c, &err) ==
		    -1)
			break;
		if (!c.deleted)
			continue;
		memcpy(ev->rec[ev->n].name, cand[i].name,
		    sizeof ev->rec[ev->n].name);
		ev->rec[ev->n].rank = cand[i].rank;
		ev->n++;
	}
out:
	for (i = 0; i < nc; i++)
		free(cand[i].data);
	for (i = 0; i < n; i++)
		free(names[i].key);
	free(names);
	free(cand);
	free(idx);
	/* The creation stands: eviction's trouble is not the caller's. */
	sr->s.down = 0;
	redis_walk_end(sr);
	redis_pipe_restore(&old);
}
