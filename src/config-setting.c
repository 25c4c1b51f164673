/* SPDX-License-Identifier: ISC */
/*
 * config-setting.c: what reading any setting of the config file takes,
 * for config.c (the top level) and config-layer.c (the policy layers):
 * the "FILE:LINE: ..." problem lines, the type names they use, a checked
 * string, an integer libconfig could not hold (conftext.c found it), and
 * the known key nearest to an unknown one.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libconfig.h>

#include "config-int.h"
#include "hint.h"
#include "policy.h"

const char *const config_top_keys[] = {
	"state", "state_mode", "sync", "max_breakers", "on_store_error", "log",
	"on_transition", "defaults", "breakers", "redis_prefix",
	"store_timeout", "fallback", "lock_timeout",
	"scan_timeout", NULL
};

void
config_note(struct loader *ld, const char *line)
{
	if (ld->nfail++ == 0)
		err_set(ld->err, "%s", line);
	if (ld->msgs != NULL) {
		ld->msgs->v = xrealloc(ld->msgs->v, (ld->msgs->n + 1) *
		    sizeof *ld->msgs->v);
		ld->msgs->v[ld->msgs->n++] = xstrdup(line);
	}
}

int
config_fail(struct loader *ld, const config_setting_t *s, const char *fmt, ...)
{
	char	line[CB_ERR_MAX];
	va_list	ap;
	int	n;

	n = snprintf(line, sizeof line, "%s:%u: ", ld->path,
	    config_setting_source_line(s));
	if (n < 0 || (size_t)n >= sizeof line)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	config_note(ld, line);
	return -1;
}

/* Fails when s holds an integer libconfig could not read. */
int
config_check_int(struct loader *ld, const config_setting_t *s, const char *key)
{
	const struct conf_literal	*l;

	if ((config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64) ||
	    (l = config_setting_get_hook(s)) == NULL)
		return 0;
	if (l->suffix_helps)
		return config_fail(ld, s, "%s: integer %s is too %s for "
		    "libconfig; write %sL", key, l->text, l->text[0] == '-' ?
		    "small" : "large", l->text);
	return config_fail(ld, s, "%s: integer %s is out of range", key,
	    l->text);
}

const char *
config_type_name(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	default:
		return "nothing";
	}
}

int
config_get_string(struct loader *ld, const config_setting_t *s, const char *key,
    const char **out)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return config_fail(ld, s, "%s: must be a string, not %s", key,
		    config_type_name(s));
	*out = config_setting_get_string(s);
	if (**out == '\0')
		return config_fail(ld, s, "%s: must not be empty", key);
	return 0;
}

const char *
config_key_hint(const char *name, enum hint_scope scope, char *buf,
    size_t len)
{
	struct hint	 h;
	const char	*k;
	size_t		 i;
	int		 trip;

	hint_init(&h);
	if (scope == HINT_TOP) {
		for (i = 0; config_top_keys[i] != NULL; i++)
			hint_offer(&h, name, config_top_keys[i]);
	} else {
		for (i = 0; i < PK_COUNT; i++) {
			k = policy_key_name((enum policy_key)i);
			trip = strncmp(k, "trip.", 5) == 0;
			if (scope == HINT_TRIP && trip)
				hint_offer(&h, name, k + 5);
			else if (scope != HINT_TRIP && !trip)
				hint_offer(&h, name, k);
		}
		if (scope != HINT_TRIP)
			hint_offer(&h, name, "trip");
		if (scope == HINT_ENTRY)
			hint_offer(&h, name, "match");
	}
	if ((k = hint_best(&h, name)) == NULL)
		return "";
	snprintf(buf, len, " (did you mean %s?)", k);
	return buf;
}
