/* SPDX-License-Identifier: ISC */
/*
 * confmemo.h: the state a config file named when it last loaded cleanly,
 * remembered per config path beside the default state file
 * (confmemo.c; SPEC section 4).
 */
#ifndef CBEXEC_CONFMEMO_H
#define CBEXEC_CONFMEMO_H

/*
 * The state that the config file at config named when it last loaded
 * cleanly, in new memory, or NULL when none is remembered (or what is
 * there is not to be believed: not a regular file of ours that only we
 * may write, or naming another config).  default_state is the state path
 * the rules give without any config; the memo lives beside it.
 */
char	*confmemo_recall(const char *default_state, const char *config);

/*
 * Remember that the config at config, which loaded cleanly, names state
 * (NULL: none, so the memo is removed).  Writes only when the memo says
 * otherwise, making the default state's directory (0700) if it is not
 * there only with create; best effort, silent.
 */
void	 confmemo_remember(const char *default_state, const char *config,
	    const char *state, int create);

#endif
