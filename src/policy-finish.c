/* SPDX-License-Identifier: ISC */
/*
 * policy-finish.c: the second half of policy.h, policy_finish(): once every
 * layer has been set, resolve the three exit code classes (SPEC section 3)
 * and settle the keys that depend on each other.  A built-in value gives
 * way to an explicit one it contradicts; two explicit values that
 * contradict each other are an error naming both and where each came from.
 * Pure: no I/O.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "preset.h"

_Static_assert(PRESET_CLASSES == POLICY_CLASSES, "the presets' classes");

static const char	builtin_origin[] = "built-in";
static const char	capped_origin[] = "built-in, capped at trip.window";
static const char	raised_origin[] = "built-in, raised to open_timeout";

/* The classes as resolution sees them. */
struct classes {
	struct cb_codeset	set[POLICY_CLASSES];
	int			expl[POLICY_CLASSES];	/* given by its key */
	int			lay[POLICY_CLASSES];	/* that key's layer */
};

static int
codeset_first_common(const struct cb_codeset *a, const struct cb_codeset *b)
{
	int	c;

	for (c = 0; c <= 255; c++) {
		if (codeset_has(a, c) && codeset_has(b, c))
			return c;
	}
	return -1;
}

static void
codeset_remove(struct cb_codeset *s, int code)
{
	s->w[code >> 6] &= ~((uint64_t)1 << (code & 63));
}

static void
codeset_minus(struct cb_codeset *s, const struct cb_codeset *minus)
{
	int	i;

	for (i = 0; i < 4; i++)
		s->w[i] &= ~minus->w[i];
}

/* A key named in a message, with where it came from. */
static void
key_where(const struct policy_builder *b, enum policy_key k, char *buf,
    size_t len)
{
	snprintf(buf, len, "%s (%s)", policy_key_name(k), b->origin[k]);
}

/*
 * A class comes from the highest layer that gives it: its own key, or a
 * preset, which gives all three.  In one layer the key beats the preset.
 */
static void
pick_classes(struct policy_builder *b, struct classes *cl)
{
	enum policy_key	k;
	int		c;

	for (c = 0; c < POLICY_CLASSES; c++) {
		k = policy_class_key(c);
		cl->expl[c] = b->cls_set[c] != 0 && (b->preset < 0 ||
		    b->cls_set[c] - 1 >= (int)b->layer[PK_PRESET]);
		cl->lay[c] = b->cls_set[c] - 1;
		if (cl->expl[c])
			cl->set[c] = b->cls[c];
		else if (b->preset >= 0) {
			cl->set[c] = preset_class(b->preset, c);
			b->origin[k] = b->origin[PK_PRESET];
			b->layer[k] = b->layer[PK_PRESET];
		} else {
			cl->set[c] = policy_default_class(c);
			b->origin[k] = builtin_origin;
			b->layer[k] = LAYER_BUILTIN;
		}
	}
}

/* Two explicit classes of one layer may not share a code. */
static int
check_overlap(const struct policy_builder *b, const struct classes *cl,
    struct cb_err *err)
{
	enum policy_key	k1, k2;
	char		w1[256], w2[256];
	int		c, c2, code;

	for (c = 0; c < POLICY_CLASSES; c++) {
		for (c2 = c + 1; c2 < POLICY_CLASSES; c2++) {
			if (!cl->expl[c] || !cl->expl[c2] ||
			    cl->lay[c] != cl->lay[c2])
				continue;
			if ((code = codeset_first_common(&cl->set[c],
			    &cl->set[c2])) < 0)
				continue;
			k1 = policy_class_key(c);
			k2 = policy_class_key(c2);
			if (strcmp(b->origin[k1], b->origin[k2]) == 0 &&
			    cl->lay[c] == LAYER_CLI)
				err_set(err, "%s and %s both name code %d",
				    policy_key_name(k1), policy_key_name(k2),
				    code);
			else {
				key_where(b, k1, w1, sizeof w1);
				key_where(b, k2, w2, sizeof w2);
				err_set(err, "%s and %s both name code %d", w1,
				    w2, code);
			}
			return -1;
		}
	}
	return 0;
}

/*
 * Across layers the higher explicit class keeps a code, and codes named
 * explicitly leave the preset's or the default classes.
 */
static void
settle_codes(struct classes *cl)
{
	struct cb_codeset	named;
	int			c, code, best;

	memset(&named, 0, sizeof named);
	for (code = 0; code <= 255; code++) {
		best = -1;
		for (c = 0; c < POLICY_CLASSES; c++) {
			if (cl->expl[c] && codeset_has(&cl->set[c], code) &&
			    (best < 0 || cl->lay[c] > cl->lay[best]))
				best = c;
		}
		if (best < 0)
			continue;
		codeset_add(&named, code);
		for (c = 0; c < POLICY_CLASSES; c++) {
			if (c != best)
				codeset_remove(&cl->set[c], code);
		}
	}
	for (c = 0; c < POLICY_CLASSES; c++) {
		if (!cl->expl[c])
			codeset_minus(&cl->set[c], &named);
	}
}

static int
resolve_classes(struct policy_builder *b, struct cb_err *err)
{
	struct classes	cl;

	pick_classes(b, &cl);
	if (check_overlap(b, &cl, err) != 0)
		return -1;
	settle_codes(&cl);
	b->p.failure_codes = cl.set[POLICY_CLASS_FAILURE];
	b->p.success_codes = cl.set[POLICY_CLASS_SUCCESS];
	b->p.ignore_codes = cl.set[POLICY_CLASS_IGNORE];
	return 0;
}

int
policy_finish(struct policy_builder *b, struct cb_policy *out,
    struct cb_err *err)
{
	struct cb_policy	*p = &b->p;
	char			 w1[256], w2[256], d1[64], d2[64];

	if (resolve_classes(b, err) != 0)
		return -1;

	/*
	 * A built-in value gives way to an explicit one it contradicts;
	 * two explicit values that contradict each other are an error.
	 */
	if (p->trip_min_calls > p->trip_window) {
		if (b->layer[PK_TRIP_MIN_CALLS] == LAYER_BUILTIN) {
			p->trip_min_calls = p->trip_window;
			b->origin[PK_TRIP_MIN_CALLS] = capped_origin;
		} else {
			key_where(b, PK_TRIP_MIN_CALLS, w1, sizeof w1);
			key_where(b, PK_TRIP_WINDOW, w2, sizeof w2);
			err_set(err, "%s is %u, more than %s, which is %u", w1,
			    p->trip_min_calls, w2, p->trip_window);
			return -1;
		}
	}
	if (p->max_open_timeout_ms < p->open_timeout_ms) {
		if (b->layer[PK_MAX_OPEN_TIMEOUT] == LAYER_BUILTIN) {
			p->max_open_timeout_ms = p->open_timeout_ms;
			b->origin[PK_MAX_OPEN_TIMEOUT] = raised_origin;
		} else {
			key_where(b, PK_MAX_OPEN_TIMEOUT, w1, sizeof w1);
			key_where(b, PK_OPEN_TIMEOUT, w2, sizeof w2);
			format_duration(p->max_open_timeout_ms, d1, sizeof d1);
			format_duration(p->open_timeout_ms, d2, sizeof d2);
			err_set(err, "%s is %s, shorter than %s, which is %s",
			    w1, d1, w2, d2);
			return -1;
		}
	}
	p->preset = b->preset;
	if (out != NULL)
		*out = *p;
	return 0;
}
