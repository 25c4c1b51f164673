/* SPDX-License-Identifier: ISC */
/*
 * call.c: the call protocol.  One guarded call goes through the breaker in
 * two store updates, whichever command drives it (run, or acquire and
 * then release): cmd_admit_cb admits, cmd_record_cb records the outcome.
 * Both are pure store_update_fn callbacks over a struct cmd_call, as
 * store.h requires (a backend may run them more than once); the only
 * outside view they take is call_holder_alive, the liveness of the
 * processes holding probe slots.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
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
 * A local state file's holder from another boot is gone; within this boot
 * the pid must still exist with the start time it had.  In the fleet store
 * another boot id is most likely another host, whose pids we cannot see:
 * only its lease can free the slot.
 */
enum cb_liveness
call_holder_alive(const struct cb_slot *s, void *arg)
{
	struct cb_ctx	*ctx = arg;

	if (memcmp(s->boot_id, cmd_boot_id(ctx), sizeof s->boot_id) != 0)
		return ctx->store != NULL && ctx->store->ops->multi_host ?
		    HOLDER_UNKNOWN : HOLDER_DEAD;
	if (s->pid <= 0)
		return HOLDER_UNKNOWN;
	if (clock_proc_start(s->pid) == s->start_time)
		return HOLDER_ALIVE;
	/*
	 * A process of another user may be hidden from us (/proc mounted
	 * with hidepid): one that exists but is not ours to signal cannot be
	 * judged, so its lease decides.
	 */
	if (kill(s->pid, 0) == -1 && errno == EPERM)
		return HOLDER_UNKNOWN;
	return HOLDER_DEAD;
}

int
cmd_admit_cb(const uint8_t *old, size_t oldlen, struct cb_buf *out,
    void *arg, struct cb_err *err)
{
	struct cmd_call	*c = arg;
	uint64_t	 busy;
	uint32_t	 refused;
	int		 changed;

	memset(&c->fx, 0, sizeof c->fx);
	if (old == NULL)
		breaker_init(&c->rec, &c->env);
	else if (cmd_decode(c->ctx, c->name, old, oldlen, &c->rec, err) == -1)
		return -1;
	if ((c->rec.state != STATE_CLOSED || c->p->max_concurrent > 0) &&
	    c->fill_self != NULL)
		c->fill_self(c);
	busy = c->rec.busy;
	refused = c->rec.refused_since_run;
	changed = breaker_admit(&c->rec, c->p, &c->env, &c->self, &c->ticket,
	    &c->fx);
	if (c->waiting && c->ticket.busy) {
		c->rec.busy = busy;
		c->rec.refused_since_run = refused;
	}
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
