/* SPDX-License-Identifier: ISC */
/*
 * run-opts.c: RUN-OPTIONS (SPEC section 1), the options of `run` that
 * `config show NAME` takes too: their grammar, the values they give (an
 * -o KEY=VALUE checked against the key table, a list read as the file's
 * would be), and those values laid over a policy as its command-line
 * layer.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "hint.h"

/* RUN-OPTIONS (SPEC section 1), shared with `config show NAME`. */
const struct cmd_opt run_grammar[] = {
	{ "timeout",		't', 't', required_argument },
	{ "kill-after",		'k', 'k', required_argument },
	{ "foreground",		0,   'F', no_argument },
	{ "on-open",		0,   'O', required_argument },
	{ "wait",		0,   'W', required_argument },
	{ "retries",		0,   'R', required_argument },
	{ "retry-delay",	0,   'D', required_argument },
	{ "preset",		0,   'P', required_argument },
	{ "failure-codes",	0,   'f', required_argument },
	{ "success-codes",	0,   'S', required_argument },
	{ "ignore-codes",	0,   'i', required_argument },
	{ NULL,			'o', 'o', required_argument },
	{ NULL,			0,   0,   0 }
};

/* The policy key each option sets; -1: none. */
static int
option_key(int ch)
{
	switch (ch) {
	case 't':
		return PK_TIMEOUT;
	case 'k':
		return PK_KILL_AFTER;
	case 'O':
		return PK_ON_OPEN;
	case 'R':
		return PK_RETRIES;
	case 'D':
		return PK_RETRY_DELAY;
	case 'P':
		return PK_PRESET;
	case 'f':
		return PK_FAILURE_CODES;
	case 'S':
		return PK_SUCCESS_CODES;
	case 'i':
		return PK_IGNORE_CODES;
	default:
		return -1;
	}
}

/* An unknown -o KEY, with the nearest known key as the config file's
 * errors suggest it (SPEC section 4: -o is validated like the file). */
static void
run_unknown_key(const char *what, const char *key)
{
	struct hint	 h;
	const char	*best;
	int		 k;

	hint_init(&h);
	for (k = 0; k < PK_COUNT; k++)
		hint_offer(&h, key, policy_key_name((enum policy_key)k));
	if ((best = hint_best(&h, key)) != NULL)
		cmd_warnx("%s: -o: unknown policy key '%s' (did you mean "
		    "%s?)", what, key, best);
	else
		cmd_warnx("%s: -o: unknown policy key '%s'", what, key);
}

int
run_options(const struct cmd_args *a, struct run_opts *ro)
{
	struct cb_err	 err;
	const char	*eq, *arg;
	char		 key[128];
	int		 i, k;

	memset(ro, 0, sizeof *ro);
	for (i = 0; i < a->nv; i++) {
		arg = a->v[i].arg;
		if ((k = option_key(a->v[i].opt->key)) != -1) {
			ro->v[ro->nv].key = (enum policy_key)k;
			ro->v[ro->nv++].value = arg;
			continue;
		}
		if (a->v[i].opt->key == 'F') {
			ro->foreground = 1;
			continue;
		}
		if (a->v[i].opt->key == 'W') {
			if (busy_wait_arg(a->what, arg, &ro->wait_ms) == -1)
				return -1;
			continue;
		}
		/* -o KEY=VALUE */
		if ((eq = strchr(arg, '=')) == NULL ||
		    (size_t)(eq - arg) >= sizeof key) {
			cmd_warnx("%s: -o wants KEY=VALUE, not '%s'", a->what,
			    arg);
			return -1;
		}
		memcpy(key, arg, (size_t)(eq - arg));
		key[eq - arg] = '\0';
		if ((k = policy_key_lookup(key)) == -1) {
			run_unknown_key(a->what, key);
			return -1;
		}
		ro->v[ro->nv].key = (enum policy_key)k;
		ro->v[ro->nv].value = eq + 1;
		/* A list in the file's own syntax (SPEC section 1). */
		if (policy_key_is_list((enum policy_key)k) &&
		    strcmp(eq + 1, "none") != 0 &&
		    config_cli_list(key, eq + 1, &ro->v[ro->nv].list,
		    &err) == -1) {
			cmd_warnx("%s: -o: %s", a->what, err.msg);
			run_options_free(ro);
			return -1;
		}
		ro->nv++;
	}
	return 0;
}

void
run_options_free(struct run_opts *ro)
{
	int	i;

	for (i = 0; i < ro->nv; i++) {
		config_argv_free(ro->v[i].list);
		ro->v[i].list = NULL;
	}
}

int
run_asks_fail(const struct run_opts *ro)
{
	int	i, fail = 0;

	/* The last one given wins, as in run_apply. */
	for (i = 0; i < ro->nv; i++)
		if (ro->v[i].key == PK_ON_OPEN)
			fail = strcmp(ro->v[i].value, "fail") == 0;
	return fail;
}

int
run_apply(const char *cmd, const struct run_opts *ro,
    struct policy_builder *b)
{
	struct policy_value	v;
	struct cb_err		err;
	int			i;

	for (i = 0; i < ro->nv; i++) {
		memset(&v, 0, sizeof v);
		v.type = ro->v[i].list != NULL ? PV_LIST : PV_STRING;
		v.s = ro->v[i].value;
		v.list = ro->v[i].list;
		v.from_cli = 1;
		if (policy_set(b, ro->v[i].key, &v, LAYER_CLI, "command line",
		    &err) == -1) {
			cmd_warnx("%s: %s", cmd, err.msg);
			return -1;
		}
	}
	return 0;
}
