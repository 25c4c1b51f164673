/* SPDX-License-Identifier: ISC */
/*
 * cmd-admin.c: what reset, trip and forget share: their operands are
 * breaker names and GLOBs, all checked before anything is changed; the
 * GLOBs become the existing breakers they match, and each breaker is one
 * store update whose failure is reported and does not stop the others.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "esc.h"
#include "name.h"
#include "record.h"

#define REASON_MAX	200

static int
admin_is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* A GLOB is any fnmatch pattern, but one cbexec can print back. */
static int
admin_glob_valid(const char *s)
{
	size_t	i;

	for (i = 0; s[i] != '\0'; i++) {
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f) {
			cmd_warnx("invalid GLOB: byte 0x%02x at offset %zu",
			    (unsigned char)s[i], i);
			return -1;
		}
	}
	return 0;
}

const struct cmd_opt admin_grammar_reason[] = {
	{ "reason",	0, 'r', required_argument },
	{ NULL,		0, 0,   0 }
};

int
admin_parse(const struct cmd_args *ca, struct admin_args *a)
{
	struct cb_err	 err;
	const char	*v;
	size_t		 i;

	memset(a, 0, sizeof *a);
	a->reason = cmd_arg(ca, 'r');
	if ((v = cmd_arg(ca, 'f')) != NULL &&
	    parse_duration(v, &a->for_ms, &err) == -1) {
		cmd_warnx("%s: --for: %s", ca->what, err.msg);
		return -1;
	}
	if (v != NULL && a->for_ms <= 0) {
		/* 0 would silently mean "the current cool-down". */
		cmd_warnx("%s: --for: must be longer than 0", ca->what);
		return -1;
	}
	a->names = ca->argv;
	a->nnames = ca->argc;
	for (i = 0; i < (size_t)a->nnames; i++) {
		if (admin_is_glob(a->names[i])) {
			if (admin_glob_valid(a->names[i]) == -1)
				return -1;
		} else if (name_valid(a->names[i], &err) == -1) {
			cmd_warnx("%s", err.msg);
			return -1;
		}
	}
	if (a->reason != NULL) {
		if (strlen(a->reason) > REASON_MAX) {
			cmd_warnx("%s: --reason is longer than %d bytes",
			    ca->what, REASON_MAX);
			return -1;
		}
		for (i = 0; a->reason[i] != '\0'; i++) {
			if ((unsigned char)a->reason[i] < 0x20 ||
			    a->reason[i] == 0x7f) {
				cmd_warnx("%s: --reason contains control "
				    "byte 0x%02x", ca->what,
				    (unsigned char)a->reason[i]);
				return -1;
			}
		}
	}
	return 0;
}

static void
targets_add(struct admin_targets *t, size_t *cap, const char *name,
    size_t len, int exact)
{
	if (t->n == *cap) {
		*cap = *cap == 0 ? 16 : *cap * 2;
		t->v = xrealloc(t->v, *cap * sizeof *t->v);
	}
	t->v[t->n].name = xstrndup(name, len);
	t->v[t->n].exact = exact;
	t->n++;
}

/* One pass over the store for every GLOB of the operands. */
struct targets_walk {
	const struct admin_args	*a;
	struct admin_targets	*t;
	size_t			*cap;
	int			*hit;		/* per operand */
};

static int
targets_cb(const char *name, size_t namelen, const uint8_t *data, size_t len,
    void *arg, struct cb_err *err)
{
	struct targets_walk	*w = arg;
	char			 buf[STORE_NAME_MAX + 1];
	int			 i, added = 0;

	(void)data;
	(void)len;
	(void)err;
	if (namelen > STORE_NAME_MAX)
		return 0;
	memcpy(buf, name, namelen);
	buf[namelen] = '\0';
	for (i = 0; i < w->a->nnames; i++) {
		if (!admin_is_glob(w->a->names[i]) ||
		    fnmatch(w->a->names[i], buf, 0) != 0)
			continue;
		w->hit[i] = 1;
		if (!added)
			targets_add(w->t, w->cap, buf, namelen, 0);
		added = 1;
	}
	return 0;
}

static int
targets_cmp(const void *va, const void *vb)
{
	const struct admin_target	*a = va, *b = vb;

	return strcmp(a->name, b->name);
}

int
admin_targets(struct cb_ctx *ctx, struct store *store,
    const struct admin_args *a, struct admin_targets *t)
{
	struct targets_walk	 w;
	struct cb_err		 err;
	size_t			 cap = 0, i, j;
	unsigned long		 bad = 0;
	int			 k, globs = 0, rc = 0;

	memset(t, 0, sizeof *t);
	for (k = 0; k < a->nnames; k++) {
		if (admin_is_glob(a->names[k]))
			globs++;
		else
			targets_add(t, &cap, a->names[k],
			    strlen(a->names[k]), 1);
	}
	if (globs > 0) {
		w.a = a;
		w.t = t;
		w.cap = &cap;
		w.hit = xcalloc((size_t)a->nnames, sizeof *w.hit);
		if (cmd_each(ctx, store, a->names, a->nnames, targets_cb, &w,
		    &bad, &err) == -1) {
			cmd_warnx("%s", err.msg);
			free(w.hit);
			return -1;
		}
		if (bad > 0)
			rc = 1;		/* named by cmd_each */
		for (k = 0; k < a->nnames; k++) {
			if (admin_is_glob(a->names[k]) && !w.hit[k]) {
				cmd_warnx("no breaker matches '%s'",
				    a->names[k]);
				rc = 1;
			}
		}
		free(w.hit);
	}
	/* Each breaker once; a NAME given exactly stays exact. */
	if (t->n > 1)
		qsort(t->v, t->n, sizeof *t->v, targets_cmp);
	for (i = 0, j = 0; i < t->n; i++) {
		if (j > 0 && strcmp(t->v[j - 1].name, t->v[i].name) == 0) {
			t->v[j - 1].exact |= t->v[i].exact;
			free(t->v[i].name);
			continue;
		}
		t->v[j++] = t->v[i];
	}
	t->n = j;
	return rc;
}

void
admin_targets_free(struct admin_targets *t)
{
	size_t	i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof *t);
}

void
admin_done(struct cb_ctx *ctx, const struct admin_target *t)
{
	if (!t->exact && !ctx->quiet)
		printf("%s\n", esc(t->name));	/* a NAME (keys.c) */
}

static void
admin_reason(const char *what, const struct admin_args *a, char *buf,
    size_t len)
{
	if (a->reason != NULL && a->reason[0] != '\0')
		snprintf(buf, len, "manual %s by %s: %s", what, cmd_user(),
		    a->reason);
	else
		snprintf(buf, len, "manual %s by %s", what, cmd_user());
}

/* One name's update in admin_each. */
struct admin_step {
	struct cb_ctx			*ctx;
	const char			*name;
	const struct admin_args		*a;
	admin_fn			 fn;
	int				 create;
	const struct cb_policy		*p;
	struct cb_env			 env;
	const char			*reason;
	int				 found;
	int				 changed;	/* fn changed it */
	struct cb_effects		 fx;
	struct cb_record		 rec;
};

static int
admin_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out, void *arg,
    struct cb_err *err)
{
	struct admin_step	*st = arg;

	memset(&st->fx, 0, sizeof st->fx);
	st->found = old != NULL;
	if (old == NULL) {
		if (!st->create)
			return STORE_KEEP;
		breaker_init(&st->rec, &st->env);
	} else if (cmd_decode(st->ctx, st->name, old, oldlen, &st->rec,
	    err) == -1)
		return -1;
	/* Nothing to change (reset of a closed breaker): nothing written. */
	if (!(st->changed = st->fn(&st->rec, st->p, &st->env, st->a,
	    st->reason, &st->fx)))
		return STORE_KEEP;
	record_encode(&st->rec, out);
	return STORE_PUT;
}

int
admin_each(struct cb_ctx *ctx, const struct admin_args *a, const char *what,
    int create, admin_fn fn)
{
	/* Large (a record): static, see struct cb_record. */
	static struct admin_step	 st;
	struct admin_targets		 t;
	struct cb_policy		 p;
	struct cb_err			 err;
	struct store			*store;
	char				 reason[RECORD_REASON_MAX];
	size_t				 i;
	int				 r, status = EXIT_OK;

	if ((store = cmd_store(ctx, 0, &err)) == NULL) {
		cmd_store_error(ctx, &err);
		return EXIT_FAIL;
	}
	if ((r = admin_targets(ctx, store, a, &t)) == -1)
		return EXIT_FAIL;
	if (r == 1)
		status = EXIT_FAIL;
	admin_reason(what, a, reason, sizeof reason);
	for (i = 0; i < t.n; i++) {
		if (cmd_call_policy(ctx, what, t.v[i].name, CALL_STORE_RW, NULL,
		    &p) == -1) {
			status = EXIT_FAIL;
			break;
		}
		memset(&st, 0, sizeof st);
		st.ctx = ctx;
		st.name = t.v[i].name;
		st.a = a;
		st.fn = fn;
		st.create = create && t.v[i].exact;
		st.p = &p;
		st.reason = reason;
		cmd_env(ctx, &st.env);
		if (store_update(store, st.name, admin_cb, &st, &err) == -1) {
			cmd_warnx("%s", err.msg);
			status = EXIT_FAIL;
		} else if (!st.found && !st.create) {
			/* A matched breaker forgotten meanwhile is done. */
			if (t.v[i].exact) {
				cmd_warnx("no such breaker '%s'", st.name);
				status = EXIT_FAIL;
			}
		} else {
			cmd_evictions(ctx);
			cmd_transitions(ctx, st.name, &st.fx);
			/* Each breaker changed, named, the single NAME too
			 * (SPEC 1); a NAME (keys.c) as it is. */
			if (!ctx->quiet)
				printf(st.changed ? "%s\n" :
				    "%s: already closed\n", esc(st.name));
		}
	}
	admin_targets_free(&t);
	if (fflush(stdout) == EOF) {
		cmd_warn("%s: stdout", what);
		status = EXIT_FAIL;
	}
	return status;
}
