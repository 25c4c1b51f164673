/* SPDX-License-Identifier: ISC */
/*
 * lastgood.h: the last config that loaded cleanly, for breakers that
 * never ran (lastgood.c; SPEC section 4), kept in its memo beside the
 * default state file (confmemo.h).
 */
#ifndef CBEXEC_LASTGOOD_H
#define CBEXEC_LASTGOOD_H

#include <stdint.h>

#include "config.h"
#include "policy.h"

/*
 * cfg loaded cleanly: when its memo says otherwise (its state, its text's
 * hash), write the memo, with the policy each entry gives and the one for
 * the names no entry matches; create as confmemo_write.  Best effort.
 */
void	lastgood_remember(const char *default_state,
	    const struct cb_config *cfg, int64_t now, int create);

/*
 * The policy the config at config gave name when it last loaded cleanly,
 * laid over base into out: 0, or -1 when none is remembered (or it is
 * not to be believed).
 */
int	lastgood_policy(const char *default_state, const char *config,
	    const char *name, const struct cb_policy *base,
	    struct cb_policy *out);

#endif
