/* SPDX-License-Identifier: ISC */
/*
 * hint.h: the nearest known name to an unknown one, for "unknown key
 * 'open_timout' (did you mean open_timeout?)".  Pure: libc only.
 *
 *	struct hint h;
 *	hint_init(&h);
 *	for each known name k: hint_offer(&h, name, k);
 *	if ((k = hint_best(&h, name)) != NULL) ... suggest k
 */
#ifndef CBEXEC_HINT_H
#define CBEXEC_HINT_H

#include <stddef.h>

struct hint {
	const char	*best;	/* the nearest candidate so far, not copied */
	size_t		 dist;
};

/*
 * Edits (insert, delete, change, swap of neighbours) from a to b, '-'
 * counted as '_'; SIZE_MAX for names over 64 bytes.
 */
size_t		 hint_distance(const char *a, const char *b);

void		 hint_init(struct hint *);
/* Keep cand if it is nearer to name than all before it (a tie keeps the
 * first). */
void		 hint_offer(struct hint *, const char *name, const char *cand);
/* The nearest candidate, or NULL when it is more than 2 edits away or
 * the edits are more than half of name. */
const char	*hint_best(const struct hint *, const char *name);

#endif
