/* SPDX-License-Identifier: ISC */
/*
 * cmd.c: the helpers every command shares: the grammar parser, the usage
 * line, who is acting, how a wait reads, and what an update evicted.  It
 * knows no command: cmd-table.c lists them, and warn.c prints.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cmd.h"
#include "esc.h"


int
cmd_usage(const struct cmd_entry *e, int status)
{
	fprintf(stderr, "usage: cbexec %s %s\n", e->name, e->usage);
	return status;
}


int
cmd_usage_status(const struct cmd_entry *e)
{
	return e->usage_status != 0 ? e->usage_status : EXIT_USAGE;
}

int
cmd_help(const struct cmd_entry *e)
{
	printf("usage: cbexec %s %s\n%s", e->name, e->usage, e->help);
	return EXIT_OK;
}

static int
is_help(const char *s)
{
	return strcmp(s, "-h") == 0 || strcmp(s, "--help") == 0;
}

/* A usage error of e: the line what went wrong (if any), then usage. */
static int
cmd_bad(const struct cmd_entry *e, const char *fmt, ...)
{
	va_list	ap;

	if (fmt != NULL) {
		va_start(ap, fmt);
		warn_line(fmt, ap, "");
		va_end(ap);
	}
	(void)cmd_usage(e, 0);
	(void)fprintf(stderr, "Try 'cbexec help %s' for more.\n", e->name);
	return -1;
}

/* g's getopt_long spec: the short one in spec, the long one in lo. */
static void
cmd_spec(const struct cmd_grammar *g, char *spec, size_t speclen,
    struct option *lo, size_t nlo)
{
	const struct cmd_opt	*o;
	size_t			 n = 0, i = 0;

	if (g->flags & CMD_NAME_FIRST)
		spec[n++] = '+';
	spec[n++] = ':';
	spec[n++] = 'h';
	for (o = g->opts; o != NULL && o->key != 0; o++) {
		if (o->letter != 0 && n + 3 < speclen) {
			spec[n++] = (char)o->letter;
			if (o->has_arg == required_argument)
				spec[n++] = ':';
		}
		if (o->name != NULL && i + 2 < nlo) {
			lo[i].name = o->name;
			lo[i].has_arg = o->has_arg;
			lo[i].flag = NULL;
			lo[i++].val = o->key;
		}
	}
	spec[n] = '\0';
	lo[i].name = "help";
	lo[i].has_arg = no_argument;
	lo[i].flag = NULL;
	lo[i++].val = 'h';
	memset(&lo[i], 0, sizeof lo[i]);
}

static const struct cmd_opt *
cmd_opt_find(const struct cmd_grammar *g, int key)
{
	const struct cmd_opt	*o;

	for (o = g->opts; o != NULL && o->key != 0; o++)
		if (o->key == key)
			return o;
	return NULL;
}

/*
 * The global option (cbexec.c) that s (a short option letter when s is
 * NULL) names, as a user would type it before the command, or NULL.
 */
static const char *
global_option(const char *s, int letter)
{
	static const struct {
		const char	*name;
		const char	*shown;
	} globals[] = {
		{ "config", "-c FILE" }, { "state", "-s PATH" },
		{ "quiet", "-q" }, { "verbose", "-v" }, { NULL, NULL }
	};
	size_t	i, n;

	for (i = 0; globals[i].name != NULL; i++) {
		if (s == NULL) {
			if (letter == globals[i].shown[1])
				return globals[i].shown;
			continue;
		}
		n = strlen(globals[i].name);
		if (strncmp(s, "--", 2) == 0 &&
		    strncmp(s + 2, globals[i].name, n) == 0 &&
		    (s[n + 2] == '\0' || s[n + 2] == '='))
			return globals[i].shown;
	}
	return NULL;
}

/*
 * The options and operands of argv by g; usage and help are e's.  With
 * CMD_NAME_FIRST, argv[1] is NAME and stands in for argv[0] while the
 * options after it are read.
 */
static int
cmd_parse_grammar(const struct cmd_entry *e, const struct cmd_grammar *g,
    int argc, char **argv, struct cmd_args *a)
{
	struct option	 lo[CMD_MAX_OPTS + 2];
	char		 spec[2 * CMD_MAX_OPTS + 4], *first = NULL;
	const char	*glob;
	int		 ch, i, n;

	if ((g->flags & CMD_NAME_FIRST) && argc >= 2) {
		if (is_help(argv[1])) {
			(void)cmd_help(e);
			return 1;
		}
		first = argv[1];
		argc--;
		argv++;
	}
	cmd_spec(g, spec, sizeof spec, lo, CMD_MAX_OPTS + 2);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, spec, lo, NULL)) != -1) {
		if (ch == 'h') {
			(void)cmd_help(e);
			return 1;
		}
		if (ch == ':')
			return cmd_bad(e, "%s: option '%s' needs an argument",
			    a->what, argv[optind - 1]);
		if (ch == '?' && (glob = global_option(optopt != 0 ? NULL :
		    argv[optind - 1], optopt)) != NULL)
			return cmd_bad(e, "%s: unknown option '%.*s': a "
			    "global option, given before the command (cbexec "
			    "%s %s ...)", a->what, optopt != 0 ? 2 : INT_MAX,
			    optopt != 0 ? glob : argv[optind - 1], glob,
			    e->name);
		if (ch == '?' && optopt != 0)
			return cmd_bad(e, "%s: unknown option '-%c'", a->what,
			    optopt);
		if (ch == '?')
			return cmd_bad(e, "%s: unknown option '%s'", a->what,
			    argv[optind - 1]);
		if (a->nv == CMD_MAX_OPTS)
			return cmd_bad(e, "%s: too many options", a->what);
		a->v[a->nv].opt = cmd_opt_find(g, ch);
		a->v[a->nv++].arg = optarg;
	}
	n = argc - optind + (first != NULL);
	a->argv = xcalloc((size_t)n + 1, sizeof *a->argv);
	if (first != NULL)
		a->argv[a->argc++] = first;
	for (i = optind; i < argc; i++)
		a->argv[a->argc++] = argv[i];
	if (a->argc < g->lower)
		return cmd_bad(e, a->argc > 0 && g->too_few != NULL ?
		    "%s: %s" : NULL, a->what, g->too_few);
	if (g->upper >= 0 && a->argc > g->upper)
		return cmd_bad(e, "%s: unexpected operand '%s'", a->what,
		    a->argv[g->upper]);
	return 0;
}

int
cmd_parse(const struct cmd_entry *e, int argc, char **argv,
    struct cmd_args *a)
{
	const struct cmd_entry *const	*sub;

	memset(a, 0, sizeof *a);
	a->entry = e;
	snprintf(a->what, sizeof a->what, "%s", e->name);
	if (e->subs == NULL)
		return cmd_parse_grammar(e, &e->args, argc, argv, a);
	if (argc < 2)
		return cmd_bad(e, NULL);
	if (is_help(argv[1])) {
		(void)cmd_help(e);
		return 1;
	}
	for (sub = e->subs; *sub != NULL; sub++)
		if (strcmp((*sub)->name, argv[1]) == 0)
			break;
	if (*sub == NULL)
		return cmd_bad(e, "%s: unknown subcommand '%s'", e->name,
		    argv[1]);
	a->entry = *sub;
	snprintf(a->what, sizeof a->what, "%s %s", e->name, (*sub)->name);
	return cmd_parse_grammar(e, &(*sub)->args, argc - 1, argv + 1, a);
}

void
cmd_args_free(struct cmd_args *a)
{
	free(a->argv);
	a->argv = NULL;
	a->argc = 0;
}

const char *
cmd_arg(const struct cmd_args *a, int key)
{
	int	i;

	for (i = a->nv - 1; i >= 0; i--)
		if (a->v[i].opt != NULL && a->v[i].opt->key == key)
			return a->v[i].arg;
	return NULL;
}

int
cmd_has(const struct cmd_args *a, int key)
{
	int	i;

	for (i = 0; i < a->nv; i++)
		if (a->v[i].opt != NULL && a->v[i].opt->key == key)
			return 1;
	return 0;
}

void
cmd_store_error(struct cb_ctx *ctx, const struct cb_err *err)
{
	if (err->code == CB_ERR_CONFIG)
		(void)cmd_config(ctx);
	else
		cmd_warnx("%s", err->msg);
}

const char *
cmd_user(void)
{
	static char	 buf[64];
	struct passwd	*pw;

	if ((pw = getpwuid(getuid())) != NULL && pw->pw_name != NULL)
		snprintf(buf, sizeof buf, "%s", pw->pw_name);
	else
		snprintf(buf, sizeof buf, "uid %u", (unsigned)getuid());
	return buf;
}

const struct cb_runby *
cmd_run_by(struct cb_ctx *ctx)
{
	struct cb_runby	*by = &ctx->run_by;

	if (!ctx->run_by_wanted)
		return NULL;
	if (!ctx->run_by_done) {
		snprintf(by->user, sizeof by->user, "%s", cmd_user());
		clock_host_name(by->host, sizeof by->host);
		ctx->run_by_done = 1;
	}
	snprintf(by->argv0, sizeof by->argv0, "%s",
	    ctx->run_argv0 != NULL ? ctx->run_argv0 : "");
	return by;
}

void
cmd_evictions(struct cb_ctx *ctx)
{
	const struct store_evicted	*ev;
	int				 i;

	if (ctx->store == NULL)
		return;
	ev = &ctx->store->evicted;
	for (i = 0; i < ev->n; i++) {
		if (ev->rec[i].rank.pinned && !ctx->quiet)
			cmd_warnx("warning: max_breakers (%lld) reached and "
			    "every breaker is open or running: evicted "
			    "breaker '%s'", ctx->cfg.max_breakers,
			    esc(ev->rec[i].name));
		else if (ctx->verbose)
			cmd_warnx("%s: evicted (max_breakers %lld, least "
			    "recently used)", esc(ev->rec[i].name),
			    ctx->cfg.max_breakers);
	}
}

void
cmd_format_wait(int64_t ms, char *buf, size_t len)
{
	format_duration((ms + 999) / 1000 * 1000, buf, len);
}

void
cmd_clock(int64_t ms, char *buf, size_t len)
{
	struct tm	tm;
	time_t		t = (time_t)(ms / 1000);

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, len, "%H:%M:%S", &tm) == 0)
		snprintf(buf, len, "?");
}
