/* SPDX-License-Identifier: ISC */
/*
 * config.h: the libconfig file (SPEC section 4) turned into plain data.
 * config.c and config-layer.c are the only files that include libconfig.h.
 * The whole file is validated when it is loaded, every `breakers` entry
 * included, so that a mistake is reported on the first run rather than
 * when a rare NAME appears.
 */
#ifndef CBEXEC_CONFIG_H
#define CBEXEC_CONFIG_H

#include <sys/types.h>

#include <stdint.h>

#include "policy.h"
#include "util.h"

enum cb_sync {
	SYNC_FULL,
	SYNC_META,
	SYNC_NONE
};

enum cb_store_error {
	STORE_ERROR_OPEN,	/* run unguarded and warn */
	STORE_ERROR_CLOSED	/* refuse: exit 125 */
};

enum cb_fallback {
	FALLBACK_LOCAL,		/* Redis down: the local LMDB breaker, warn */
	FALLBACK_NONE		/* Redis down: follow on_store_error */
};

enum cb_log {
	CB_LOG_SYSLOG,
	CB_LOG_STDERR,
	CB_LOG_NONE
};

/* One `key = value` of `defaults` or of a `breakers` entry. */
struct config_item {
	enum policy_key		 key;
	struct policy_value	 value;	/* strings owned by the config */
	char			*origin;	/* "FILE:LINE" */
};

struct config_layer {
	char			*match;	/* fnmatch pattern; NULL for defaults */
	struct config_item	*items;
	size_t			 nitems;
	unsigned int		 line;	/* where it starts in the file */
};

/* How the config file was found (config show). */
enum config_source {
	CONFIG_SEARCHED,	/* the default paths, in order */
	CONFIG_OPTION,		/* -c */
	CONFIG_ENV		/* $CBEXEC_CONFIG */
};

#define CONFIG_TOP_MAX		16	/* room for the top-level keys */
#define CONFIG_SEARCH_MAX	2	/* XDG, /etc */

struct cb_config {
	char			*path;		/* file read (or that could not
						 * be); NULL: built-in */
	uint64_t		 content_hash;	/* of its text; 0: none read */
	char			*state;		/* `state`, or NULL */
	mode_t			 state_mode;	/* default 0600 */
	int			 state_mode_set; /* given in the file */
	enum cb_sync		 sync;
	long long		 max_breakers;	/* default 100000 */
	enum cb_store_error	 on_store_error;
	enum cb_log		 log;
	char			**on_transition;	/* argv or NULL */
	char			*redis_prefix;	/* key prefix, or NULL: "cbexec:" */
	int64_t			 store_timeout_ms;	/* default 250 */
	int64_t			 lock_timeout_ms;	/* default 10000 */
	int64_t			 scan_timeout_ms;	/* default 30000: a
							 * Redis walk for
							 * status, gc */
	enum cb_fallback	 fallback;	/* default FALLBACK_LOCAL */
	struct config_layer	 defaults;
	struct config_layer	*breakers;
	size_t			 nbreakers;
	/* Where things came from, for config show and config check. */
	enum config_source	 source;
	char			*searched[CONFIG_SEARCH_MAX];	/* paths
					 * tried, in order, up to the one
					 * found (CONFIG_SEARCHED only) */
	size_t			 nsearched;
	char			*unreachable;	/* a searched path behind a
					 * directory we may not search,
					 * taken as not there; or NULL */
	unsigned int		 top_line[CONFIG_TOP_MAX];	/* see
					 * config_line() */
};

/*
 * Find and load the config file: `path` if not NULL (from -c), else
 * $CBEXEC_CONFIG, else $XDG_CONFIG_HOME/cbexec/cbexec.conf (default
 * ~/.config/cbexec/cbexec.conf), else /etc/cbexec.conf.  A file named by -c
 * or CBEXEC_CONFIG must exist; the others are optional, and with none found
 * cfg holds the built-in defaults.  When running as root, refuses a file
 * that group or others can write.
 *
 * The null device (-c /dev/null) is no config file: built-in defaults.
 *
 * Returns 0, or -1 with "FILE:LINE: KEY: what is wrong" in err.  Either
 * way the caller owns cfg and frees it with config_free().  After -1, cfg
 * holds what of the file's top level was read right (path and state,
 * sync, log, ...), but no policy layer and no on_transition: a file with
 * a problem names nothing to execute (SPEC section 4).
 */
int	config_load(const char *path, struct cb_config *, struct cb_err *);
void	config_free(struct cb_config *);

/* Every problem a config file has, one "FILE:LINE: KEY: ..." line each. */
struct config_msgs {
	char	**v;
	size_t	  n;
};

/*
 * config_load, but going on after a problem so that msgs gets all of them
 * (config check): first each value's, in file order, then those of values
 * that contradict each other; err holds the first.  A file that
 * cannot be read or parsed at all gives -1 with err filled and msgs empty
 * or holding that one problem.  The caller frees msgs with
 * config_msgs_free() whatever the result.
 */
int	config_check(const char *path, struct cb_config *, struct config_msgs *,
	    struct cb_err *);
void	config_msgs_free(struct config_msgs *);

/*
 * Build the effective policy of NAME: built-in defaults, `defaults`, the
 * first `breakers` entry whose match fits NAME.  The caller then applies
 * command-line values (LAYER_CLI) and calls policy_finish().  The origins
 * point into cfg, which must outlive the builder.
 */
int	config_policy(const struct cb_config *, const char *name,
	    struct policy_builder *, struct cb_err *);

/*
 * The line of the file where top-level KEY (state, sync, log, ...) is
 * set, or 0 when the file does not set it (or KEY is not a top-level
 * key).
 */
unsigned int	config_line(const struct cb_config *, const char *key);

/*
 * A list value given on the command line (-o 'probe=["pg_isready","-h",
 * "db"]'), in the file's own syntax and read by libconfig as the text
 * `KEY = TEXT;` alone, never split by a rule of ours (SPEC section 1).
 * Returns 0 with *out a NULL-terminated argv in new memory (free it with
 * config_argv_free), or -1 with err naming KEY.
 */
int	config_cli_list(const char *key, const char *text, char ***out,
	    struct cb_err *);
void	config_argv_free(char **);

/* For --version: "libconfig 1.5.0", the version built against. */
const char	*config_lib_version(void);

/* The index of the first `breakers` entry matching NAME, or nbreakers for
 * none: config_policy gives every name of one index the same policy. */
size_t	config_entry(const struct cb_config *, const char *name);
/* The policy of the names entry i matches (its layer over defaults), or
 * of those no entry matches for i == nbreakers; as config_policy. */
int	config_entry_policy(const struct cb_config *, size_t i,
	    struct policy_builder *, struct cb_err *);

#endif
