/*
 * cmd-admin.c: what reset, trip and forget share: their operands are
 * breaker names, all checked before anything is changed, and each name is
 * one store update whose failure is reported and does not stop the others.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "breaker.h"
#include "cmd.h"
#include "record.h"

#define REASON_MAX	200

int
admin_parse(const struct cmd_entry *e, int argc, char **argv,
    struct admin_args *a)
{
	static const struct option	 longopts[] = {
		{ "reason",	required_argument,	NULL, 'r' },
		{ "for",	required_argument,	NULL, 'f' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct cb_err			 err;
	size_t				 i;
	int				 ch, want_reason, want_for;

	want_reason = a->want_reason;
	want_for = a->want_for;
	memset(a, 0, sizeof *a);
	a->want_reason = want_reason;
	a->want_for = want_for;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'r':
			if (!a->want_reason)
				goto bad;
			a->reason = optarg;
			break;
		case 'f':
			if (!a->want_for)
				goto bad;
			if (parse_duration(optarg, &a->for_ms, &err) == -1) {
				cmd_warnx("%s: --for: %s", e->name, err.msg);
				return -1;
			}
			break;
		case 'h':
			printf("usage: cbexec %s %s\n%s", e->name, e->usage,
			    e->help);
			return 1;
		default:
			if (optopt == 'r' || optopt == 'f') {
				cmd_warnx("%s: option '%s' needs an argument",
				    e->name, argv[optind - 1]);
				cmd_usage(e, EXIT_USAGE);
				return -1;
			}
		bad:
			cmd_warnx("%s: unknown option '%s'", e->name,
			    argv[optind - 1]);
			cmd_usage(e, EXIT_USAGE);
			return -1;
		}
	}
	a->names = argv + optind;
	a->nnames = argc - optind;
	if (a->nnames == 0) {
		cmd_usage(e, EXIT_USAGE);
		return -1;
	}
	for (i = 0; i < (size_t)a->nnames; i++) {
		if (cmd_name_valid(a->names[i], &err) == -1) {
			cmd_warnx("%s", err.msg);
			return -1;
		}
	}
	if (a->reason != NULL) {
		if (strlen(a->reason) > REASON_MAX) {
			cmd_warnx("%s: --reason is longer than %d bytes",
			    e->name, REASON_MAX);
			return -1;
		}
		for (i = 0; a->reason[i] != '\0'; i++) {
			if ((unsigned char)a->reason[i] < 0x20 ||
			    a->reason[i] == 0x7f) {
				cmd_warnx("%s: --reason contains control "
				    "byte 0x%02x", e->name,
				    (unsigned char)a->reason[i]);
				return -1;
			}
		}
	}
	return 0;
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
		record_init(&st->rec, st->env.now_ms);
	} else if (cmd_decode(st->ctx, st->name, old, oldlen, &st->rec,
	    err) == -1)
		return -1;
	st->fn(&st->rec, st->p, &st->env, st->a, st->reason, &st->fx);
	record_encode(&st->rec, out);
	return STORE_PUT;
}

int
admin_each(struct cb_ctx *ctx, const struct admin_args *a, const char *what,
    int create, admin_fn fn)
{
	static struct admin_step	 st;
	struct policy_builder		 b;
	struct cb_policy		 p;
	struct cb_err			 err;
	struct store			*store;
	char				 reason[RECORD_REASON_MAX];
	int				 i, status = EXIT_OK;

	if ((store = cmd_store(ctx, 0, NULL, &err)) == NULL) {
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}
	admin_reason(what, a, reason, sizeof reason);
	for (i = 0; i < a->nnames; i++) {
		policy_init(&b);
		if (cmd_policy(ctx, a->names[i], &b) == -1)
			return EXIT_FAIL;
		if (policy_finish(&b, &p, &err) == -1) {
			cmd_warnx("%s: %s", a->names[i], err.msg);
			return EXIT_FAIL;
		}
		memset(&st, 0, sizeof st);
		st.ctx = ctx;
		st.name = a->names[i];
		st.a = a;
		st.fn = fn;
		st.create = create;
		st.p = &p;
		st.reason = reason;
		cmd_env(ctx, &st.env);
		if (store_update(store, st.name, admin_cb, &st, &err) == -1) {
			cmd_warnx("%s", err.msg);
			status = EXIT_FAIL;
		} else if (!st.found && !create) {
			cmd_warnx("no such breaker '%s'", st.name);
			status = EXIT_FAIL;
		} else {
			cmd_evictions(ctx);
			cmd_transitions(ctx, st.name, &st.fx);
		}
	}
	return status;
}
