/* SPDX-License-Identifier: ISC */
/*
 * cbexec.c: main.  Parses the global options (before the command name, as
 * git does), finds the command in the table, runs it, and releases what
 * the command opened.  Everything else lives in the cmd-*.c files.
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"

static void
usage(FILE *f)
{
	const struct cmd_entry *const	*e;

	fprintf(f, "usage: cbexec [-qv] [-c FILE] [-s PATH] COMMAND [ARG...]\n"
	    "       cbexec help [COMMAND] | help --options COMMAND | --help | "
	    "--version\n\n"
	    "Put a circuit breaker in front of a command.\n\ncommands:\n");
	for (e = cmd_table; *e != NULL; e++)
		fprintf(f, "  %-8s %s\n", (*e)->name, (*e)->summary);
	fprintf(f, "\nglobal options:\n"
	    "  -c, --config FILE  config file (default: $CBEXEC_CONFIG, "
	    "~/.config/cbexec/cbexec.conf, /etc/cbexec.conf)\n"
	    "  -s, --state PATH   state file (default: $CBEXEC_STATE, "
	    "config `state`,\n"
	    "                     /var/lib/cbexec/state.mdb for root, "
	    "~/.local/state/cbexec/state.mdb for others),\n"
	    "                     or a Redis URL: redis://[user@]host:port/db,"
	    " unix:/path.sock\n"
	    "  -q, --quiet        no refusal lines or warnings\n"
	    "  -v, --verbose      report admissions and transitions on stderr\n"
	    "  -h, --help         this help\n"
	    "  -V, --version      print the version\n\n"
	    "See cbexec(1) and cbexec.conf(5).\n");
}

/*
 * What was built in and which state this user gets: what a bug report
 * needs.
 */
static void
version(struct cb_ctx *ctx)
{
	const char	*redis, *state;

	printf("cbexec %s\n", CBEXEC_VERSION);
	redis = store_redis_version();
	printf("stores: lmdb (%s), ", store_lmdb_version());
	if (redis != NULL)
		printf("redis (%s)\n", redis);
	else
		printf("no redis (built with WITH_REDIS=0)\n");
	printf("config: %s\n", config_lib_version());
	if ((state = cmd_state_path(ctx)) != NULL)
		printf("state: %s\n", state);
}

/*
 * Started with stdin, stdout or stderr closed, cbexec would hand those
 * numbers to the first files it opens, and a token, a message or the
 * command's output could land in the state file.  Fill them with
 * /dev/null first, as OpenBSD's userland does.
 */
static int
std_fds(void)
{
	int	fd;

	for (;;) {
		if ((fd = open("/dev/null", O_RDWR)) == -1)
			return -1;
		if (fd > STDERR_FILENO) {
			(void)close(fd);
			return 0;
		}
	}
}

int
main(int argc, char **argv)
{
	static const struct option	 longopts[] = {
		{ "config",	required_argument,	NULL, 'c' },
		{ "state",	required_argument,	NULL, 's' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "verbose",	no_argument,		NULL, 'v' },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, 'V' },
		{ NULL,		0,			NULL, 0 }
	};
	struct cb_ctx			 ctx;
	struct cmd_args			 args;
	const struct cmd_entry		*e;
	const char			*near;
	int				 ch, r, status, want_version = 0;

	if (std_fds() == -1) {
		cmd_warn("cannot open /dev/null");
		return EXIT_CBEXEC;
	}
	memset(&ctx, 0, sizeof ctx);
	memset(&args, 0, sizeof args);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+c:s:qvhV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'c':
			ctx.config_path = optarg;
			break;
		case 's':
			if (optarg[0] == '\0') {
				cmd_warnx("option '-s' needs a state path, "
				    "not an empty one");
				usage(stderr);
				return EXIT_USAGE;
			}
			ctx.state_path = optarg;
			break;
		case 'q':
			ctx.quiet = 1;
			break;
		case 'v':
			ctx.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case 'V':
			want_version = 1;
			break;
		default:
			if (optopt != 0 && strchr("cs", optopt) != NULL)
				cmd_warnx("option '-%c' needs an argument",
				    optopt);
			else
				cmd_warnx("unknown option '%s'",
				    argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	/* After the loop: -s and -c count wherever they are. */
	if (want_version) {
		version(&ctx);
		status = EXIT_OK;
		goto out;
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((e = cmd_find(argv[optind])) == NULL) {
		if ((near = cmd_nearest(argv[optind])) != NULL)
			cmd_warnx("unknown command '%s' (did you mean %s?)",
			    argv[optind], near);
		else
			cmd_warnx("unknown command '%s'", argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if ((r = cmd_parse(e, argc - optind, argv + optind, &args)) != 0)
		status = r == 1 ? EXIT_OK : cmd_usage_status(e);
	else
		status = args.entry->exec(&ctx, &args);
	/* A -c (or CBEXEC_CONFIG) file that is not there is a usage error
	 * of every command (SPEC section 4), whichever step found it. */
	if (ctx.cfg_missing && status == EXIT_FAIL)
		status = cmd_usage_status(e);
	cmd_args_free(&args);
out:

	/* Hooks still running hold no transaction: close the store first. */
	store_close(ctx.store);
	ctx.store = NULL;
	cmd_hooks_wait(&ctx);
	ctx_free(&ctx);
	return status;
}
