/* SPDX-License-Identifier: ISC */
/*
 * confmemo.c: what a config file said the last time it loaded cleanly,
 * remembered per config path (SPEC section 4): the state it named, so
 * that a file that later cannot be read (chmod 000, a disk error) still
 * leads to the breakers it chose rather than to the default state, where
 * an open breaker would be missed; and the policy it gave each pattern
 * of names, every number, class and mode but never a command, so that a
 * breaker that never ran gets what the file gave it, not the built-in
 * defaults, while the file is broken.
 *
 * The memo is one small text file of each user's beside a state file,
 * STATE-configs.UID, a block per config path, the last written first, at
 * most MEMO_CONFIGS of them:
 *
 *	@CONFIG-PATH
 *	STATE			(empty: the file names none)
 *	HASH			(of the file's text, 16 hex digits)
 *	=PATTERN<TAB>HEX	(a record holding the policy's snapshot;
 *	...			 the entries in order, then "" for the
 *				 names no entry matches)
 *
 * It is believed only when it is a regular file of the caller's own that
 * nobody else may write: the default state's directory may be shared
 * with the group cbexec (sticky, so a member cannot replace root's memo,
 * but could make one first).  Writing is best effort: a new file renamed
 * over the old one.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confmemo.h"
#include "statefile.h"
#include "util.h"

/* A memo's size at most, a path's, and the configs it keeps. */
#define MEMO_MAX	(1 << 20)
#define MEMO_LINE_MAX	4096
#define MEMO_CONFIGS	16

static char *
memo_path(const char *default_state)
{
	char	*path;

	/* One per user: a shared state's directory is sticky, and each
	 * believes only its own. */
	xasprintf(&path, "%s-configs.%u", default_state, (unsigned)geteuid());
	return path;
}

/*
 * The memo's text (NUL-terminated, in new memory), or NULL when there is
 * none to believe.  A symbolic link is not followed, nor a FIFO waited on.
 */
static char *
memo_read(const char *path)
{
	struct stat	 st;
	char		*text = NULL;
	size_t		 len = 0;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY)) == -1)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && (st.st_mode & 022) == 0 &&
	    st.st_size > 0 && st.st_size <= MEMO_MAX) {
		text = xmalloc((size_t)st.st_size + 1);
		while (len < (size_t)st.st_size &&
		    (n = read(fd, text + len, (size_t)st.st_size - len)) > 0)
			len += (size_t)n;
		text[len] = '\0';
		if (len != (size_t)st.st_size || memchr(text, '\0', len)) {
			free(text);
			text = NULL;
		}
	}
	(void)close(fd);
	return text;
}

/* config's block, split in place. */
struct memo {
	const char	*state;		/* "" for none */
	const char	*hash;
	char		*body;		/* the policy lines, to the next '@' */
};

/* The block that begins at p ("@CONFIG\n..."): its end, the next block's
 * '@' or the NUL.  Its three head lines are taken whole (a state may
 * begin with '@'); its policy lines begin with '='. */
static char *
memo_block_end(char *p)
{
	char	*nl;
	int	 i;

	for (i = 0; i < 3; i++) {
		if ((nl = strchr(p, '\n')) == NULL)
			return p + strlen(p);
		p = nl + 1;
	}
	while (*p == '=' && (nl = strchr(p, '\n')) != NULL)
		p = nl + 1;
	return *p == '=' ? p + strlen(p) : p;
}

/* config's block of text, split in place: 0, or -1 when there is none. */
static int
memo_parse(char *text, const char *config, struct memo *m)
{
	char	*p, *end, *line[3], *nl;
	size_t	 len = strlen(config);
	int	 i;

	for (p = text; *p == '@'; p = end) {
		end = memo_block_end(p);
		if (strncmp(p + 1, config, len) != 0 || p[1 + len] != '\n')
			continue;
		*(end[0] != '\0' ? end - 1 : end) = '\0';
		p += 1 + len + 1;
		for (i = 0; i < 2; i++) {
			if ((nl = strchr(p, '\n')) == NULL)
				return -1;
			*nl = '\0';
			line[i] = p;
			p = nl + 1;
		}
		m->state = line[0];
		m->hash = line[1];
		m->body = p;
		return 0;
	}
	return -1;
}

char *
confmemo_recall(const char *default_state, const char *config)
{
	struct memo	 m;
	char		*path, *text, *s = NULL;

	path = memo_path(default_state);
	if ((text = memo_read(path)) != NULL &&
	    memo_parse(text, config, &m) == 0 && m.state[0] != '\0')
		s = xstrdup(m.state);
	free(text);
	free(path);
	return s;
}

char *
confmemo_policy(const char *default_state, const char *config,
    const char *name)
{
	struct memo	 m;
	char		*path, *text, *line, *tab, *nl, *hex = NULL;

	path = memo_path(default_state);
	if ((text = memo_read(path)) == NULL ||
	    memo_parse(text, config, &m) == -1)
		goto out;
	for (line = m.body; *line == '='; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			nl = line + strlen(line) - 1;
		if ((tab = memchr(line, '\t', (size_t)(nl - line))) == NULL)
			break;
		*tab = '\0';
		if (*nl == '\n')
			*nl = '\0';
		if (line[1] == '\0' || fnmatch(line + 1, name, 0) == 0) {
			hex = xstrdup(tab + 1);
			break;
		}
	}
out:
	free(text);
	free(path);
	return hex;
}

static int
line_ok(const char *s)
{
	return strlen(s) < MEMO_LINE_MAX && strchr(s, '\n') == NULL;
}

int
confmemo_due(const char *default_state, const char *config,
    const char *state, uint64_t hash)
{
	struct memo	 m;
	char		*path, *text, want[32];
	int		 due = 1;

	if (!line_ok(config) || (state != NULL && !line_ok(state)))
		return 0;
	snprintf(want, sizeof want, "%016" PRIx64, hash);
	path = memo_path(default_state);
	if ((text = memo_read(path)) != NULL &&
	    memo_parse(text, config, &m) == 0 &&
	    strcmp(m.state, state != NULL ? state : "") == 0 &&
	    strcmp(m.hash, want) == 0)
		due = 0;
	free(text);
	free(path);
	return due;
}

/* The other configs' blocks of old, up to MEMO_CONFIGS - 1 of them, that
 * fit in room, appended to out. */
static void
memo_others(char *old, const char *config, size_t room, struct cb_buf *out)
{
	char	*p, *end;
	size_t	 len = strlen(config);
	int	 n = 0;

	for (p = old; p != NULL && *p == '@' && n < MEMO_CONFIGS - 1;
	    p = end) {
		end = memo_block_end(p);
		if ((strncmp(p + 1, config, len) == 0 && p[1 + len] == '\n') ||
		    out->len + (size_t)(end - p) > room)
			continue;
		buf_add(out, p, (size_t)(end - p));
		if (end[-1] != '\n')
			buf_add(out, "\n", 1);
		n++;
	}
}

void
confmemo_write(const char *default_state, const char *config,
    const char *state, uint64_t hash, const char *body, int create)
{
	struct cb_err	 e;
	struct cb_buf	 rest = { 0 };
	char		*path, *tmp, *head, *old;
	size_t		 hlen, blen = strlen(body);
	int		 fd, ok;

	if (!line_ok(config) || (state != NULL && !line_ok(state)) ||
	    blen > MEMO_MAX / 2)
		return;
	path = memo_path(default_state);
	old = memo_read(path);
	/* Where the default state would be made (root's /var/lib/cbexec
	 * before the package made it): only we may enter it. */
	if (create)
		(void)statefile_make_parents(path, 0700, &e);
	xasprintf(&tmp, "%s.XXXXXX", path);
	xasprintf(&head, "@%s\n%s\n%016" PRIx64 "\n", config,
	    state != NULL ? state : "", hash);
	hlen = strlen(head);
	memo_others(old, config, MEMO_MAX - hlen - blen, &rest);
	if ((fd = mkostemp(tmp, O_CLOEXEC)) != -1) {
		ok = fchmod(fd, 0644) == 0 &&
		    write(fd, head, hlen) == (ssize_t)hlen &&
		    write(fd, body, blen) == (ssize_t)blen &&
		    (rest.len == 0 ||
		    write(fd, rest.data, rest.len) == (ssize_t)rest.len);
		ok = close(fd) == 0 && ok;
		if (!ok || rename(tmp, path) == -1)
			(void)unlink(tmp);
	}
	free(head);
	free(tmp);
	free(path);
	free(old);
	buf_free(&rest);
}
