/* SPDX-License-Identifier: ISC */
/*
 * conftext.c: what the config file's text holds that libconfig 1.5 would
 * get wrong without a word.  It stores an integer literal that does not
 * fit in an int (3000000000 reads as -1294967296), so the text is walked
 * here as libconfig's own scanner walks it (strings, comments, names,
 * numbers), every integer literal is listed in document order with
 * whether libconfig can hold it, and config.c ties each bad one to the
 * setting made of it.  @include, which would read a file none of the
 * checks sees, stops the walk.  The text itself is read here too, with
 * the checks of who may have written it: config_read() would exit the
 * process on a read error (flex's fatal error handler), so config.c hands
 * libconfig a string.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conftext.h"
#include "util.h"

/* FNV-1a, 64 bits: which content a problem was logged for. */
static uint64_t
text_hash(const char *p, size_t len)
{
	uint64_t	h = 0xcbf29ce484222325ULL;

	while (len-- > 0) {
		h ^= (unsigned char)*p++;
		h *= 0x100000001b3ULL;
	}
	return h != 0 ? h : 1;
}

/* Is st the null device, as /dev/null names it? */
static int
is_null_device(const struct stat *st)
{
	struct stat	null;

	return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 &&
	    S_ISCHR(null.st_mode) && st->st_rdev == null.st_rdev;
}

/*
 * Open path without blocking (a FIFO or a device must not hang every job
 * until something writes to it; only a regular file is read).  Symbolic
 * links are followed (/etc/cbexec.conf may be one, kept elsewhere).
 * Returns 1 with *fd, or conftext_read's 0, 3 or -1.
 */
static int
conftext_open(const char *path, int required, int *fd, struct cb_err *err)
{
	struct stat	st;

	if ((*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) != -1)
		return 1;
	if (!required && (errno == ENOENT || errno == ENOTDIR))
		return 0;
	/* Behind a directory we may not search (HOME left at /root by
	 * setpriv or su): not there for us, unlike a file we may see but
	 * not read. */
	if (!required && errno == EACCES && stat(path, &st) == -1 &&
	    errno == EACCES)
		return 3;
	err_set(err, "cannot open config '%s': %s", path, strerror(errno));
	return -1;
}

int
conftext_read(const char *path, int required, char **out, size_t *outlen,
    uint64_t *hash, struct cb_err *err)
{
	struct stat	 st;
	char		*text;
	size_t		 len = 0, cap;
	ssize_t		 n;
	int		 fd, rc;

	if ((rc = conftext_open(path, required, &fd, err)) != 1)
		return rc;
	if (fstat(fd, &st) == -1) {
		err_set(err, "cannot read config '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (is_null_device(&st)) {
		close(fd);
		return 2;
	}
	if (!S_ISREG(st.st_mode)) {
		err_set(err, "cannot read config '%s': %s", path,
		    S_ISDIR(st.st_mode) ? strerror(EISDIR) :
		    S_ISFIFO(st.st_mode) ? "a FIFO, not a regular file" :
		    S_ISSOCK(st.st_mode) ? "a socket, not a regular file" :
		    "a device, not a regular file");
		close(fd);
		return -1;
	}
	if (geteuid() == 0 && (st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
		err_set(err, "config '%s' is writable by group or others; "
		    "refusing it as root", path);
		close(fd);
		return -1;
	}
	/* Its hooks run as us: only we or root may have written it. */
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		err_set(err, "config '%s' is owned by uid %u, not by %s; "
		    "refusing it", path, (unsigned)st.st_uid,
		    geteuid() == 0 ? "root" : "you or root");
		close(fd);
		return -1;
	}

	/* Sized from the file, grown if it grew, never past the limit. */
	cap = st.st_size > 0 && st.st_size < CONFTEXT_MAX ?
	    (size_t)st.st_size + 2 : 4096;
	text = xmalloc(cap);
	for (;;) {
		if (cap - len < 2) {
			cap = cap * 2 > CONFTEXT_MAX + 2 ?
			    CONFTEXT_MAX + 2 : cap * 2;
			text = xrealloc(text, cap);
		}
		n = read(fd, text + len, cap - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			err_set(err, "cannot read config '%s': %s", path,
			    strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > CONFTEXT_MAX) {
			err_set(err, "config '%s' is larger than 1 MiB", path);
			goto fail;
		}
	}
	close(fd);
	*hash = text_hash(text, len);
	if (len == 0 || text[len - 1] != '\n')
		text[len++] = '\n';
	text[len] = '\0';
	*out = text;
	*outlen = len;
	return 1;

fail:
	free(text);
	close(fd);
	return -1;
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
is_xdigit(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int
is_name_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '*';
}

static int
is_name_char(int c)
{
	return is_name_start(c) || is_digit(c) || c == '-' || c == '_';
}

/* Length of an exponent [eE][-+]?[0-9]+ at p, or 0. */
static size_t
exponent_len(const char *p)
{
	size_t	n = 1;

	if (*p != 'e' && *p != 'E')
		return 0;
	if (p[n] == '-' || p[n] == '+')
		n++;
	if (!is_digit((unsigned char)p[n]))
		return 0;
	while (is_digit((unsigned char)p[n]))
		n++;
	return n;
}

/* What libconfig 1.5 would store for a decimal or hex literal. */
static void
judge_literal(struct conf_literal *l, const char *p, size_t len, int hex,
    int suffix)
{
	unsigned long long	v = 0, lim;
	int			neg = 0, over = 0;
	size_t			i = 0;
	unsigned		d;

	if (p[0] == '-' || p[0] == '+') {
		neg = p[0] == '-';
		i = 1;
	}
	if (hex)
		i += 2;
	for (; i < len && is_xdigit((unsigned char)p[i]); i++) {
		d = is_digit((unsigned char)p[i]) ? (unsigned)(p[i] - '0') :
		    (unsigned)((p[i] | 0x20) - 'a' + 10);
		if (v > (ULLONG_MAX - d) / (hex ? 16 : 10)) {
			over = 1;
			break;
		}
		v = v * (hex ? 16 : 10) + d;
	}
	/* Without L libconfig keeps an int; with it a long long. */
	lim = suffix ? (unsigned long long)LLONG_MAX : (unsigned long long)
	    INT_MAX;
	if (over || v > lim + (neg && !hex ? 1 : 0))
		l->bad = 1;
	l->suffix_helps = l->bad && !suffix && !over &&
	    v <= (unsigned long long)LLONG_MAX + (neg ? 1 : 0);
}

static void
add_literal(struct conf_literals *ls, unsigned int line, const char *p,
    size_t len, int hex, int suffix)
{
	struct conf_literal	*l;

	if (ls->n == ls->cap) {
		ls->cap = ls->cap == 0 ? 64 : ls->cap * 2;
		ls->v = xrealloc(ls->v, ls->cap * sizeof *ls->v);
	}
	l = &ls->v[ls->n++];
	memset(l, 0, sizeof *l);
	l->line = line;
	snprintf(l->text, sizeof l->text, "%.*s", (int)len, p);
	judge_literal(l, p, len, hex, suffix);
	if (l->bad)
		ls->nbad++;
}

int
conftext_scan(const char *text, struct conf_literals *ls,
    unsigned int *include_line)
{
	const char	*p = text, *q, *d0;
	unsigned int	 line = 1;
	size_t		 nd, flen, ilen, hlen, k;
	int		 suffix, hsuffix;

	while (*p != '\0') {
		if (*p == '\n') {
			line++;
			p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p != '\0' && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			for (p += 2; *p != '\0'; p++) {
				if (p[0] == '*' && p[1] == '/') {
					p += 2;
					break;
				}
				if (*p == '\n')
					line++;
			}
		} else if (*p == '"') {
			for (p++; *p != '\0' && *p != '"'; p++) {
				if (*p == '\\' && p[1] != '\0')
					p++;
				if (*p == '\n')
					line++;
			}
			if (*p == '"')
				p++;
		} else if (*p == '@') {
			if (strncmp(p, "@include", 8) == 0) {
				*include_line = line;
				return -1;
			}
			p++;
		} else if (is_name_start((unsigned char)*p)) {
			while (is_name_char((unsigned char)*p))
				p++;
		} else if (is_digit((unsigned char)*p) || *p == '-' ||
		    *p == '+' || *p == '.') {
			/* The longest of float, integer and hex wins. */
			q = p;
			if (*q == '-' || *q == '+')
				q++;
			d0 = q;
			while (is_digit((unsigned char)*q))
				q++;
			nd = (size_t)(q - d0);
			flen = 0;
			if (*q == '.') {
				k = 1;
				while (is_digit((unsigned char)q[k]))
					k++;
				k += exponent_len(q + k);
				flen = (size_t)(q - p) + k;
			} else if (nd > 0 && (k = exponent_len(q)) > 0)
				flen = (size_t)(q - p) + k;
			ilen = 0;
			suffix = 0;
			if (nd > 0) {
				ilen = (size_t)(q - p);
				if (*q == 'L') {
					suffix = 1;
					ilen += q[1] == 'L' ? 2 : 1;
				}
			}
			hlen = 0;
			hsuffix = 0;
			if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') &&
			    is_xdigit((unsigned char)p[2])) {
				hlen = 2;
				while (is_xdigit((unsigned char)p[hlen]))
					hlen++;
				if (p[hlen] == 'L') {
					hsuffix = 1;
					hlen += p[hlen + 1] == 'L' ? 2 : 1;
				}
			}
			if (hlen > flen && hlen > ilen) {
				add_literal(ls, line, p, hlen, 1, hsuffix);
				p += hlen;
			} else if (ilen > flen) {
				add_literal(ls, line, p, ilen, 0, suffix);
				p += ilen;
			} else if (flen > 0)
				p += flen;
			else
				p++;
		} else
			p++;
	}
	return 0;
}

void
conftext_free(struct conf_literals *ls)
{
	free(ls->v);
	memset(ls, 0, sizeof *ls);
}
