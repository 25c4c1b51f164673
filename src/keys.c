/* SPDX-License-Identifier: ISC */
/*
 * keys.c: the store's walks as every command sees them.  A key of the
 * state that is not a valid NAME (a record planted by whoever may write
 * the state, or a stray key under the Redis prefix) is not a breaker: it
 * is skipped by every listing, named escaped on stderr once, and counted,
 * so the command exits 1 as for an unreadable record (SPEC section 5).
 * One check for both stores, above them, so that no command's callback
 * ever sees such a key.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "esc.h"
#include "name.h"

/* Bad keys already named: a prune may see a record again when its
 * transaction is retried.  Past this many, they are named again. */
#define KEYS_SEEN_MAX	256

struct keys_walk {
	struct store		 *store;
	char			**pats;
	int			  npats;
	store_each_fn		  fn;	/* or prune's, the same type */
	void			 *arg;
	unsigned long		 *bad;
	struct cb_buf		  seen;	/* u16 length, bytes; ... */
	size_t			  nseen;
};

/* Is key a NAME?  Keys of NAME_MAX_LEN bytes at most, without NUL. */
static int
key_valid(const char *key, size_t keylen)
{
	char		name[NAME_MAX_LEN + 1];
	struct cb_err	e;

	if (keylen == 0 || keylen > NAME_MAX_LEN ||
	    memchr(key, '\0', keylen) != NULL)
		return 0;
	memcpy(name, key, keylen);
	name[keylen] = '\0';
	return name_valid(name, &e) == 0;
}

/* Would the listing have shown key: no operands, or a GLOB matching it
 * (an exact NAME never equals a key that is not one). */
static int
key_listed(const struct keys_walk *w, const char *key, size_t keylen)
{
	char	*s;
	int	 i, hit = w->npats == 0;

	if (hit)
		return 1;
	s = xstrndup(key, keylen);
	for (i = 0; i < w->npats && !hit; i++)
		hit = fnmatch(w->pats[i], s, 0) == 0;
	free(s);
	return hit;
}

static int
key_seen(struct keys_walk *w, const char *key, size_t keylen)
{
	size_t		off, n;
	uint16_t	len = (uint16_t)(keylen > 0xffff ? 0xffff : keylen);

	for (off = 0; off + 2 <= w->seen.len; off += 2 + n) {
		n = get_u16(w->seen.data + off);
		if (n == len && memcmp(w->seen.data + off + 2, key, n) == 0)
			return 1;
	}
	if (w->nseen < KEYS_SEEN_MAX) {
		buf_add_u16(&w->seen, len);
		buf_add(&w->seen, key, len);
		w->nseen++;
	}
	return 0;
}

static int
keys_cb(const char *key, size_t keylen, const uint8_t *data, size_t len,
    void *arg, struct cb_err *err)
{
	struct keys_walk	*w = arg;

	if (key_valid(key, keylen))
		return w->fn(key, keylen, data, len, w->arg, err);
	if (!key_listed(w, key, keylen) || key_seen(w, key, keylen))
		return 0;
	/* The listing so far goes out first, as for unreadable records. */
	(void)fflush(stdout);
	cmd_warnx("key '%s' in state '%s': not a breaker name; skipped",
	    esc_n(key, keylen), esc(w->store->path));
	(*w->bad)++;
	return 0;
}

int
cmd_each(struct cb_ctx *ctx, struct store *s, char **pats, int npats,
    store_each_fn fn, void *arg, unsigned long *bad, struct cb_err *err)
{
	struct keys_walk	w;
	int			rc;

	memset(&w, 0, sizeof w);
	(void)ctx;
	w.store = s;
	w.pats = pats;
	w.npats = npats;
	w.fn = fn;
	w.arg = arg;
	w.bad = bad;
	rc = store_each(s, keys_cb, &w, err);
	buf_free(&w.seen);
	return rc;
}

int
cmd_prune(struct cb_ctx *ctx, struct store *s, store_prune_fn fn, void *arg,
    struct cb_buf *removed, unsigned long *bad, struct cb_err *err)
{
	struct keys_walk	w;
	int			rc;

	memset(&w, 0, sizeof w);
	(void)ctx;
	w.store = s;
	w.fn = fn;
	w.arg = arg;
	w.bad = bad;
	rc = store_prune(s, keys_cb, &w, removed, err);
	buf_free(&w.seen);
	return rc;
}
