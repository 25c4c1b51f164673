/*
 * cmd-config.c: `cbexec config check` and `cbexec config show NAME`.
 * check reads the config file the way every command does and reports every
 * problem in it, not only the first.  show prints NAME's effective policy,
 * one key a line with its value as the file would spell it and where it
 * came from (built-in, FILE:LINE, command line); it takes run's options
 * after NAME, so that one can see what a command line would give.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static int
config_help(void)
{
	printf("usage: cbexec config %s\n%s", cmd_config_entry.usage,
	    cmd_config_entry.help);
	return EXIT_OK;
}

static int
config_check_cmd(struct cb_ctx *ctx, int argc, char **argv)
{
	struct cb_config	cfg;
	struct config_msgs	msgs;
	struct cb_err		err;
	size_t			i;
	int			rc;

	(void)argv;
	if (argc != 1)
		return cmd_usage(&cmd_config_entry, EXIT_USAGE);
	rc = config_check(ctx->config_path, &cfg, &msgs, &err);
	if (rc == -1) {
		if (msgs.n == 0)
			cmd_warnx("%s", err.msg);
		for (i = 0; i < msgs.n; i++)
			cmd_warnx("%s", msgs.v[i]);
		config_msgs_free(&msgs);
		return EXIT_FAIL;
	}
	config_msgs_free(&msgs);
	if (!ctx->quiet) {
		if (cfg.path != NULL)
			printf("%s: ok\n", cfg.path);
		else
			printf("no config file: built-in defaults\n");
	}
	config_free(&cfg);
	return EXIT_OK;
}

static int
config_show_cmd(struct cb_ctx *ctx, int argc, char **argv)
{
	struct policy_builder	 b;
	struct run_opts		 ro;
	struct cb_err		 err;
	char			 value[1100];
	const char		*name;
	int			 k, skip;

	if (argc < 2)
		return cmd_usage(&cmd_config_entry, EXIT_USAGE);
	name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
		return config_help();
	if (cmd_name_valid(name, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_USAGE;
	}
	if ((skip = run_options("config show", argc - 1, argv + 1, &ro)) ==
	    -1)
		return cmd_usage(&cmd_config_entry, EXIT_USAGE);
	if (ro.help)
		return config_help();
	if (1 + skip < argc) {
		cmd_warnx("config show: unexpected '%s'", argv[1 + skip]);
		return cmd_usage(&cmd_config_entry, EXIT_USAGE);
	}

	policy_init(&b);
	if (cmd_policy(ctx, name, &b) == -1)
		return EXIT_FAIL;
	if (run_apply("config show", &ro, &b) == -1)
		return EXIT_USAGE;
	if (policy_finish(&b, NULL, &err) == -1) {
		cmd_warnx("%s: %s", name, err.msg);
		return EXIT_FAIL;
	}
	for (k = 0; k < PK_COUNT; k++) {
		policy_format(&b, (enum policy_key)k, value, sizeof value);
		printf("%-20s %-24s %s\n", policy_key_name((enum policy_key)k),
		    value, b.origin[k]);
	}
	if (fflush(stdout) == EOF) {
		cmd_warn("config show");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

static int
cmd_config_exec(struct cb_ctx *ctx, int argc, char **argv)
{
	if (argc < 2)
		return cmd_usage(&cmd_config_entry, EXIT_USAGE);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return config_help();
	if (strcmp(argv[1], "check") == 0)
		return config_check_cmd(ctx, argc - 1, argv + 1);
	if (strcmp(argv[1], "show") == 0)
		return config_show_cmd(ctx, argc - 1, argv + 1);
	cmd_warnx("config: unknown subcommand '%s'", argv[1]);
	return cmd_usage(&cmd_config_entry, EXIT_USAGE);
}

const struct cmd_entry cmd_config_entry = {
	"config",
	"check | show NAME [RUN-OPTIONS]",
	"check the config file, or show NAME's effective policy",
	"  check            report every problem of the config file with its\n"
	"                   FILE:LINE; exit 0 when there is none, 1 otherwise\n"
	"  show NAME        print NAME's effective policy: key, value, and\n"
	"                   where it came from (built-in, FILE:LINE, command\n"
	"                   line); run's options after NAME (-t, --preset,\n"
	"                   -o KEY=VALUE, ...) are applied as run would\n",
	cmd_config_exec
};
