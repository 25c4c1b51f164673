/*
 * cmd-help.c: `cbexec help [COMMAND]`.
 */
#include <stdio.h>

#include "cmd.h"

static int
cmd_help_exec(struct cb_ctx *ctx, int argc, char **argv)
{
	const struct cmd_entry *const	*e;
	const struct cmd_entry		*c;

	(void)ctx;
	if (argc > 2)
		return cmd_usage(&cmd_help_entry, EXIT_USAGE);
	if (argc == 2) {
		if ((c = cmd_find(argv[1])) == NULL) {
			cmd_warnx("help: unknown command '%s'", argv[1]);
			return EXIT_USAGE;
		}
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
	"[COMMAND]",
	"show help for cbexec or one command",
	"",
	cmd_help_exec
};
