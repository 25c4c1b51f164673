/* SPDX-License-Identifier: ISC */
/*
 * confmemo.c: the state a config file named the last time it loaded
 * cleanly, remembered per config path, so that a file that later cannot
 * be read (chmod 000, a disk error) still leads to the breakers it chose
 * rather than to the default state, where an open breaker would be
 * missed (SPEC section 4).
 *
 * The memo is a small file beside the default state file, named after a
 * hash of the config path, holding the config path and the state, one a
 * line.  It is believed only when it is a regular file of the caller's
 * own, that nobody else may write, and names the same config path: the
 * default state's directory may be shared with the group cbexec (sticky,
 * so a member cannot replace root's memo, but could make one first).
 * Writing is best effort: a new file renamed over the old one.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confmemo.h"
#include "statefile.h"
#include "util.h"

/* A memo's size at most: two lines of at most this each. */
#define MEMO_LINE_MAX	4096

static char *
memo_path(const char *default_state, const char *config)
{
	const unsigned char	*b = (const unsigned char *)config;
	uint64_t		 h = 0xcbf29ce484222325ULL;
	char			*path;

	while (*b != '\0') {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	xasprintf(&path, "%s-config-%016" PRIx64, default_state, h);
	return path;
}

/*
 * The memo's text into buf (NUL-terminated), or -1 when there is none
 * to believe.  A symbolic link is not followed, nor a FIFO waited on.
 */
static int
memo_read(const char *path, char *buf, size_t size)
{
	struct stat	 st;
	ssize_t		 n;
	int		 fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY)) == -1)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & 022) == 0 &&
	    (n = read(fd, buf, size - 1)) > 0) {
		buf[n] = '\0';
		rc = 0;
	}
	(void)close(fd);
	return rc;
}

/* The state in text, when its first line is config; else NULL. */
static const char *
memo_state(char *text, const char *config)
{
	char	*nl, *state;

	if ((nl = strchr(text, '\n')) == NULL)
		return NULL;
	*nl = '\0';
	if (strcmp(text, config) != 0)
		return NULL;
	state = nl + 1;
	if ((nl = strchr(state, '\n')) == NULL || nl[1] != '\0' ||
	    nl == state)
		return NULL;
	*nl = '\0';
	return state;
}

char *
confmemo_recall(const char *default_state, const char *config)
{
	char		*path, *text;
	const char	*state;
	char		*s = NULL;

	path = memo_path(default_state, config);
	text = xmalloc(2 * MEMO_LINE_MAX + 2);
	if (memo_read(path, text, 2 * MEMO_LINE_MAX + 2) == 0 &&
	    (state = memo_state(text, config)) != NULL)
		s = xstrdup(state);
	free(text);
	free(path);
	return s;
}

void
confmemo_remember(const char *default_state, const char *config,
    const char *state, int create)
{
	struct cb_err	 e;
	struct stat	 st;
	char		*path, *text, *tmp, *want;
	const char	*had = NULL;
	int		 fd, len, ok;

	if (strlen(config) >= MEMO_LINE_MAX || strchr(config, '\n') != NULL ||
	    (state != NULL && (strlen(state) >= MEMO_LINE_MAX ||
	    strchr(state, '\n') != NULL)))
		return;
	path = memo_path(default_state, config);
	if (state == NULL) {
		/* The file names none now: forget, if there is a memo. */
		if (lstat(path, &st) == 0 && st.st_uid == geteuid())
			(void)unlink(path);
		free(path);
		return;
	}
	text = xmalloc(2 * MEMO_LINE_MAX + 2);
	if (memo_read(path, text, 2 * MEMO_LINE_MAX + 2) == 0)
		had = memo_state(text, config);
	if (had != NULL && strcmp(had, state) == 0)
		goto out;
	/* Where the default state would be made (root's /var/lib/cbexec
	 * before the package made it): only we may enter it. */
	if (create)
		(void)statefile_make_parents(path, 0700, &e);
	xasprintf(&tmp, "%s.XXXXXX", path);
	xasprintf(&want, "%s\n%s\n", config, state);
	len = (int)strlen(want);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) != -1) {
		ok = fchmod(fd, 0644) == 0 && write(fd, want, (size_t)len) ==
		    len;
		ok = close(fd) == 0 && ok;
		if (!ok || rename(tmp, path) == -1)
			(void)unlink(tmp);
	}
	free(want);
	free(tmp);
out:
	free(text);
	free(path);
}
