/* SPDX-License-Identifier: ISC */
/*
 * stategroup.h: the shared system state (SPEC section 10), root's and that
 * of the members of the group cbexec, whose new files there get mode
 * 0660; and who belongs to that group (stategroup.c).
 */
#ifndef CBEXEC_STATEGROUP_H
#define CBEXEC_STATEGROUP_H

#include <sys/types.h>

#define STATE_SYSTEM_DIR	"/var/lib/cbexec"
#define STATE_SYSTEM		STATE_SYSTEM_DIR "/state.mdb"
#define STATE_GROUP		"cbexec"

/* The group cbexec's id, looked up once, or -1 when there is none. */
long long	stategroup_gid(void);
/* Is gid the process's effective group or one of its supplementary
 * ones? */
int		stategroup_member(gid_t);
/* Does this process share root's state: /var/lib/cbexec exists, its
 * group is cbexec, and the process is in that group? */
int		stategroup_shared(void);
/* Is the user a member of that group in the group database while this
 * process lacks it (the state splits: said with the fix)? */
int		stategroup_split(void);

#endif
