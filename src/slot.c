/* SPDX-License-Identifier: ISC */
/*
 * slot.c: a probe or run slot's lease and its holder's liveness, what both
 * the state machine (breaker.c, which reclaims slots) and the views of a
 * record (breaker-view.c, status) read; and the slot arrays' lookups.  Pure: the time and the liveness
 * oracle come in the environment.
 */
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "breaker-int.h"

/*
 * The clock stepped back: a lease never lasts longer than its own length
 * from now.  A slot of unknown length (version 2) is left as it is.
 * Returns 1 if it changed.
 */
int
slot_cap(struct cb_slot *s, int64_t now)
{
	if (s->lease_ms <= 0 || s->lease_until_ms - now <= s->lease_ms)
		return 0;
	s->lease_until_ms = now + s->lease_ms;
	return 1;
}

/* Why a slot must be reclaimed, or NULL. */
const char *
slot_lost(const struct cb_slot *s, const struct cb_env *env, char *buf,
    size_t len)
{
	if (s->lease_until_ms <= env->now_ms)
		return "probe lease expired";
	if (s->pid != 0 && env->alive != NULL &&
	    env->alive(s, env->alive_ctx) == HOLDER_DEAD) {
		snprintf(buf, len, "probe slot lost: holder pid %d died",
		    (int)s->pid);
		return buf;
	}
	return NULL;
}

int
breaker_slot_live(const struct cb_slot *s, const struct cb_env *env)
{
	struct cb_slot	capped = *s;
	char		buf[64];

	slot_cap(&capped, env->now_ms);
	return slot_lost(&capped, env, buf, sizeof buf) == NULL;
}

int
slot_leases_cap(struct cb_record *r, int64_t now)
{
	unsigned	i;
	int		changed = 0;

	for (i = 0; i < r->nslots; i++)
		changed |= slot_cap(&r->slots[i], now);
	for (i = 0; i < r->nrunning; i++)
		changed |= slot_cap(&r->running[i], now);
	return changed;
}

/* Remove the slot at i of an array of n. */
void
slot_remove(struct cb_slot *slots, uint16_t *n, unsigned i)
{
	memmove(&slots[i], &slots[i + 1], (*n - i - 1) * sizeof slots[0]);
	(*n)--;
}

int
slot_has(const struct cb_record *r, uint64_t token)
{
	unsigned	i;

	for (i = 0; i < r->nslots; i++)
		if (r->slots[i].token == token)
			return 1;
	return 0;
}

const struct cb_slot *
slot_find(const struct cb_record *r, uint64_t token)
{
	unsigned	i;

	for (i = 0; i < r->nslots; i++)
		if (r->slots[i].token == token)
			return &r->slots[i];
	return NULL;
}

/* Free the slot of slots[*n] that token names, if it is still there. */
void
slot_free_token(struct cb_slot *slots, uint16_t *n, uint64_t token)
{
	unsigned	i;

	for (i = 0; i < *n; i++) {
		if (slots[i].token == token) {
			slot_remove(slots, n, i);
			return;
		}
	}
}
