/* SPDX-License-Identifier: ISC */
/*
 * stategroup.c: the group cbexec and the shared state of SPEC section 10:
 * who is in it, who only thinks so (a session older than usermod -aG),
 * and whether the shared state is there.  Reads the group database and
 * the process's credentials; prints nothing.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "stategroup.h"
#include "util.h"

/*
 * The group cbexec's id, looked up once (NSS may load modules and open
 * sockets: about a millisecond), or -1 when there is no such group.
 */
long long
stategroup_gid(void)
{
	static int		 done;
	static long long	 gid = -1;
	struct group		*gr;

	if (!done && (gr = getgrnam(STATE_GROUP)) != NULL)
		gid = gr->gr_gid;
	done = 1;
	return gid;
}

/* Is gid the process's effective group or one of its supplementary ones? */
int
stategroup_member(gid_t gid)
{
	gid_t	*groups;
	int	 n, i, found = 0;

	if (getegid() == gid)
		return 1;
	if ((n = getgroups(0, NULL)) <= 0)
		return 0;
	groups = xcalloc((size_t)n, sizeof *groups);
	if ((n = getgroups(n, groups)) > 0) {
		for (i = 0; i < n && !found; i++)
			found = groups[i] == gid;
	}
	free(groups);
	return found;
}

/*
 * Does a user who is not root share root's state (SPEC section 10)?  Yes
 * when /var/lib/cbexec exists, its group is cbexec, and the user is in
 * that group.  The name is looked up only for a user in the directory's
 * group, so other users pay two system calls.
 */
int
stategroup_shared(void)
{
	struct stat	st;

	return stat(STATE_SYSTEM_DIR, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_gid != 0 && stategroup_member(st.st_gid) &&
	    stategroup_gid() == (long long)st.st_gid;
}

/*
 * Is the user a member of the shared state's group in the group database,
 * though this process lacks it (a session older than `usermod -aG`, a
 * unit without SupplementaryGroups=)?  Its breakers would then split from
 * root's silently (SPEC 7).  Asked only of a user state_shared refused.
 */
int
stategroup_split(void)
{
	struct stat	 st;
	struct passwd	*pw;
	gid_t		*groups;
	int		 n = 32, i, found = 0;

	if (stat(STATE_SYSTEM_DIR, &st) == -1 || !S_ISDIR(st.st_mode) ||
	    st.st_gid == 0 || stategroup_member(st.st_gid) ||
	    stategroup_gid() != (long long)st.st_gid ||
	    (pw = getpwuid(getuid())) == NULL)
		return 0;
	if (pw->pw_gid == st.st_gid)
		return 1;
	groups = xcalloc((size_t)n, sizeof *groups);
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) == -1) {
		free(groups);
		groups = xcalloc((size_t)n, sizeof *groups);
		if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) == -1)
			n = 0;
	}
	for (i = 0; i < n && !found; i++)
		found = groups[i] == st.st_gid;
	free(groups);
	return found;
}
