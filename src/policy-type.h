/* SPDX-License-Identifier: ISC */
/*
 * policy-type.h: what policy.c (the key table and the builder) and
 * policy-type.c (reading, storing and printing each type of value) share.
 * Not for other callers; policy.h is the interface.
 */
#ifndef CBEXEC_POLICY_TYPE_H
#define CBEXEC_POLICY_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

/*
 * How a key's value is read, stored and printed: types[] below holds one
 * entry of functions per type, so a new type (an argv list of strings, say,
 * stored as a char ** the config owns) is one entry there, one union
 * member here and its keys in keys[].
 */
enum key_type {
	KT_ENUM,	/* a name of names[], stored as an enum (an int) */
	KT_U32,		/* an integer lo..hi, stored as a uint32_t */
	KT_INT,		/* an integer lo..hi, stored as an int */
	KT_FLOAT,	/* a number flo..fhi, stored as a double */
	KT_DURATION,	/* lo..hi ms (hi 0: no cap), stored as an int64_t */
	KT_CODES,	/* an exit code list, stored as a struct cb_codeset */
	KT_PRESET,	/* a preset name or "none", stored as an int (-1) */
	KT_ARGV,	/* a list of strings or "none", stored as a char *const *
			 * the config owns (NULL) */
	KT_RATE,	/* "N/DURATION" or "none", stored as a struct cb_rate
			 * (n 1..hi, the duration lo..fhi ms) */
	KT_COUNT
};

/* A value parsed for its key, before policy_set decides to keep it. */
union key_val {
	long long		n;	/* KT_ENUM, KT_U32, KT_INT, KT_PRESET */
	double			f;	/* KT_FLOAT */
	int64_t			ms;	/* KT_DURATION */
	struct cb_codeset	codes;	/* KT_CODES */
	char *const		*argv;	/* KT_ARGV; NULL: none */
	struct cb_rate		 rate;	/* KT_RATE; n 0: none */
};

struct key_def {
	const char		*name;
	enum key_type		 type;
	size_t			 off;	/* in struct policy_builder */
	const char		*def;	/* the default, as -o would spell it */
	long long		 lo;	/* KT_U32, KT_INT; KT_DURATION: ms */
	long long		 hi;	/* the most; KT_DURATION 0: none */
	double			 flo;	/* KT_FLOAT */
	double			 fhi;
	int			 flo_open;	/* flo itself is not allowed */
	const char *const	*names;	/* KT_ENUM, in the enum's order */
	int			 none;	/* KT_DURATION: 0 is spelt "none" */
	const char		*help;
};

/* Each type's functions, indexed by enum key_type (policy-type.c). */
struct key_type_ops {
	int	(*parse)(const struct key_def *, const struct policy_value *,
		    union key_val *, struct cb_err *);
	void	(*store)(void *, const union key_val *);
	void	(*format)(const struct key_def *, const void *, char *,
		    size_t);
};
extern const struct key_type_ops	policy_types[KT_COUNT];

#endif
