/* SPDX-License-Identifier: ISC */
/*
 * policy.h: the per-breaker policy (SPEC section 3), its built-in defaults,
 * presets, and the validation shared by the config file and the command
 * line.  Pure: no libconfig, no I/O.
 *
 * A policy is built in layers: built-in defaults, the config file's
 * `defaults` group, the first matching `breakers` entry, then the command
 * line.  Each layer calls policy_set() once per key; later layers override
 * earlier ones.  policy_finish() resolves the three exit code classes and
 * yields the effective struct cb_policy.
 */
#ifndef CBEXEC_POLICY_H
#define CBEXEC_POLICY_H

#include <stdint.h>

#include "units.h"
#include "util.h"

enum cb_trip_policy {
	TRIP_CONSECUTIVE,
	TRIP_RATE,
	TRIP_TIME
};

/* What a timeout or a death by signal counts as. */
enum cb_verdict {
	VERDICT_FAILURE,
	VERDICT_SUCCESS,
	VERDICT_IGNORE
};

enum cb_on_open {
	ON_OPEN_FAIL,
	ON_OPEN_SKIP
};

/* What of the command's own output reaches cbexec's caller (SPEC 6.5). */
enum cb_output {
	OUTPUT_PASS,		/* all of it, as it comes (timeout(1)) */
	OUTPUT_ON_FAILURE,	/* held; written out unless a success */
	OUTPUT_ON_CHANGE	/* held; written out when the run changes
				 * the breaker's state or times out */
};

/* Bounds enforced by policy_set(). */
#define POLICY_MAX_FAILURES	1000	/* trip.failures */
#define POLICY_MAX_WINDOW	1000	/* trip.window, trip.min_calls */
#define POLICY_MAX_PROBES	64	/* half_open_max_calls */
#define POLICY_MAX_CONCURRENT	64	/* max_concurrent */
#define POLICY_MAX_RETRIES	100	/* retries */
#define POLICY_MAX_RETRY_DELAY	60000	/* retry_delay, ms: the cap of
					 * the doubled delay too */
#define POLICY_MAX_RATE_N	1000000	/* max_rate's N */
#define POLICY_MAX_RATE_PER	(366 * UNITS_MS_DAY)	/* its DURATION */
#define POLICY_MAX_BURST	10000	/* rate_burst */

/* max_rate (SPEC 2d): n calls per per_ms; n 0: none. */
struct cb_rate {
	uint32_t	n;
	int64_t		per_ms;
};

struct cb_policy {
	enum cb_trip_policy	trip_policy;
	uint32_t		trip_failures;
	int64_t			trip_period_ms;
	uint32_t		trip_window;
	uint32_t		trip_min_calls;
	double			trip_failure_rate;

	int64_t			open_timeout_ms;
	int64_t			max_open_timeout_ms;
	double			backoff;
	double			jitter;
	uint32_t		half_open_max_calls;
	int64_t			probe_lease_ms;
	/* The probe command (SPEC 2c): argv, NULL-terminated, owned by the
	 * config (or static); NULL: none, the job is the probe. */
	char *const		*probe;
	int64_t			probe_timeout_ms;	/* SIGKILL after */

	int64_t			timeout_ms;	/* 0: none */
	int64_t			kill_after_ms;	/* 0: never */
	int64_t			slow_call_ms;	/* 0: none */

	struct cb_codeset	failure_codes;	/* resolved, disjoint */
	struct cb_codeset	success_codes;
	struct cb_codeset	ignore_codes;
	enum cb_verdict		timeout_is;
	enum cb_verdict		signal_is;

	enum cb_on_open		on_open;
	int			open_exit_code;

	uint32_t		retries;	/* run --retries: 0 none */
	int64_t			retry_delay_ms;	/* first retry delay */

	uint32_t		max_concurrent;	/* run slots (SPEC 2b), 0 */
	enum cb_on_open		on_busy;	/* no run slot free */
	struct cb_rate		max_rate;	/* SPEC 2d; n 0: none */
	uint32_t		rate_burst;	/* calls let through at once */
	int			preset;		/* policy_presets index, -1 */

	int64_t			expect_every_ms;	/* a success is due
						 * this often (SPEC 7); 0:
						 * none */
	enum cb_output		output;		/* SPEC 6.5 */
};

/* The policy keys, in the order `config show` prints them. */
enum policy_key {
	PK_TRIP_POLICY,
	PK_TRIP_FAILURES,
	PK_TRIP_PERIOD,
	PK_TRIP_WINDOW,
	PK_TRIP_MIN_CALLS,
	PK_TRIP_FAILURE_RATE,
	PK_OPEN_TIMEOUT,
	PK_MAX_OPEN_TIMEOUT,
	PK_BACKOFF,
	PK_JITTER,
	PK_HALF_OPEN_MAX_CALLS,
	PK_PROBE_LEASE,
	PK_PROBE,
	PK_PROBE_TIMEOUT,
	PK_TIMEOUT,
	PK_KILL_AFTER,
	PK_MAX_CONCURRENT,
	PK_ON_BUSY,
	PK_MAX_RATE,
	PK_RATE_BURST,
	PK_FAILURE_CODES,
	PK_SUCCESS_CODES,
	PK_IGNORE_CODES,
	PK_PRESET,
	PK_TIMEOUT_IS,
	PK_SIGNAL_IS,
	PK_SLOW_CALL,
	PK_ON_OPEN,
	PK_OPEN_EXIT_CODE,
	PK_RETRIES,
	PK_RETRY_DELAY,
	PK_EXPECT_EVERY,
	PK_OUTPUT,
	PK_COUNT
};

/* A value as the config file or the command line gives it. */
enum policy_vtype {
	PV_INT,		/* libconfig int or int64 */
	PV_FLOAT,	/* libconfig float */
	PV_STRING,	/* libconfig string, or any -o/--flag value */
	PV_BOOL,	/* libconfig bool: always a type error today */
	PV_LIST		/* libconfig list or array of strings: list */
};

struct policy_value {
	enum policy_vtype	 type;
	long long		 i;
	double			 f;
	const char		*s;
	/*
	 * From the command line every value is a string and is parsed by the
	 * key's own type (so -o trip.failures=7 works); from the config file
	 * a string where a number is wanted is a type error.
	 */
	int			 from_cli;
	/* PV_LIST: the strings, NULL-terminated, owned by the caller (the
	 * config), which must outlive every policy made of it. */
	char *const		*list;
};

/*
 * The three exit code classes, in the order of the builder's cls[] and
 * cls_set[] and of their keys, which follow each other in enum policy_key.
 */
enum policy_class {
	POLICY_CLASS_FAILURE,
	POLICY_CLASS_SUCCESS,
	POLICY_CLASS_IGNORE,
	POLICY_CLASSES
};

static inline enum policy_key
policy_class_key(int cls)
{
	return (enum policy_key)(PK_FAILURE_CODES + cls);
}

_Static_assert(PK_SUCCESS_CODES == PK_FAILURE_CODES + 1 &&
    PK_IGNORE_CODES == PK_FAILURE_CODES + 2, "the class keys in a row");

/* Layers, lowest first.  Two explicit code classes may not overlap within
 * one layer; a higher layer's class wins over a lower one's. */
enum policy_layer {
	LAYER_BUILTIN,
	LAYER_DEFAULTS,		/* config file `defaults` */
	LAYER_ENTRY,		/* the matching `breakers` entry */
	LAYER_CLI,		/* command line */
	LAYER_COUNT
};

struct policy_builder {
	struct cb_policy	 p;
	/* Where each key's value came from: "built-in", "FILE:LINE",
	 * "command line".  Points into the caller's storage, which must
	 * outlive the builder. */
	const char		*origin[PK_COUNT];
	enum policy_layer	 layer[PK_COUNT];
	/* The explicit classes and the preset, resolved by policy_finish. */
	struct cb_codeset	 cls[POLICY_CLASSES];
	int			 cls_set[POLICY_CLASSES]; /* 0, layer + 1 */
	int			 preset;	/* -1: none */
};

/* Key name <-> index; -1 for an unknown name ("trip.policy", with dots),
 * NULL for an index out of range. */
int		 policy_key_lookup(const char *);
const char	*policy_key_name(enum policy_key);
/* One line saying what the key does ("the per-run timeout"). */
const char	*policy_key_help(enum policy_key);
/* 1 when the key's value is an argv list (probe), which the config file
 * gives as a list of strings (PV_LIST); 0 for a single value. */
int		 policy_key_is_list(enum policy_key);

/* Every key at its default (SPEC section 3), from "built-in". */
void	policy_init(struct policy_builder *);

/*
 * Start b from p, a finished policy (the one a breaker last ran under,
 * for a config that cannot be used: SPEC section 4), every key from
 * origin in the lowest layer, so that each later layer overrides it as
 * it would the built-in defaults; its code classes stay unless a class
 * or preset laid over names the codes.  Never a probe command.
 */
void	policy_init_from(struct policy_builder *, const struct cb_policy *p,
	    const char *origin);

/* Class cls's built-in codes (failure 1-255, success 0, ignore none);
 * empty for a cls out of range. */
struct cb_codeset policy_default_class(int cls);

/*
 * Set key to value in layer, remembering origin.  Returns 0, or -1 with a
 * message in err that names the key and says what is wrong ("trip.failures:
 * must be an integer from 1 to 1000, not 0"); the caller prefixes the file
 * and line.
 */
int	policy_set(struct policy_builder *, enum policy_key,
	    const struct policy_value *, enum policy_layer, const char *origin,
	    struct cb_err *);

/* Whether policy_set would accept value for key, without setting it: 0,
 * or -1 with the same message in err. */
int	policy_check(enum policy_key, const struct policy_value *,
	    struct cb_err *);

/*
 * Resolve the code classes (SPEC section 3) and check cross-key
 * constraints.  On an overlap between two explicit classes of one layer,
 * fails naming both keys and the first shared code.
 */
int	policy_finish(struct policy_builder *, struct cb_policy *,
	    struct cb_err *);

/*
 * Whether n, read from elsewhere than a spelling (a record's snapshot of
 * the policy: SPEC 5), is a value policy_set could have given key k: an
 * index of its names (an enum), -1 or a preset's index (preset), lo..hi
 * (an integer), lo..hi milliseconds, or 0 where "none" is allowed (a
 * duration).  The bounds are the key table's, so that a value is checked
 * the same wherever it comes from.  1 or 0; 0 for a key of another type.
 */
int	policy_int_in_range(enum policy_key, long long n);

/* Whether r is a max_rate policy_set could have given (n 0: none, with
 * per_ms 0).  1 or 0. */
int	policy_rate_valid(const struct cb_rate *);

/* The same for a number (a KT_FLOAT key); NaN is out of range. */
int	policy_float_in_range(enum policy_key, double f);

/* Print key's effective value as the config file would spell it. */
void	policy_format(const struct policy_builder *, enum policy_key,
	    char *, size_t);

#endif
