/* SPDX-License-Identifier: ISC */
/*
 * cmd-table.c: the command table, the one file that names every command
 * (only main and help read it), and help, the command that shows it:
 * `cbexec help [COMMAND]`, and `cbexec help --options COMMAND`: the words
 * COMMAND's grammar takes (its options and subcommands, one a line), from
 * the same table the parser reads, for completions and scripts.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "hint.h"

static const struct cmd_opt help_grammar[] = {
	{ "options",	0, 'o', no_argument },
	{ NULL,		0, 0,   0 }
};

static void
help_options(const struct cmd_entry *c)
{
	const struct cmd_entry *const	*sub;
	const struct cmd_opt		*o;

	for (o = c->args.opts; o != NULL && o->key != 0; o++) {
		if (o->letter != 0)
			printf("-%c\n", o->letter);
		if (o->name != NULL)
			printf("--%s\n", o->name);
	}
	printf("-h\n--help\n");
	for (sub = c->subs; sub != NULL && *sub != NULL; sub++)
		printf("%s\n", (*sub)->name);
}

static int
cmd_help_exec(struct cb_ctx *ctx, struct cmd_args *a)
{
	const struct cmd_entry *const	*e;
	const struct cmd_entry		*c = NULL;

	(void)ctx;
	if (a->argc == 1 && (c = cmd_find(a->argv[0])) == NULL) {
		cmd_warnx("help: unknown command '%s'", a->argv[0]);
		return EXIT_USAGE;
	}
	if (cmd_has(a, 'o')) {
		if (c == NULL)
			return cmd_usage(&cmd_help_entry, EXIT_USAGE);
		help_options(c);
		return EXIT_OK;
	}
	if (c != NULL) {
		printf("usage: cbexec %s %s\n\n%s\n%s", c->name, c->usage,
		    c->summary, c->help);
		return EXIT_OK;
	}
	printf("usage: cbexec [-qv] [-c FILE] [-s PATH] COMMAND [ARG...]\n\n"
	    "commands:\n");
	for (e = cmd_table; *e != NULL; e++)
		printf("  %-8s %s\n", (*e)->name, (*e)->summary);
	printf("\n`cbexec help COMMAND` for a command's options; "
	    "cbexec(1), cbexec.conf(5).\n");
	return EXIT_OK;
}

const struct cmd_entry cmd_help_entry = {
	"help",
	"[COMMAND] | --options COMMAND",
	"show help for cbexec or one command",
	"      --options  list COMMAND's options and subcommands, one a line\n",
	{ help_grammar, 0, 1, 0, NULL },
	0,
	NULL,
	cmd_help_exec
};

const struct cmd_entry *const cmd_table[] = {
	&cmd_run_entry,
	&cmd_check_entry,
	&cmd_status_entry,
	&cmd_reset_entry,
	&cmd_trip_entry,
	&cmd_forget_entry,
	&cmd_acquire_entry,
	&cmd_release_entry,
	&cmd_config_entry,
	&cmd_gc_entry,
	&cmd_help_entry,
	NULL
};

const struct cmd_entry *
cmd_find(const char *name)
{
	const struct cmd_entry *const	*e;

	for (e = cmd_table; *e != NULL; e++)
		if (strcmp((*e)->name, name) == 0)
			return *e;
	return NULL;
}

const char *
cmd_nearest(const char *name)
{
	const struct cmd_entry *const	*e;
	struct hint			 h;

	hint_init(&h);
	for (e = cmd_table; *e != NULL; e++)
		hint_offer(&h, name, (*e)->name);
	return hint_best(&h, name);
}
