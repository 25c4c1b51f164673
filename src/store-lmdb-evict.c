/* SPDX-License-Identifier: ISC */
/*
 * store-lmdb-evict.c: eviction for the local store (store.h, max_records):
 * when a new breaker would pass the limit, the victims are the least
 * recently used records that rank() does not pin, found by an exact scan
 * of a small store or by sampling runs of records at random keys of a
 * large one, so that a run on a million breakers costs what it costs on
 * ten.  One of the three files that include lmdb.h (store-lmdb-int.h).
 */
#include <sys/random.h>
#include <sys/types.h>

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <lmdb.h>

#include "store.h"
#include "store-lmdb-int.h"
#include "util.h"

/* Sampling for eviction: seeks at random keys, records read at each. */
#define LMDB_SEEKS		8
#define LMDB_RUN		8

/* An eviction candidate: the name is copied out of the map. */
struct lmdb_cand {
	size_t			len;
	char			name[STORE_NAME_MAX + 1];
	struct store_rank	rank;
};

/* The best (oldest) victims seen so far, best first. */
struct lmdb_victims {
	int			want;	/* how many to evict */
	int			n;
	struct lmdb_cand	c[STORE_MAX_EVICT];
};

/* Eviction order: unpinned first, then least recently used, then name. */
static int
lmdb_cand_cmp(const struct lmdb_cand *a, const struct lmdb_cand *b)
{
	size_t	n;
	int	c;

	if (a->rank.pinned != b->rank.pinned)
		return a->rank.pinned ? 1 : -1;
	if (a->rank.last_used_ms != b->rank.last_used_ms)
		return a->rank.last_used_ms < b->rank.last_used_ms ? -1 : 1;
	n = a->len < b->len ? a->len : b->len;
	if ((c = memcmp(a->name, b->name, n)) != 0)
		return c;
	return a->len < b->len ? -1 : a->len > b->len;
}

/*
 * Offer one record to the victim list (kept sorted, at most v->want
 * long).  A record rank() cannot read is never a candidate, and one
 * already on the list (the samples may overlap) is not added twice.
 */
static void
lmdb_offer(struct store_lmdb *sl, struct lmdb_victims *v, const MDB_val *key,
    const MDB_val *val)
{
	struct lmdb_cand	c;
	int			i, j;

	if (key->mv_size == 0 || key->mv_size > STORE_NAME_MAX)
		return;
	if (sl->rank(val->mv_data, val->mv_size, &c.rank) != 0)
		return;
	c.len = key->mv_size;
	memcpy(c.name, key->mv_data, c.len);
	c.name[c.len] = '\0';
	for (i = 0; i < v->n; i++)
		if (lmdb_cand_cmp(&c, &v->c[i]) <= 0)
			break;
	if (i < v->n && lmdb_cand_cmp(&c, &v->c[i]) == 0)
		return;		/* the same record, seen again */
	if (i >= v->want)
		return;
	j = v->n < v->want ? v->n : v->want - 1;
	memmove(&v->c[i + 1], &v->c[i], (size_t)(j - i) * sizeof v->c[0]);
	v->c[i] = c;
	if (v->n < v->want)
		v->n++;
}

/* How many victims on the list are unpinned. */
static int
lmdb_unpinned(const struct lmdb_victims *v)
{
	int	i, n = 0;

	for (i = 0; i < v->n; i++)
		if (!v->c[i].rank.pinned)
			n++;
	return n;
}

static uint64_t
lmdb_random(struct store_lmdb *sl)
{
	uint64_t	x;

	if (sl->rnd == 0) {
		if (getrandom(&sl->rnd, sizeof sl->rnd, GRND_NONBLOCK) !=
		    (ssize_t)sizeof sl->rnd || sl->rnd == 0)
			sl->rnd = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL |
			    1;
	}
	/* xorshift64: plenty for picking places to sample. */
	x = sl->rnd;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	sl->rnd = x;
	return x;
}

/* Every record: exact. */
static int
lmdb_scan(struct store_lmdb *sl, MDB_cursor *cur, struct lmdb_victims *v)
{
	MDB_val		key, val;
	MDB_cursor_op	op;
	int		rc;

	for (op = MDB_FIRST;; op = MDB_NEXT) {
		if ((rc = mdb_cursor_get(cur, &key, &val, op)) != 0)
			return rc == MDB_NOTFOUND ? 0 : rc;
		lmdb_offer(sl, v, &key, &val);
	}
}

/* A key-space bound, copied out of the map (a little longer than a key). */
struct lmdb_bound {
	size_t	len;
	uint8_t	b[STORE_NAME_MAX + 2 + 32];
};

static int
lmdb_bound_cmp(const struct lmdb_bound *a, const void *k, size_t klen)
{
	size_t	n = a->len < klen ? a->len : klen;
	int	c;

	if ((c = memcmp(a->b, k, n)) != 0)
		return c;
	return a->len < klen ? -1 : a->len > klen;
}

static void
lmdb_bound_set(struct lmdb_bound *a, const void *k, size_t klen)
{
	a->len = klen < sizeof a->b ? klen : sizeof a->b;
	memcpy(a->b, k, a->len);
}

/*
 * The midpoint of lo and hi read as base-256 fractions, one byte longer
 * than the longer of them (so that it lies strictly between them).
 */
static void
lmdb_mid(const struct lmdb_bound *lo, const struct lmdb_bound *hi,
    struct lmdb_bound *m)
{
	unsigned	sum[sizeof m->b + 1];
	size_t		i, len;
	unsigned	carry = 0, a, b;

	len = (lo->len > hi->len ? lo->len : hi->len) + 1;
	if (len > sizeof m->b)
		len = sizeof m->b;
	for (i = len; i-- > 0;) {
		a = i < lo->len ? lo->b[i] : 0;
		b = i < hi->len ? hi->b[i] : 0;
		sum[i] = a + b + carry;
		carry = sum[i] >> 8;
		sum[i] &= 0xff;
	}
	/* (carry:sum) / 2 */
	for (i = 0; i < len; i++) {
		m->b[i] = (uint8_t)((carry << 7) | (sum[i] >> 1));
		carry = sum[i] & 1;
	}
	m->len = len;
}

/*
 * One random position in key order, by descent: the range [lo, hi) starts
 * as the whole store and is halved (in key space) up to 48 times, each
 * time keeping a random half that holds a key, until one key is left.
 * Unlike a single random key, this finds the dense corners of the name
 * space as often as the sparse ones.  Leaves the cursor on that key.
 */
static int
lmdb_descend(struct store_lmdb *sl, MDB_cursor *cur, const MDB_val *first,
    const MDB_val *last, MDB_val *key, MDB_val *val)
{
	struct lmdb_bound	lo, hi, m;
	MDB_val			k, v;
	int			step, rc;

	lmdb_bound_set(&lo, first->mv_data, first->mv_size);
	lmdb_bound_set(&hi, last->mv_data, last->mv_size);
	hi.b[hi.len < sizeof hi.b ? hi.len++ : hi.len - 1] = 0x01;
	for (step = 0; step < 48; step++) {
		lmdb_mid(&lo, &hi, &m);
		k.mv_data = m.b;
		k.mv_size = m.len;
		rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE);
		if (rc != 0 && rc != MDB_NOTFOUND)
			return rc;
		if (rc == MDB_NOTFOUND ||
		    lmdb_bound_cmp(&hi, k.mv_data, k.mv_size) <= 0) {
			hi = m;		/* nothing in [m, hi) */
			continue;
		}
		if (lmdb_random(sl) & 1)
			lmdb_bound_set(&lo, k.mv_data, k.mv_size);
		else
			hi = m;
		/* One key left in [lo, hi)? */
		k.mv_data = lo.b;
		k.mv_size = lo.len;
		if ((rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE)) != 0)
			return rc;
		rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT);
		if (rc != 0 && rc != MDB_NOTFOUND)
			return rc;
		if (rc == MDB_NOTFOUND ||
		    lmdb_bound_cmp(&hi, k.mv_data, k.mv_size) <= 0)
			break;
	}
	key->mv_data = lo.b;
	key->mv_size = lo.len;
	return mdb_cursor_get(cur, key, val, MDB_SET_RANGE);
}

/*
 * A bounded sample: LMDB_SEEKS random positions (lmdb_descend), reading
 * LMDB_RUN records from each, then walking on until STORE_SAMPLE records
 * have been read.
 */
static int
lmdb_sample(struct store_lmdb *sl, MDB_cursor *cur, struct lmdb_victims *v)
{
	MDB_val		key, val, first, last;
	uint8_t		f[STORE_NAME_MAX + 1], l[STORE_NAME_MAX + 1];
	int		seek, n, seen = 0, rc;

	if ((rc = mdb_cursor_get(cur, &first, &val, MDB_FIRST)) != 0)
		return rc == MDB_NOTFOUND ? 0 : rc;
	if (first.mv_size > STORE_NAME_MAX)
		first.mv_size = STORE_NAME_MAX;
	memcpy(f, first.mv_data, first.mv_size);
	first.mv_data = f;
	if ((rc = mdb_cursor_get(cur, &last, &val, MDB_LAST)) != 0)
		return rc;
	if (last.mv_size > STORE_NAME_MAX)
		last.mv_size = STORE_NAME_MAX;
	memcpy(l, last.mv_data, last.mv_size);
	last.mv_data = l;

	rc = 0;
	for (seek = 0; seek < LMDB_SEEKS; seek++) {
		rc = lmdb_descend(sl, cur, &first, &last, &key, &val);
		for (n = 0; n < LMDB_RUN; n++) {
			if (rc == MDB_NOTFOUND)	/* past the last: wrap */
				rc = mdb_cursor_get(cur, &key, &val,
				    MDB_FIRST);
			if (rc != 0)
				return rc;
			lmdb_offer(sl, v, &key, &val);
			seen++;
			rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
		}
	}
	/* Walk on from the last seek: overlapping runs still add up. */
	while (seen < STORE_SAMPLE) {
		if (rc == MDB_NOTFOUND)
			rc = mdb_cursor_get(cur, &key, &val, MDB_FIRST);
		if (rc != 0)
			return rc;
		lmdb_offer(sl, v, &key, &val);
		seen++;
		rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT);
	}
	return 0;
}

/*
 * Make room for one new record in txn (called before it is put): when the
 * store already holds max_records, choose victims as store.h describes
 * and delete them, listing them in s->evicted.
 */
int
lmdb_evict(struct store_lmdb *sl, MDB_txn *txn)
{
	struct lmdb_victims	 v;
	struct store_evicted	*ev = &sl->s.evicted;
	MDB_cursor		*cur;
	MDB_stat		 st;
	MDB_val			 key;
	int			 i, rc;

	if ((rc = mdb_stat(txn, sl->dbi, &st)) != 0)
		return rc;
	if (st.ms_entries < sl->max_records)
		return 0;
	memset(&v, 0, sizeof v);
	v.want = (int)(st.ms_entries - sl->max_records + 1 > STORE_MAX_EVICT ?
	    STORE_MAX_EVICT : st.ms_entries - sl->max_records + 1);

	if ((rc = mdb_cursor_open(txn, sl->dbi, &cur)) != 0)
		return rc;
	if (st.ms_entries <= STORE_EXACT_SCAN)
		rc = lmdb_scan(sl, cur, &v);
	else {
		rc = lmdb_sample(sl, cur, &v);
		/* Pinned ones go only if nothing else is left anywhere. */
		if (rc == 0 && lmdb_unpinned(&v) < v.want) {
			v.n = 0;
			rc = lmdb_scan(sl, cur, &v);
		}
	}
	mdb_cursor_close(cur);
	if (rc != 0)
		return rc;

	for (i = 0; i < v.n; i++) {
		key.mv_data = v.c[i].name;
		key.mv_size = v.c[i].len;
		if ((rc = mdb_del(txn, sl->dbi, &key, NULL)) != 0)
			return rc;
		memcpy(ev->rec[ev->n].name, v.c[i].name, v.c[i].len + 1);
		ev->rec[ev->n].rank = v.c[i].rank;
		ev->n++;
	}
	return 0;
}
