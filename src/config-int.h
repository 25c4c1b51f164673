/* SPDX-License-Identifier: ISC */
/*
 * config-int.h: what config.c (the file, its top level) and config-layer.c
 * (the policy layers) share while a file is loaded.  These two, and only
 * these, include libconfig.h; config.h is the interface for everyone
 * else.
 */
#ifndef CBEXEC_CONFIG_INT_H
#define CBEXEC_CONFIG_INT_H

#include <libconfig.h>

#include "config.h"
#include "conftext.h"

/* One load of one file. */
struct loader {
	const char		*path;
	struct cb_config	*cfg;
	struct cb_err		*err;
	struct conf_literals	 lits;		/* conftext.c's scan */
	int			 nfail;		/* problems found so far */
	struct config_msgs	*msgs;		/* every one, or NULL */
};

/* The top-level keys, in the order of cfg->top_line[]; NULL-terminated. */
extern const char *const config_top_keys[];

/*
 * One problem, a whole "FILE:LINE: ..." line: the first goes to ld->err
 * (what run and the others report), every one to ld->msgs (config check).
 */
void	config_note(struct loader *, const char *line);

/* "FILE:LINE: " and a message about setting s.  Always returns -1. */
int	config_fail(struct loader *, const config_setting_t *,
	    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* "an integer", "a group", ... for messages. */
const char *config_type_name(const config_setting_t *);

/* Fails (config_fail) when s holds an integer libconfig could not read. */
int	config_check_int(struct loader *, const config_setting_t *,
	    const char *key);

/* A non-empty string setting, or config_fail. */
int	config_get_string(struct loader *, const config_setting_t *,
	    const char *key, const char **);

/* Where an unknown key was found: which keys could have been meant. */
enum hint_scope {
	HINT_TOP,		/* the top level */
	HINT_DEFAULTS,		/* `defaults` */
	HINT_ENTRY,		/* a `breakers` entry: match too */
	HINT_TRIP		/* a trip group: the trip.* keys, unprefixed */
};

/*
 * " (did you mean KEY?)" for the known key nearest to an unknown one
 * (open_timout -> open_timeout, breaker -> breakers, open-timeout ->
 * open_timeout), when one is within two edits and the name is not so
 * short that anything would be; else "".  In buf, or a constant.
 */
const char *config_key_hint(const char *name, enum hint_scope, char *buf,
	    size_t len);

/* Read group g, a `defaults` group or (entry != 0) a `breakers` entry,
 * into l.  0, or -1 after config_fail for each problem. */
int	config_load_layer(struct loader *, struct config_layer *l,
	    const config_setting_t *g, int entry);

/* Read the `breakers` list into ld->cfg.  0 or -1 as above. */
int	config_load_breakers(struct loader *, const config_setting_t *);

/* Finish every policy the file can produce: `defaults` alone and each
 * entry laid over it.  0 or -1 as above. */
int	config_check_layers(struct loader *, config_t *);

/* Free l's items and match, and zero it. */
void	config_layer_free(struct config_layer *);

#endif
