/* SPDX-License-Identifier: ISC */
/*
 * status.c: `cbexec status [--json | --prometheus | --names] [--output
 * FILE] [NAME | GLOB ...]`, what operators see.  A table by default, a
 * detail view for one exact NAME (status-text.c), JSON for scripts
 * (status-json.c), the Prometheus text exposition format for
 * node_exporter's textfile collector (status-prom.c), and names alone for
 * completions.  This file parses the options, reads one snapshot of the
 * store (writing nothing to it), filters by NAME and GLOB and decides the
 * exit status; --output replaces FILE atomically (a temporary file in the
 * same directory, fsync, rename) so a collector never reads half a file.
 */
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "cmd.h"
#include "esc.h"
#include "name.h"
#include "out.h"
#include "status.h"

static int
has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int
walk_cb(const char *key, size_t keylen, const uint8_t *data, size_t len,
    void *arg, struct cb_err *err)
{
	struct status_walk	*w = arg;
	struct cb_err		 e;
	char			 name[256];
	int			 i, match = w->npats == 0;

	if (keylen >= sizeof name)
		return 0;	/* not a name cbexec writes */
	memcpy(name, key, keylen);
	name[keylen] = '\0';
	for (i = 0; i < w->npats; i++) {
		if (strcmp(w->pats[i], name) == 0 ||
		    (has_glob(w->pats[i]) &&
		    fnmatch(w->pats[i], name, 0) == 0)) {
			w->hit[i] = 1;
			match = 1;
		}
	}
	if (!match)
		return 0;
	/*
	 * One unreadable record (corrupt, or from a newer cbexec) hides no
	 * other: it is named on stderr, and status exits 1 (SPEC 5).
	 */
	if (cmd_decode(w->ctx, name, data, len, &w->rec, &e) == -1) {
		out_flush(w->ob);
		cmd_warnx("%s", e.msg);
		w->unreadable++;
		return 0;
	}
	switch (w->fmt) {
	case FMT_NAMES:
		fprintf(w->out, "%s\n", esc(name));
		break;
	case FMT_JSON:
		status_json_add(w, name, keylen);
		break;
	case FMT_PROM:
		status_prom_add(w, name);
		break;
	case FMT_DETAIL:
		if (status_text_detail(w, name) == -1)
			goto fail;
		break;
	default:
		if (status_table_add(w, name) == -1)
			goto fail;
		break;
	}
	w->n++;
	return 0;
fail:
	err_set(err, "status of '%s' failed", name);
	return -1;
}

/*
 * --output: a temporary file next to path (".NAME.XXXXXX", which a
 * textfile collector ignores since it does not end in .prom), mode 0644
 * so that a collector running as another user can read the result.
 */
static FILE *
output_open(const char *path, char **tmp)
{
	const char	*slash, *base;
	FILE		*f;
	int		 fd;

	slash = strrchr(path, '/');
	base = slash != NULL ? slash + 1 : path;
	if (base[0] == '\0') {
		cmd_warnx("status: --output '%s' names a directory", path);
		return NULL;
	}
	xasprintf(tmp, "%.*s.%s.XXXXXX", slash != NULL ?
	    (int)(slash - path + 1) : 0, path, base);
	if ((fd = mkstemp(*tmp)) == -1) {
		cmd_warn("cannot create '%s'", *tmp);
		goto fail;
	}
	if (fchmod(fd, 0644) == -1 || (f = fdopen(fd, "w")) == NULL) {
		cmd_warn("cannot set up '%s'", *tmp);
		(void)close(fd);
		(void)unlink(*tmp);
		goto fail;
	}
	return f;
fail:
	free(*tmp);
	*tmp = NULL;
	return NULL;
}

/* Flush, fsync and rename tmp over path (ok), or remove tmp (!ok). */
static int
output_close(FILE *f, char *tmp, const char *path, int ok)
{
	const char	*slash;
	char		*dir;
	int		 dfd;

	if (!ok)
		goto drop;
	if (fflush(f) == EOF || ferror(f) || fsync(fileno(f)) == -1) {
		cmd_warn("cannot write '%s'", tmp);
		goto drop;
	}
	if (fclose(f) == EOF) {
		f = NULL;
		cmd_warn("cannot write '%s'", tmp);
		goto drop;
	}
	f = NULL;
	if (rename(tmp, path) == -1) {
		cmd_warn("cannot rename '%s' to '%s'", tmp, path);
		goto drop;
	}
	/* Make the rename itself durable; failing here loses nothing. */
	slash = strrchr(path, '/');
	dir = slash == NULL ? xstrdup(".") : slash == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(slash - path));
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		(void)close(dfd);
	}
	free(dir);
	free(tmp);
	return 0;
drop:
	if (f != NULL)
		(void)fclose(f);
	(void)unlink(tmp);
	free(tmp);
	return -1;
}

/* UTF-8 marks only when the locale's character set is UTF-8. */
static int
locale_utf8(void)
{
	const char	*cs;

	if (setlocale(LC_CTYPE, "") == NULL)
		return 0;
	cs = nl_langinfo(CODESET);
	return cs != NULL && (strcasecmp(cs, "UTF-8") == 0 ||
	    strcasecmp(cs, "utf8") == 0);
}

/* Colour on a terminal only, and never with NO_COLOR or TERM=dumb. */
static int
want_colour(FILE *f)
{
	const char	*nc, *term;

	nc = getenv("NO_COLOR");
	term = getenv("TERM");
	return f == stdout && isatty(STDOUT_FILENO) &&
	    (nc == NULL || nc[0] == '\0') &&
	    (term == NULL || strcmp(term, "dumb") != 0);
}

static int
set_format(struct status_walk *w, enum status_format fmt, const char *opt)
{
	if (w->fmt != FMT_TABLE && w->fmt != fmt) {
		cmd_warnx("status: %s: only one of --json, --prometheus and "
		    "--names", opt);
		return -1;
	}
	w->fmt = fmt;
	return 0;
}

static const struct cmd_opt status_grammar[] = {
	{ "json",	0, 'j', no_argument },
	{ "names",	0, 'n', no_argument },
	{ "prometheus",	0, 'p', no_argument },
	{ "output",	0, 'O', required_argument },
	{ NULL,		0, 0,   0 }
};

/*
 * The options and operands into w and *output.  Returns -1 to go on, or
 * the exit status to return now (a usage error).
 */
static int
status_args(struct status_walk *w, const struct cmd_args *a,
    const char **output)
{
	struct cb_err	err;
	int		i, bad = 0;

	for (i = 0; i < a->nv && !bad; i++) {
		switch (a->v[i].opt->key) {
		case 'j':
			bad = set_format(w, FMT_JSON, "--json") == -1;
			break;
		case 'n':
			bad = set_format(w, FMT_NAMES, "--names") == -1;
			break;
		case 'p':
			bad = set_format(w, FMT_PROM, "--prometheus") == -1;
			break;
		case 'O':
			if (a->v[i].arg[0] == '\0') {
				cmd_warnx("status: --output needs a file "
				    "name");
				bad = 1;
			}
			*output = a->v[i].arg;
			break;
		}
	}
	if (bad)
		return cmd_usage(&cmd_status_entry, EXIT_USAGE);
	w->pats = a->argv;
	w->npats = a->argc;
	for (i = 0; i < w->npats; i++) {
		if (!has_glob(w->pats[i]) &&
		    name_valid(w->pats[i], &err) == -1) {
			cmd_warnx("%s", err.msg);
			return EXIT_USAGE;
		}
	}
	if (w->fmt == FMT_TABLE && w->npats == 1 && !has_glob(w->pats[0]))
		w->fmt = FMT_DETAIL;
	return -1;
}

static int
cmd_status_exec(struct cb_ctx *ctx, struct cmd_args *a)
{
	struct status_walk	 w;
	struct cb_err		 err;
	struct store		*store;
	const char		*output = NULL;
	char			*tmp = NULL;
	size_t			 i;
	int			 status = EXIT_OK;
	int			 unreadable_only = 0;
	const char		*who;

	memset(&w, 0, sizeof w);
	w.ctx = ctx;
	w.fmt = FMT_TABLE;
	w.out = stdout;
	if ((status = status_args(&w, a, &output)) != -1)
		return status;
	status = EXIT_OK;
	w.hit = xcalloc((size_t)w.npats + 1, sizeof *w.hit);
	cmd_env(ctx, &w.env);
	w.now = w.env.now_ms;
	w.utf8 = locale_utf8();

	if (cmd_config(ctx) == -1) {
		free(w.hit);
		return EXIT_FAIL;
	}
	if (output != NULL && (w.out = output_open(output, &tmp)) == NULL) {
		free(w.hit);
		return EXIT_FAIL;
	}
	w.colour = want_colour(w.out);
	w.ob = out_start(w.out);
	status_json_begin(&w);
	store = cmd_store(ctx, 1, &err);
	if (store == NULL && err.code != CB_ERR_MISSING) {
		cmd_warnx("%s", err.msg);
		status = EXIT_FAIL;
		goto out;
	}
	if (store != NULL && cmd_each(ctx, store, w.pats, w.npats, walk_cb,
	    &w, &w.unreadable, &err) == -1) {
		out_flush(w.ob);
		cmd_warnx("%s", err.msg);
		status = EXIT_FAIL;
		goto out;
	}
	/* An exporter outside the group, exporting nothing (SPEC 7). */
	if (w.npats == 0 && w.n == 0 && w.unreadable == 0 &&
	    cmd_state_outside(ctx, &who)) {
		w.unreadable_shared = 1;
		if (!ctx->quiet)
			cmd_warnx("%s is not readable to user %s (not in group "
			    "%s); showing its private state, which is empty",
			    STATE_SYSTEM, who, STATE_GROUP);
	}
	if (w.fmt == FMT_JSON)
		status_json_end(&w);
	else if (w.fmt == FMT_PROM)
		status_prom_print(&w);
	else if (w.fmt == FMT_TABLE && w.nrows > 0)
		status_table_print(&w);
	out_flush(w.ob);
	/* An empty table says where it looked (SPEC 7); the formats for
	 * programs say it their own way ([], no samples, no names). */
	if (w.fmt == FMT_TABLE && w.npats == 0 && w.n == 0 &&
	    w.unreadable == 0 && !w.unreadable_shared && !ctx->quiet)
		cmd_warnx("no breakers in %s; 'cbexec run NAME -- COMMAND' "
		    "makes one", ctx->state_redis ? "the Redis store" :
		    ctx->state);
	for (i = 0; i < (size_t)w.npats; i++) {
		if (!w.hit[i] && !has_glob(w.pats[i])) {
			cmd_warnx("no such breaker '%s'", w.pats[i]);
			status = EXIT_FAIL;
		}
	}
out:
	/* The readable breakers are the answer; unreadable ones are named
	 * on stderr already. */
	if (w.unreadable > 0 && status == EXIT_OK) {
		status = EXIT_FAIL;
		unreadable_only = 1;
	}
	if (tmp != NULL) {
		/* A partial answer never replaces the last good file. */
		if (output_close(w.out, tmp, output, status == EXIT_OK ||
		    unreadable_only) == -1)
			status = EXIT_FAIL;
	} else if (fflush(stdout) == EOF || ferror(stdout)) {
		cmd_warn("cannot write to standard output");
		status = EXIT_FAIL;
	}
	status_table_free(&w);
	status_prom_free(&w);
	free(w.hit);
	return status;
}

const struct cmd_entry cmd_status_entry = {
	"status",
	"[--json | --prometheus | --names] [--output FILE] [NAME | GLOB ...]",
	"show breakers: a table, one in detail, JSON, Prometheus or names",
	"      --json          every field of every breaker, as a JSON array\n"
	"      --prometheus    metrics in the Prometheus text format (for\n"
	"                      node_exporter's textfile collector)\n"
	"      --names         names only, one a line\n"
	"      --output FILE   write to FILE atomically (temporary file,\n"
	"                      fsync, rename; mode 0644) instead of stdout\n"
	"One exact NAME shows that breaker in detail; GLOBs (fnmatch)\n"
	"filter.  Colour only on a terminal, never with NO_COLOR.\n",
	{ status_grammar, 0, -1, 0, NULL },
	0,
	NULL,
	cmd_status_exec
};
