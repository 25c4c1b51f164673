/* SPDX-License-Identifier: ISC */
/*
 * confmemo.h: what a config file said when it last loaded cleanly (the
 * state it named, the policy it gave each pattern of names), remembered
 * per config path beside the default state file (confmemo.c; SPEC
 * section 4).  default_state is the state path the rules give without any
 * config; config the config file's path.  What is there is believed only
 * when it is a regular file of ours that only we may write, naming the
 * same config.
 */
#ifndef CBEXEC_CONFMEMO_H
#define CBEXEC_CONFMEMO_H

#include <stdint.h>

/* The state the config named, in new memory, or NULL (none remembered, or
 * it named none). */
char	*confmemo_recall(const char *default_state, const char *config);

/* The policy line the config gave name (its first matching pattern, else
 * the one for names no entry matches): a hex record (breaker.h,
 * breaker_policy_record), in new memory, or NULL. */
char	*confmemo_policy(const char *default_state, const char *config,
	    const char *name);

/* 1 when the memo says otherwise than state (NULL: none) and hash, the
 * config text's: confmemo_write is then due. */
int	 confmemo_due(const char *default_state, const char *config,
	    const char *state, uint64_t hash);

/*
 * Write the memo: the head, then body, the policy lines
 * ("=PATTERN\tHEX\n", "=" alone last, for the names no entry matches).  Makes the default state's directory (0700)
 * if it is not there only with create; best effort, silent.
 */
void	 confmemo_write(const char *default_state, const char *config,
	    const char *state, uint64_t hash, const char *body, int create);

#endif
