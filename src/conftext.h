/* SPDX-License-Identifier: ISC */
/*
 * conftext.h: the integer literals of a libconfig 1.5 text (conftext.c),
 * so that a value libconfig would silently wrap is reported instead, and
 * the reading of that text.
 */
#ifndef CBEXEC_CONFTEXT_H
#define CBEXEC_CONFTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* The largest config file read. */
#define CONFTEXT_MAX	(1024 * 1024)

/*
 * Read path into a NUL-terminated buffer (*out, to free; *outlen bytes
 * before the NUL) ending in a newline, which libconfig 1.5 wants after a
 * comment on the last line, and a hash of what was read (never 0) into
 * *hash.  The file is opened so that it cannot block (a FIFO) and read
 * only if it is a regular file.  Refused: anything else, a file over
 * CONFTEXT_MAX, one owned by neither us nor root (its hooks run as us),
 * and as root one that group or others may write.  Returns 1, 0 when a
 * file not required does not exist, 2 when path is the null device (no
 * config file), 3 when a file not required is behind a directory the
 * user may not search (so not there for it), or -1 with err filled.
 */
int	conftext_read(const char *path, int required, char **out,
	    size_t *outlen, uint64_t *hash, struct cb_err *err);

/* An integer literal in the text, in the order libconfig meets them. */
struct conf_literal {
	unsigned int	line;
	int		bad;		/* libconfig cannot hold it */
	int		suffix_helps;	/* it would fit with an L suffix */
	char		text[32];	/* as written, cut at 31 bytes */
};

struct conf_literals {
	struct conf_literal	*v;
	size_t			 n;
	size_t			 cap;
	int			 nbad;	/* how many are bad */
};

/*
 * Append every integer literal of text (NUL-terminated) to ls, which
 * starts zeroed and is freed with conftext_free.  Returns 0, or -1 with
 * the line in *include_line when the text holds @include, which is not
 * supported.
 */
int	conftext_scan(const char *text, struct conf_literals *ls,
	    unsigned int *include_line);
void	conftext_free(struct conf_literals *);

#endif
