/* SPDX-License-Identifier: ISC */
/*
 * call.c: the call protocol.  One guarded call goes through the breaker in
 * two store updates, whichever command drives it (run, or acquire and
 * then release): cmd_admit_cb admits, cmd_record_cb records the outcome.
 * Both are pure store_update_fn callbacks over a struct cmd_call, as
 * store.h requires (a backend may run them more than once); the only
 * outside views they take are call_holder_alive, the liveness of the
 * processes holding probe and run slots (or their jobs' process groups),
 * and the job's group a run forks ahead once admitted with a slot.
 * cmd_reap kills, after the commit, the groups of slots whose lease had
 * passed, when the kernel proves each is the job (jobproof.h).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "lastgood.h"
#include "esc.h"
#include "jobproof.h"
#include "record.h"

int
cmd_decode(struct cb_ctx *ctx, const char *name, const uint8_t *data,
    size_t len, struct cb_record *r, struct cb_err *err)
{
	struct cb_err	e;

	if (record_decode(data, len, r, &e) == RECORD_OK)
		return 0;
	err_set(err, "breaker '%s' in state '%s': %s", name,
	    ctx->state != NULL ? ctx->state : "?", e.msg);
	return -1;
}

/*
 * Can pids of slot s be judged here?  Only from the same PID namespace
 * (containers on one kernel share its boot id); a slot that does not say
 * its namespace (taken before record format 4) only on a host of the same
 * name.
 */
static int
call_same_ns(struct cb_ctx *ctx, const struct cb_slot *s)
{
	uint64_t	ns = cmd_pidns(ctx);

	if (s->pidns != 0 && ns != 0)
		return s->pidns == ns;
	return s->host[0] == '\0' || strcmp(s->host, cmd_host(ctx)) == 0;
}

/*
 * The job's process group of slot s, already known to be of this boot
 * and namespace (SPEC 2b): alive while it has a member and every member
 * /proc shows started no earlier than the holder did, for a group whose
 * id was taken since by others is not the job's (dead); unknown when it
 * has members /proc does not show (hidepid).  A slot with no group, or
 * whose holder's start time is unknown, has no group to judge: dead.
 */
static enum cb_liveness
call_group_alive(const struct cb_slot *s)
{
	unsigned	seen, older;
	int		hidden;

	if (s->pgid <= 1 || s->start_time == 0)
		return HOLDER_DEAD;
	/* Members none of which are ours to signal may be hidden from us;
	 * ours that /proc does not list as live are zombies. */
	hidden = kill(-s->pgid, 0) == -1;
	if (hidden && errno == ESRCH)
		return HOLDER_DEAD;
	if (clock_group_members(s->pgid, s->start_time, &seen, &older) == -1)
		return HOLDER_UNKNOWN;
	if (older > 0)
		return HOLDER_DEAD;
	if (seen > 0)
		return HOLDER_ALIVE;
	return hidden ? HOLDER_UNKNOWN : HOLDER_DEAD;
}

enum cb_liveness
call_holder_alive(const struct cb_slot *s, void *arg)
{
	struct cb_ctx		*ctx = arg;
	enum cb_liveness	 group;
	uint64_t		 start;

	if (memcmp(s->boot_id, cmd_boot_id(ctx), sizeof s->boot_id) != 0)
		return ctx->store != NULL && ctx->store->ops->multi_host ?
		    HOLDER_UNKNOWN : HOLDER_DEAD;
	if (s->pid <= 0)
		return HOLDER_UNKNOWN;
	/* The same pid and start time in another namespace would be
	 * another process started in the same tick: held, the safe side. */
	if ((start = clock_proc_start(s->pid)) == s->start_time)
		return HOLDER_ALIVE;
	if (!call_same_ns(ctx, s))
		return HOLDER_UNKNOWN;
	/* cbexec is gone (SIGKILL, the OOM killer): its job holds on. */
	if ((group = call_group_alive(s)) != HOLDER_DEAD)
		return group;
	/* There with another start time: reused, whoever owns it now. */
	if (start != 0)
		return HOLDER_DEAD;
	/*
	 * A process of another user may be hidden from us (/proc mounted
	 * with hidepid): one that exists but is not ours to signal cannot be
	 * judged, so its lease decides.
	 */
	if (kill(s->pid, 0) == -1 && errno == EPERM)
		return HOLDER_UNKNOWN;
	return HOLDER_DEAD;
}

/*
 * A group that outlived its lease is killed only on the kernel's word
 * (SPEC 2b): a member of it, running as our real uid, started with the
 * marker whose hash the slot keeps (jobproof.h).  Nothing in the slot is
 * proof by itself, and a slot with no marker (an acquire's, one taken
 * before record format 5) is never proven.  Each reclaimed slot is met
 * once, by the call that reclaims it.
 */
static void
reap_one(struct cb_ctx *ctx, const char *name, const struct cb_slot *s)
{
	if (jobproof_group(s->pgid, getuid(), name, s->job) == 0) {
		if (!ctx->quiet)
			cmd_warnx("%s: pid %ld's group %ld outlived its lease "
			    "but is not provably the job's; not killed",
			    esc(name), (long)s->pid, (long)s->pgid);
		return;
	}
	if (killpg(s->pgid, SIGKILL) == -1) {
		if (!ctx->quiet)
			cmd_warn("%s: cannot kill process group %ld, which "
			    "outlived its lease", esc(name), (long)s->pgid);
		return;
	}
	if (!ctx->quiet)
		cmd_warnx("%s: killed process group %ld of pid %ld, which "
		    "outlived its lease", esc(name), (long)s->pgid,
		    (long)s->pid);
}

void
cmd_reap(struct cb_ctx *ctx, const char *name, const struct cb_effects *fx)
{
	const struct cb_slot	*s;
	unsigned		 i;

	for (i = 0; i < fx->nreaped; i++) {
		s = &fx->reaped[i];
		/* Its guardian lives (its lease was too short): not ours;
		 * nor a group of another boot or namespace, or gone. */
		if (memcmp(s->boot_id, cmd_boot_id(ctx),
		    sizeof s->boot_id) != 0 || !call_same_ns(ctx, s) ||
		    (s->start_time != 0 &&
		    clock_proc_start(s->pid) == s->start_time) ||
		    call_group_alive(s) != HOLDER_ALIVE)
			continue;
		reap_one(ctx, name, s);
	}
}

/*
 * The slots this call took say where they were taken (the PID
 * namespace) and, for run, the job's process group, forked ahead so
 * that the slot names it from the start (SPEC 2b).
 */
static void
call_mark_slots(struct cmd_call *c)
{
	struct cb_record	*r = &c->rec;
	unsigned		 i;

	c->self.pidns = cmd_pidns(c->ctx);
	c->self.pgid = c->job_group != NULL ? (int32_t)c->job_group(c) : 0;
	for (i = 0; i < r->nslots; i++)
		if (r->slots[i].token == c->ticket.token) {
			r->slots[i].pidns = c->self.pidns;
			r->slots[i].pgid = c->self.pgid;
		}
	for (i = 0; i < r->nrunning; i++)
		if (r->running[i].token == c->ticket.token) {
			r->running[i].pidns = c->self.pidns;
			r->running[i].pgid = c->self.pgid;
		}
}

int
cmd_admit_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out,
    void *arg, struct cb_err *err)
{
	struct cmd_call	*c = arg;
	uint64_t	 busy, rated;
	uint32_t	 refused;
	int		 changed, self;

	/*
	 * Who we are (pid, start time, boot id, host, token) goes only into
	 * a slot: read at once for a run slot, and for a probe's only once
	 * the call turns out to be the probe, deciding again with it; an
	 * open breaker's refusal reads none of it.
	 */
	self = c->p->max_concurrent > 0;
again:
	memset(&c->fx, 0, sizeof c->fx);
	if (old == NULL)
		breaker_init(&c->rec, &c->env);
	else if (cmd_decode(c->ctx, c->name, old, oldlen, &c->rec, err) == -1)
		return -1;
	if (self && c->fill_self != NULL)
		c->fill_self(c);
	busy = c->rec.busy;
	refused = c->rec.refused_since_run;
	rated = c->rec.rate_limited;
	changed = breaker_admit(&c->rec, c->p, &c->env, &c->self, &c->ticket,
	    &c->fx);
	if (!self && c->ticket.admitted && c->ticket.probe &&
	    c->fill_self != NULL) {
		self = 1;
		goto again;
	}
	if (c->ticket.admitted && (c->ticket.probe || c->ticket.running))
		call_mark_slots(c);
	if (c->waiting && c->ticket.busy) {
		c->rec.busy = busy;
		c->rec.refused_since_run = refused;
	}
	/* --wait will sleep until the turn: not counted (SPEC 2d). */
	if (c->ticket.rate_limited && c->ticket.retry_in_ms <= c->wait_left_ms)
		c->rec.rate_limited = rated;
	if (old != NULL && !changed)
		return STORE_KEEP;
	record_encode(&c->rec, out);
	return STORE_PUT;
}

int
cmd_record_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out,
    void *arg, struct cb_err *err)
{
	struct cmd_call	*c = arg;

	memset(&c->fx, 0, sizeof c->fx);
	/* Filled by the caller before this update (cmd_run_by). */
	c->run.by = c->ctx->run_by_done ? &c->ctx->run_by : NULL;
	if (old == NULL) {
		/* Forgotten, gc'ed or evicted meanwhile: made anew (SPEC 2,
		 * Identity), so that no outcome of a run is lost. */
		c->counted = breaker_record_anew(&c->rec, c->p, &c->env,
		    &c->run, &c->fx);
		record_encode(&c->rec, out);
		return STORE_PUT;
	}
	if (cmd_decode(c->ctx, c->name, old, oldlen, &c->rec, err) == -1)
		return -1;
	c->counted = breaker_record(&c->rec, c->p, &c->env, &c->ticket,
	    &c->run, &c->fx);
	record_encode(&c->rec, out);
	return STORE_PUT;
}

int
cmd_policy(struct cb_ctx *ctx, const char *name, struct policy_builder *b)
{
	struct cb_err	err;

	if (cmd_config(ctx) == -1)
		return -1;
	if (config_policy(&ctx->cfg, name, b, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return -1;
	}
	return 0;
}

/*
 * The policy NAME's record last ran under, over the built-in defaults,
 * into b (SPEC section 4); the built-in defaults alone when there is no
 * record, it cannot be read (run then says why, or follows
 * on_store_error), or the store is not to be opened.
 */
static void
record_policy(struct cb_ctx *ctx, const char *name, int store_mode,
    struct policy_builder *b)
{
	/* Large (a record): static, see struct cb_record. */
	static struct cb_record	 r;
	struct cb_policy	 base, last;
	struct cb_buf		 buf = { 0 };
	struct cb_err		 err;
	struct store		*store;

	policy_init(b);
	if (policy_finish(b, &base, &err) == -1)
		return;		/* cannot happen: the built-in defaults */
	if (store_mode == CALL_STORE_NONE || (store = cmd_store(ctx,
	    store_mode == CALL_STORE_RO, &err)) == NULL ||
	    store_get(store, name, &buf, &err) != 1 ||
	    record_decode(buf.data, buf.len, &r, &err) != RECORD_OK ||
	    breaker_policy(&r, &base, &last) == 0) {
		buf_free(&buf);
		/* Never ran: what the last clean config gave its name. */
		if (store_mode != CALL_STORE_NONE && ctx->cfg.path != NULL &&
		    cmd_memo_base(ctx) != NULL &&
		    lastgood_policy(cmd_memo_base(ctx), ctx->cfg.path, name,
		    &base, &last) == 0) {
			policy_init_from(b, &last, "last good config");
			return;
		}
		policy_init(b);
		return;
	}
	buf_free(&buf);
	policy_init_from(b, &last, "last run");
}

int
cmd_call_builder(struct cb_ctx *ctx, const char *name, int store_mode,
    struct policy_builder *b)
{
	if (cmd_config(ctx) == -1)
		return -1;
	if (ctx->cfg_broken) {
		record_policy(ctx, name, store_mode, b);
		return 0;
	}
	return cmd_policy(ctx, name, b);
}

int
cmd_call_policy(struct cb_ctx *ctx, const char *what, const char *name,
    int store_mode, const struct run_opts *ro, struct cb_policy *p)
{
	struct policy_builder	b;
	struct cb_err		err;

	if (cmd_call_builder(ctx, name, store_mode, &b) == -1)
		return -1;
	if (ro != NULL && run_apply(what, ro, &b) == -1)
		return -1;
	if (policy_finish(&b, p, &err) == -1) {
		cmd_warnx("%s: %s", name, err.msg);
		return -1;
	}
	return 0;
}

void
cmd_env(struct cb_ctx *ctx, struct cb_env *env)
{
	uint64_t	r[2];

	memset(env, 0, sizeof *env);
	env->now_ms = clock_wall_ms();
	clock_random2(r);
	/* 53 random bits: a uniform double in [0, 1). */
	env->jitter_u = (double)(r[0] >> 11) / 9007199254740992.0;
	env->rand64 = r[1];
	env->alive = call_holder_alive;
	env->alive_ctx = ctx;
}
