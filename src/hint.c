/* SPDX-License-Identifier: ISC */
/*
 * hint.c: "did you mean" for an unknown name: the known name nearest to
 * it by Damerau-Levenshtein distance (optimal string alignment), '-' taken
 * for '_', offered only when it is within two edits and the name is not
 * so short that anything would be.  Pure: libc only.
 */
#include <stdint.h>
#include <string.h>

#include "hint.h"

#define HINT_MAX_LEN	64

/*
 * Damerau-Levenshtein distance (optimal string alignment) between a and b,
 * '-' taken for '_'; SIZE_MAX for names too long to bother with.
 */
size_t
hint_distance(const char *a, const char *b)
{
	unsigned short	d[HINT_MAX_LEN + 1][HINT_MAX_LEN + 1];
	size_t		la = strlen(a), lb = strlen(b), i, j, v;
	char		ca, cb;

	if (la > HINT_MAX_LEN || lb > HINT_MAX_LEN)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned short)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned short)j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			ca = a[i - 1] == '-' ? '_' : a[i - 1];
			cb = b[j - 1] == '-' ? '_' : b[j - 1];
			v = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1U < v)
				v = d[i - 1][j] + 1U;
			if (d[i][j - 1] + 1U < v)
				v = d[i][j - 1] + 1U;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1U < v)
				v = d[i - 2][j - 2] + 1U;
			d[i][j] = (unsigned short)v;
		}
	}
	return d[la][lb];
}

void
hint_init(struct hint *h)
{
	h->best = NULL;
	h->dist = SIZE_MAX;
}

void
hint_offer(struct hint *h, const char *name, const char *cand)
{
	size_t	d;

	if ((d = hint_distance(name, cand)) < h->dist) {
		h->dist = d;
		h->best = cand;
	}
}

const char *
hint_best(const struct hint *h, const char *name)
{
	if (h->best == NULL || h->dist > 2 || 2 * h->dist > strlen(name))
		return NULL;
	return h->best;
}
