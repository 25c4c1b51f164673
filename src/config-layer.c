/* SPDX-License-Identifier: ISC */
/*
 * config-layer.c: the policy layers of the config file (SPEC section 4):
 * the `defaults` group and each `breakers` entry, read key by key with
 * every value checked by policy.c on its own line, then every policy the
 * file can produce finished once, so that a bad combination is reported
 * before any NAME needs it; and, for a NAME, its layers laid over the
 * built-in defaults.  A list value of the command line (-o probe=[...]) is
 * read here too, by libconfig, as the file's would be.  config.c reads the
 * rest; the two are the only files that include libconfig.h
 * (config-int.h).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libconfig.h>

#include "config.h"
#include "config-int.h"
#include "hint.h"

static void
argv_free(char *const *argv)
{
	size_t	i;

	if (argv == NULL)
		return;
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free((void *)argv);
}

void
config_layer_free(struct config_layer *l)
{
	size_t	i;

	for (i = 0; i < l->nitems; i++) {
		free((char *)l->items[i].value.s);
		argv_free(l->items[i].value.list);
		free(l->items[i].origin);
	}
	free(l->items);
	free(l->match);
	memset(l, 0, sizeof *l);
}

/*
 * A list of strings for a key that takes one (probe), NULL-terminated in
 * *out, or config_fail naming the element that is not a string.
 */
static int
get_list(struct loader *ld, const config_setting_t *s, const char *key,
    char ***out)
{
	config_setting_t	*e;
	char			**v;
	int			  i, n;

	n = config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned int)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return config_fail(ld, e, "%s: element %d must be a "
			    "string, not %s", key, i + 1, config_type_name(e));
	}
	v = xcalloc((size_t)n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = xstrdup(config_setting_get_string_elem(s, i));
	*out = v;
	return 0;
}

/* Add `key = value` to layer l after policy_set has accepted it. */
static int
add_item(struct loader *ld, struct config_layer *l, enum policy_key key,
    const config_setting_t *s)
{
	struct policy_value	 v;
	struct config_item	*it;
	struct cb_err		 perr;
	const char		*name = policy_key_name(key);
	char			**list = NULL;

	memset(&v, 0, sizeof v);
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		if (config_check_int(ld, s, name) != 0)
			return -1;
		v.type = PV_INT;
		v.i = config_setting_get_int64(s);
		break;
	case CONFIG_TYPE_FLOAT:
		v.type = PV_FLOAT;
		v.f = config_setting_get_float(s);
		break;
	case CONFIG_TYPE_STRING:
		v.type = PV_STRING;
		v.s = config_setting_get_string(s);
		break;
	case CONFIG_TYPE_BOOL:
		v.type = PV_BOOL;
		v.i = config_setting_get_bool(s);
		break;
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_ARRAY:
		if (policy_key_is_list(key)) {
			if (get_list(ld, s, name, &list) != 0)
				return -1;
			v.type = PV_LIST;
			v.list = list;
			break;
		}
		/* FALLTHROUGH */
	default:
		return config_fail(ld, s, "%s: must be %s, not %s", name,
		    policy_key_is_list(key) ? "a list of strings" :
		    "a single value", config_type_name(s));
	}

	/* Each value is checked on its own line; combinations later. */
	if (policy_check(key, &v, &perr) != 0) {
		argv_free(list);
		return config_fail(ld, s, "%s", perr.msg);
	}

	l->items = xrealloc(l->items, (l->nitems + 1) * sizeof *l->items);
	it = &l->items[l->nitems++];
	it->key = key;
	it->value = v;
	if (v.type == PV_STRING)
		it->value.s = xstrdup(v.s);
	xasprintf(&it->origin, "%s:%u", ld->path,
	    config_setting_source_line(s));
	return 0;
}

static int
load_trip(struct loader *ld, struct config_layer *l,
    const config_setting_t *g)
{
	config_setting_t	*s;
	char			 full[128], hint[160];
	int			 i, n, key, bad = 0;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return config_fail(ld, g, "trip: must be a group such as { "
		    "policy = \"rate\"; }, not %s", config_type_name(g));
	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(g, (unsigned int)i);
		snprintf(full, sizeof full, "trip.%s", config_setting_name(s));
		if ((key = policy_key_lookup(full)) < 0)
			bad = config_fail(ld, s, "%s: unknown key%s", full,
			    config_key_hint(config_setting_name(s), HINT_TRIP,
			    hint, sizeof hint));
		else if (add_item(ld, l, (enum policy_key)key, s) != 0)
			bad = -1;
	}
	return bad;
}

/* A `defaults` group or a `breakers` entry (entry != 0). */
int
config_load_layer(struct loader *ld, struct config_layer *l,
    const config_setting_t *g, int entry)
{
	config_setting_t	*s;
	const char		*name, *match;
	char			 hint[160];
	int			 i, n, key, bad = 0;

	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(g, (unsigned int)i);
		name = config_setting_name(s);
		if (entry && strcmp(name, "match") == 0) {
			if (config_get_string(ld, s, "match", &match) != 0)
				bad = -1;
			else
				l->match = xstrdup(match);
		} else if (strcmp(name, "trip") == 0) {
			if (load_trip(ld, l, s) != 0)
				bad = -1;
		} else if ((key = policy_key_lookup(name)) >= 0) {
			if (add_item(ld, l, (enum policy_key)key, s) != 0)
				bad = -1;
		} else if (strncmp(name, "trip_", 5) == 0) {
			snprintf(hint, sizeof hint, "trip.%s", name + 5);
			if (policy_key_lookup(hint) >= 0)
				bad = config_fail(ld, s, "%s: unknown key "
				    "(write trip = { %s = ...; })", name,
				    name + 5);
			else
				bad = config_fail(ld, s, "%s: unknown key",
				    name);
		} else
			bad = config_fail(ld, s, "%s: unknown key%s", name,
			    config_key_hint(name, entry ? HINT_ENTRY :
			    HINT_DEFAULTS, hint, sizeof hint));
	}
	return bad;
}

static int
apply_layer(const struct config_layer *l, enum policy_layer layer,
    struct policy_builder *b, struct cb_err *err)
{
	struct cb_err	perr;
	size_t		i;

	for (i = 0; i < l->nitems; i++) {
		if (policy_set(b, l->items[i].key, &l->items[i].value, layer,
		    l->items[i].origin, &perr) != 0) {
			err_set(err, "%s: %s", l->items[i].origin, perr.msg);
			return -1;
		}
	}
	return 0;
}

int
config_load_breakers(struct loader *ld, const config_setting_t *list)
{
	struct cb_config	*cfg = ld->cfg;
	config_setting_t	*e;
	int			 i, n, bad = 0;

	if (config_setting_type(list) != CONFIG_TYPE_LIST)
		return config_fail(ld, list, "breakers: must be a list of "
		    "groups such as ( { match = \"api-*\"; }, ... ), not %s",
		    config_type_name(list));
	n = config_setting_length(list);
	cfg->breakers = xcalloc((size_t)n, sizeof *cfg->breakers);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(list, (unsigned int)i);
		cfg->nbreakers++;
		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			bad = config_fail(ld, e, "breakers: entry %d must be a "
			    "group, not %s", i + 1, config_type_name(e));
			continue;
		}
		cfg->breakers[i].line = config_setting_source_line(e);
		if (config_load_layer(ld, &cfg->breakers[i], e, 1) != 0)
			bad = -1;
		if (cfg->breakers[i].match == NULL &&
		    config_setting_get_member(e, "match") == NULL)
			bad = config_fail(ld, e, "breakers: entry %d has no "
			    "match", i + 1);
	}
	return bad;
}

/*
 * Every policy the file can produce must finish: `defaults` alone (a NAME
 * no entry matches) and each entry laid over it.
 */
int
config_check_layers(struct loader *ld, config_t *lc)
{
	struct cb_config	*cfg = ld->cfg;
	struct policy_builder	 b;
	struct cb_err		 perr;
	config_setting_t	*s;
	size_t			 i;
	int			 bad = 0;

	if (cfg->defaults.nitems > 0) {
		s = config_lookup(lc, "defaults");
		policy_init(&b);
		if (apply_layer(&cfg->defaults, LAYER_DEFAULTS, &b,
		    &perr) != 0) {
			config_note(ld, perr.msg);
			return -1;
		}
		/* Every entry is laid over defaults: report it once. */
		if (policy_finish(&b, NULL, &perr) != 0)
			return config_fail(ld, s, "defaults: %s", perr.msg);
	}
	s = config_lookup(lc, "breakers");
	for (i = 0; i < cfg->nbreakers; i++) {
		policy_init(&b);
		if (apply_layer(&cfg->defaults, LAYER_DEFAULTS, &b,
		    &perr) != 0 ||
		    apply_layer(&cfg->breakers[i], LAYER_ENTRY, &b,
		    &perr) != 0) {
			config_note(ld, perr.msg);
			bad = -1;
		} else if (policy_finish(&b, NULL, &perr) != 0)
			bad = config_fail(ld, config_setting_get_elem(s,
			    (unsigned int)i), "breakers entry '%.80s': %s",
			    cfg->breakers[i].match != NULL ?
			    cfg->breakers[i].match : "?", perr.msg);
	}
	return bad;
}

size_t
config_entry(const struct cb_config *cfg, const char *name)
{
	size_t	i;

	for (i = 0; i < cfg->nbreakers; i++)
		if (fnmatch(cfg->breakers[i].match, name, 0) == 0)
			break;
	return i;
}

int
config_policy(const struct cb_config *cfg, const char *name,
    struct policy_builder *b, struct cb_err *err)
{
	size_t	i;

	policy_init(b);
	if (cfg == NULL)
		return 0;
	if (apply_layer(&cfg->defaults, LAYER_DEFAULTS, b, err) != 0)
		return -1;
	if ((i = config_entry(cfg, name)) < cfg->nbreakers)
		return apply_layer(&cfg->breakers[i], LAYER_ENTRY, b, err);
	return 0;
}

int
config_entry_policy(const struct cb_config *cfg, size_t i,
    struct policy_builder *b, struct cb_err *err)
{
	policy_init(b);
	if (apply_layer(&cfg->defaults, LAYER_DEFAULTS, b, err) != 0)
		return -1;
	if (i < cfg->nbreakers)
		return apply_layer(&cfg->breakers[i], LAYER_ENTRY, b, err);
	return 0;
}

void
config_argv_free(char **argv)
{
	argv_free(argv);
}

int
config_cli_list(const char *key, const char *text, char ***out,
    struct cb_err *err)
{
	struct conf_literals	 lits;
	config_t		 lc;
	config_setting_t	*root, *s, *e;
	char			*doc;
	unsigned int		 line;
	int			 i, n, rc = -1;

	*out = NULL;
	if (strlen(text) > 65536) {
		err_set(err, "%s: a list longer than 64 KiB", key);
		return -1;
	}
	/* The newline ends a comment the text may end with. */
	xasprintf(&doc, "%s = %s\n;\n", key, text);
	memset(&lits, 0, sizeof lits);
	if (conftext_scan(doc, &lits, &line) != 0) {
		conftext_free(&lits);
		free(doc);
		err_set(err, "%s: @include is not supported", key);
		return -1;
	}
	conftext_free(&lits);
	config_init(&lc);
	if (config_read_string(&lc, doc) != CONFIG_TRUE) {
		err_set(err, "%s: must be a list of strings in the config "
		    "file's syntax, such as [\"pg_isready\", \"-h\", \"db\"] "
		    "(%s)", key, config_error_text(&lc) != NULL ?
		    config_error_text(&lc) : "syntax error");
		goto out;
	}
	root = config_root_setting(&lc);
	s = config_setting_get_elem(root, 0);
	if (config_setting_length(root) != 1 || s == NULL ||
	    (config_setting_type(s) != CONFIG_TYPE_LIST &&
	    config_setting_type(s) != CONFIG_TYPE_ARRAY)) {
		err_set(err, "%s: must be a list of strings such as "
		    "[\"pg_isready\", \"-h\", \"db\"], or none", key);
		goto out;
	}
	n = config_setting_length(s);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned int)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING) {
			err_set(err, "%s: element %d must be a string, not %s",
			    key, i + 1, config_type_name(e));
			goto out;
		}
	}
	*out = xcalloc((size_t)n + 1, sizeof **out);
	for (i = 0; i < n; i++)
		(*out)[i] = xstrdup(config_setting_get_string_elem(s, i));
	rc = 0;
out:
	config_destroy(&lc);
	free(doc);
	return rc;
}
