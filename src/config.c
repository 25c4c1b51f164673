/*
 * config.c: finds the libconfig file (SPEC section 4), checks all of it and
 * turns it into plain data, so that a mistake anywhere in it, even in a
 * breakers entry no NAME has matched yet, is reported on the first run with
 * its file, line and key.  Policy values are validated by policy.c, exactly
 * as on the command line.  This is the only file that includes libconfig.h.
 *
 * libconfig 1.5 needs guarding.  It stores an integer literal that does
 * not fit in an int without a word (3000000000 reads as -1294967296), so
 * the text is scanned for integer literals first and each one libconfig
 * cannot hold is tied to the setting made of it, which then reports it.
 * config_read() exits the process on a read error (flex's fatal error
 * handler), so the file is read here, at most 1 MiB, and handed over with
 * config_read_string(); a NUL byte, where libconfig would silently stop,
 * is an error, and a final newline is added because 1.5 rejects a comment
 * on a last line without one.  @include is refused: it would read a file
 * none of these checks (nor the root ownership check) sees.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#define CONFIG_MAX_SIZE		(1024 * 1024)
#define CONFIG_ETC		"/etc/cbexec.conf"
#define CONFIG_XDG		"cbexec/cbexec.conf"

/* An integer literal in the file text, in the order libconfig meets them. */
struct literal {
	unsigned int	line;
	int		bad;		/* libconfig cannot hold it */
	int		suffix_helps;	/* it would fit with an L suffix */
	char		text[32];
};

struct loader {
	const char		*path;
	struct cb_config	*cfg;
	struct cb_err		*err;
	struct literal		*lits;
	size_t			 nlits;
	size_t			 lits_cap;
	int			 nbad;
	int			 nfail;		/* problems found so far */
	struct config_msgs	*msgs;		/* every one, or NULL */
};

static const char *const sync_names[] = { "full", "meta", "none", NULL };
static const char *const store_error_names[] = { "open", "closed", NULL };
static const char *const log_names[] = { "syslog", "stderr", "none", NULL };
static const char *const fallback_names[] = { "local", "none", NULL };

static const char *const top_keys[] = {
	"state", "state_mode", "sync", "max_breakers", "on_store_error", "log",
	"on_transition", "defaults", "breakers", "redis_prefix", "store_timeout",
	"fallback", NULL
};

static void
config_defaults(struct cb_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->state_mode = 0600;
	cfg->sync = SYNC_META;
	cfg->max_breakers = 100000;
	cfg->on_store_error = STORE_ERROR_OPEN;
	cfg->log = CB_LOG_SYSLOG;
	cfg->store_timeout_ms = 250;
	cfg->fallback = FALLBACK_LOCAL;
}

static void
layer_free(struct config_layer *l)
{
	size_t	i;

	for (i = 0; i < l->nitems; i++) {
		free((char *)l->items[i].value.s);
		free(l->items[i].origin);
	}
	free(l->items);
	free(l->match);
	memset(l, 0, sizeof *l);
}

void
config_free(struct cb_config *cfg)
{
	size_t	i;

	if (cfg == NULL)
		return;
	free(cfg->path);
	free(cfg->state);
	free(cfg->redis_prefix);
	for (i = 0; i < cfg->nsearched; i++)
		free(cfg->searched[i]);
	if (cfg->on_transition != NULL) {
		for (i = 0; cfg->on_transition[i] != NULL; i++)
			free(cfg->on_transition[i]);
		free(cfg->on_transition);
	}
	layer_free(&cfg->defaults);
	for (i = 0; i < cfg->nbreakers; i++)
		layer_free(&cfg->breakers[i]);
	free(cfg->breakers);
	config_defaults(cfg);
}

/*
 * One problem, a whole "FILE:LINE: ..." line: the first goes to err (what
 * run and the others report), every one to msgs (config check).
 */
static void
note(struct loader *ld, const char *line)
{
	if (ld->nfail++ == 0)
		err_set(ld->err, "%s", line);
	if (ld->msgs != NULL) {
		ld->msgs->v = xrealloc(ld->msgs->v, (ld->msgs->n + 1) *
		    sizeof *ld->msgs->v);
		ld->msgs->v[ld->msgs->n++] = xstrdup(line);
	}
}

/* "FILE:LINE: " and a message about setting s.  Always returns -1. */
static int
fail(struct loader *ld, const config_setting_t *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct loader *ld, const config_setting_t *s, const char *fmt, ...)
{
	char	line[CB_ERR_MAX];
	va_list	ap;
	int	n;

	n = snprintf(line, sizeof line, "%s:%u: ", ld->path,
	    config_setting_source_line(s));
	if (n < 0 || (size_t)n >= sizeof line)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	note(ld, line);
	return -1;
}

/* ---- reading the file -------------------------------------------------- */

/*
 * Read path into a NUL-terminated buffer ending in a newline (libconfig 1.5
 * rejects a comment on a last line without one).  Returns 1, 0 when an
 * optional file does not exist, or -1.
 */
static int
read_text(const char *path, int required, char **out, size_t *outlen,
    struct cb_err *err)
{
	struct stat	 st;
	char		*text;
	size_t		 len = 0, cap;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		if (!required && (errno == ENOENT || errno == ENOTDIR))
			return 0;
		err_set(err, "cannot open config '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) == -1) {
		err_set(err, "cannot read config '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		err_set(err, "cannot read config '%s': %s", path,
		    strerror(EISDIR));
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
	cap = st.st_size > 0 && st.st_size < CONFIG_MAX_SIZE ?
	    (size_t)st.st_size + 2 : 4096;
	text = xmalloc(cap);
	for (;;) {
		if (cap - len < 2) {
			cap = cap * 2 > CONFIG_MAX_SIZE + 2 ?
			    CONFIG_MAX_SIZE + 2 : cap * 2;
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
		if (len > CONFIG_MAX_SIZE) {
			err_set(err, "config '%s' is larger than 1 MiB", path);
			goto fail;
		}
	}
	close(fd);
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

/* ---- the integer literal scan ------------------------------------------ */

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
judge_literal(struct literal *l, const char *p, size_t len, int hex,
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
add_literal(struct loader *ld, unsigned int line, const char *p, size_t len,
    int hex, int suffix)
{
	struct literal	*l;

	if (ld->nlits == ld->lits_cap) {
		ld->lits_cap = ld->lits_cap == 0 ? 64 : ld->lits_cap * 2;
		ld->lits = xrealloc(ld->lits, ld->lits_cap * sizeof *ld->lits);
	}
	l = &ld->lits[ld->nlits++];
	memset(l, 0, sizeof *l);
	l->line = line;
	snprintf(l->text, sizeof l->text, "%.*s", (int)len, p);
	judge_literal(l, p, len, hex, suffix);
	if (l->bad)
		ld->nbad++;
}

/*
 * Walk the text as libconfig 1.5's scanner does (strings, comments, names,
 * numbers) and record every integer literal.  Refuses @include, which would
 * read a file that none of the checks here sees.
 */
static int
scan_text(struct loader *ld, const char *text)
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
				err_set(ld->err, "%s:%u: @include is not "
				    "supported", ld->path, line);
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
				add_literal(ld, line, p, hlen, 1, hsuffix);
				p += hlen;
			} else if (ilen > flen) {
				add_literal(ld, line, p, ilen, 0, suffix);
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

static void
collect_ints(config_setting_t *s, config_setting_t ***v, size_t *n,
    size_t *cap)
{
	int	i, len;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		if (*n == *cap) {
			*cap = *cap == 0 ? 64 : *cap * 2;
			*v = xrealloc(*v, *cap * sizeof **v);
		}
		(*v)[(*n)++] = s;
		break;
	case CONFIG_TYPE_GROUP:
	case CONFIG_TYPE_LIST:
	case CONFIG_TYPE_ARRAY:
		len = config_setting_length(s);
		for (i = 0; i < len; i++)
			collect_ints(config_setting_get_elem(s,
			    (unsigned int)i), v, n, cap);
		break;
	}
}

/*
 * Tie each literal libconfig could not hold to its setting (both lists are
 * in document order), so that reading the setting reports it.
 */
static int
mark_bad_ints(struct loader *ld, config_t *lc)
{
	config_setting_t	**v = NULL;
	size_t			  n = 0, cap = 0, i;

	if (ld->nbad == 0)
		return 0;
	collect_ints(config_root_setting(lc), &v, &n, &cap);
	if (n != ld->nlits) {
		/* Cannot happen; still never use a wrapped value. */
		free(v);
		for (i = 0; i < ld->nlits && !ld->lits[i].bad; i++)
			;
		err_set(ld->err, "%s:%u: integer %s is out of range",
		    ld->path, ld->lits[i].line, ld->lits[i].text);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (ld->lits[i].bad)
			config_setting_set_hook(v[i], &ld->lits[i]);
	}
	free(v);
	return 0;
}

/* Fails when s holds an integer libconfig could not read. */
static int
check_int(struct loader *ld, const config_setting_t *s, const char *key)
{
	const struct literal	*l;

	if ((config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64) ||
	    (l = config_setting_get_hook(s)) == NULL)
		return 0;
	if (l->suffix_helps)
		return fail(ld, s, "%s: integer %s is too %s for libconfig; "
		    "write %sL", key, l->text, l->text[0] == '-' ? "small" :
		    "large", l->text);
	return fail(ld, s, "%s: integer %s is out of range", key, l->text);
}

/* ---- values ------------------------------------------------------------ */

static const char *
type_name(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_GROUP:
		return "a group";
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		return "an integer";
	case CONFIG_TYPE_FLOAT:
		return "a float";
	case CONFIG_TYPE_STRING:
		return "a string";
	case CONFIG_TYPE_BOOL:
		return "a boolean";
	case CONFIG_TYPE_ARRAY:
		return "an array";
	case CONFIG_TYPE_LIST:
		return "a list";
	default:
		return "nothing";
	}
}

/* Where an unknown key was found: which keys could have been meant. */
enum hint_scope {
	HINT_TOP,		/* the top level */
	HINT_DEFAULTS,		/* `defaults` */
	HINT_ENTRY,		/* a `breakers` entry: match too */
	HINT_TRIP		/* a trip group: the trip.* keys, unprefixed */
};

#define HINT_MAX_LEN	64

/*
 * Damerau-Levenshtein distance (optimal string alignment) between a and b,
 * '-' taken for '_'; SIZE_MAX for names too long to bother with.
 */
static size_t
key_distance(const char *a, const char *b)
{
	unsigned short	d[HINT_MAX_LEN + 1][HINT_MAX_LEN + 1];
	size_t		la = strlen(a), lb = strlen(b), i, j, v;
	char		ca, cb;

	if (la > HINT_MAX_LEN || lb > HINT_MAX_LEN)
		return SIZE_MAX;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned short)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned short)j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			ca = a[i - 1] == '-' ? '_' : a[i - 1];
			cb = b[j - 1] == '-' ? '_' : b[j - 1];
			v = d[i - 1][j - 1] + (ca != cb);
			if (d[i - 1][j] + 1U < v)
				v = d[i - 1][j] + 1U;
			if (d[i][j - 1] + 1U < v)
				v = d[i][j - 1] + 1U;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1U < v)
				v = d[i - 2][j - 2] + 1U;
			d[i][j] = (unsigned short)v;
		}
	}
	return d[la][lb];
}

static void
hint_try(const char *name, const char *cand, const char **best,
    size_t *bestd)
{
	size_t	d;

	if ((d = key_distance(name, cand)) < *bestd) {
		*bestd = d;
		*best = cand;
	}
}

/*
 * " (did you mean KEY?)" for the known key nearest to an unknown one
 * (open_timout -> open_timeout, breaker -> breakers, open-timeout ->
 * open_timeout), when one is within two edits and the name is not so
 * short that anything would be; else "".
 */
static const char *
key_hint(const char *name, enum hint_scope scope, char *buf, size_t len)
{
	const char	*best = NULL, *k;
	size_t		 bestd = SIZE_MAX, i;
	int		 trip;

	if (scope == HINT_TOP) {
		for (i = 0; top_keys[i] != NULL; i++)
			hint_try(name, top_keys[i], &best, &bestd);
	} else {
		for (i = 0; i < PK_COUNT; i++) {
			k = policy_key_name((enum policy_key)i);
			trip = strncmp(k, "trip.", 5) == 0;
			if (scope == HINT_TRIP && trip)
				hint_try(name, k + 5, &best, &bestd);
			else if (scope != HINT_TRIP && !trip)
				hint_try(name, k, &best, &bestd);
		}
		if (scope != HINT_TRIP)
			hint_try(name, "trip", &best, &bestd);
		if (scope == HINT_ENTRY)
			hint_try(name, "match", &best, &bestd);
	}
	if (best == NULL || bestd > 2 ||
	    2 * bestd > strlen(name))
		return "";
	snprintf(buf, len, " (did you mean %s?)", best);
	return buf;
}

static int
get_string(struct loader *ld, const config_setting_t *s, const char *key,
    const char **out)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return fail(ld, s, "%s: must be a string, not %s", key,
		    type_name(s));
	*out = config_setting_get_string(s);
	if (**out == '\0')
		return fail(ld, s, "%s: must not be empty", key);
	return 0;
}

static int
get_enum(struct loader *ld, const config_setting_t *s, const char *key,
    const char *const *names, int *out)
{
	char		 list[128];
	const char	*v;
	size_t		 off = 0;
	int		 i;

	list[0] = '\0';
	for (i = 0; names[i] != NULL; i++)
		off += (size_t)snprintf(list + off, sizeof list - off, "%s%s",
		    i == 0 ? "" : ", ", names[i]);
	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return fail(ld, s, "%s: must be one of %s, not %s", key, list,
		    type_name(s));
	v = config_setting_get_string(s);
	for (i = 0; names[i] != NULL; i++) {
		if (strcmp(names[i], v) == 0) {
			*out = i;
			return 0;
		}
	}
	return fail(ld, s, "%s: must be one of %s, not '%.80s'", key, list, v);
}

static int
get_state_mode(struct loader *ld, const config_setting_t *s, mode_t *out)
{
	const char	*v, *p;
	unsigned	 mode = 0;

	if (config_setting_type(s) != CONFIG_TYPE_STRING)
		return fail(ld, s, "state_mode: must be a string such as "
		    "\"0660\" (libconfig has no octal numbers), not %s",
		    type_name(s));
	v = config_setting_get_string(s);
	for (p = v; *p >= '0' && *p <= '7' && p - v < 4; p++)
		mode = mode * 8 + (unsigned)(*p - '0');
	if (p == v || *p != '\0' || mode > 0777 || (mode & 0600) != 0600)
		return fail(ld, s, "state_mode: must be an octal mode from "
		    "\"0600\" to \"0777\" that lets the owner read and write, "
		    "not '%.80s'", v);
	*out = (mode_t)mode;
	return 0;
}

static int
get_max_breakers(struct loader *ld, const config_setting_t *s,
    long long *out)
{
	long long	v;

	if (config_setting_type(s) != CONFIG_TYPE_INT &&
	    config_setting_type(s) != CONFIG_TYPE_INT64)
		return fail(ld, s, "max_breakers: must be an integer, not %s",
		    type_name(s));
	if (check_int(ld, s, "max_breakers") != 0)
		return -1;
	v = config_setting_get_int64(s);
	if (v < 1)
		return fail(ld, s, "max_breakers: must be at least 1, not %lld",
		    v);
	*out = v;
	return 0;
}

/* Redis key prefix: 1 to 64 printable bytes, no space. */
static int
get_redis_prefix(struct loader *ld, const config_setting_t *s, char **out)
{
	const char	*v, *p;

	if (get_string(ld, s, "redis_prefix", &v) != 0)
		return -1;
	for (p = v; *p > 0x20 && *p < 0x7f; p++)
		;
	if (*p != '\0' || p - v > 64)
		return fail(ld, s, "redis_prefix: must be 1 to 64 printable "
		    "bytes without spaces, not '%.80s'", v);
	free(*out);
	*out = xstrdup(v);
	return 0;
}

/* store_timeout: a DURATION from 1ms to 60s (a bare integer: seconds). */
static int
get_store_timeout(struct loader *ld, const config_setting_t *s,
    int64_t *out)
{
	struct cb_err	perr;
	int64_t		ms;
	long long	v;

	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		if (check_int(ld, s, "store_timeout") != 0)
			return -1;
		v = config_setting_get_int64(s);
		if (v < 0 || v > 60)
			return fail(ld, s, "store_timeout: must be a duration "
			    "from 1ms to 60s, not %lld", v);
		ms = (int64_t)v * 1000;
		break;
	case CONFIG_TYPE_STRING:
		if (parse_duration(config_setting_get_string(s), &ms,
		    &perr) != 0)
			return fail(ld, s, "store_timeout: %s", perr.msg);
		break;
	default:
		return fail(ld, s, "store_timeout: must be a duration such "
		    "as \"250ms\", not %s", type_name(s));
	}
	if (ms < 1 || ms > 60000)
		return fail(ld, s, "store_timeout: must be a duration from 1ms "
		    "to 60s, not '%.80s'", config_setting_type(s) ==
		    CONFIG_TYPE_STRING ? config_setting_get_string(s) : "0");
	*out = ms;
	return 0;
}

static int
get_argv(struct loader *ld, const config_setting_t *s, char ***out)
{
	config_setting_t	*e;
	char			**argv;
	int			  i, n;

	if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
	    config_setting_type(s) != CONFIG_TYPE_LIST)
		return fail(ld, s, "on_transition: must be a list of strings "
		    "such as [ \"/usr/local/bin/cb-alert\" ], not %s",
		    type_name(s));
	if ((n = config_setting_length(s)) == 0)
		return fail(ld, s, "on_transition: must name a command");
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(s, (unsigned int)i);
		if (config_setting_type(e) != CONFIG_TYPE_STRING)
			return fail(ld, e, "on_transition: element %d must be "
			    "a string, not %s", i + 1, type_name(e));
	}
	if (*config_setting_get_string_elem(s, 0) == '\0')
		return fail(ld, s, "on_transition: the command must not be "
		    "empty");
	argv = xcalloc((size_t)n + 1, sizeof *argv);
	for (i = 0; i < n; i++)
		argv[i] = xstrdup(config_setting_get_string_elem(s, i));
	*out = argv;
	return 0;
}

/* ---- policy layers ----------------------------------------------------- */

/* Add `key = value` to layer l after policy_set has accepted it. */
static int
add_item(struct loader *ld, struct config_layer *l, enum policy_key key,
    const config_setting_t *s)
{
	struct policy_builder	 scratch;
	struct policy_value	 v;
	struct config_item	*it;
	struct cb_err		 perr;
	const char		*name = policy_key_name(key);

	memset(&v, 0, sizeof v);
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
	case CONFIG_TYPE_INT64:
		if (check_int(ld, s, name) != 0)
			return -1;
		v.type = PV_INT;
		v.i = config_setting_get_int64(s);
		break;
	case CONFIG_TYPE_FLOAT:
		v.type = PV_FLOAT;
		v.f = config_setting_get_float(s);
		break;
	case CONFIG_TYPE_STRING:
		v.type = PV_STRING;
		v.s = config_setting_get_string(s);
		break;
	case CONFIG_TYPE_BOOL:
		v.type = PV_BOOL;
		v.i = config_setting_get_bool(s);
		break;
	default:
		return fail(ld, s, "%s: must be a single value, not %s", name,
		    type_name(s));
	}

	/* Each value is checked on its own line; combinations later. */
	policy_init(&scratch);
	if (policy_set(&scratch, key, &v, LAYER_DEFAULTS, "", &perr) != 0)
		return fail(ld, s, "%s", perr.msg);

	l->items = xrealloc(l->items, (l->nitems + 1) * sizeof *l->items);
	it = &l->items[l->nitems++];
	it->key = key;
	it->value = v;
	if (v.type == PV_STRING)
		it->value.s = xstrdup(v.s);
	xasprintf(&it->origin, "%s:%u", ld->path,
	    config_setting_source_line(s));
	return 0;
}

static int
load_trip(struct loader *ld, struct config_layer *l,
    const config_setting_t *g)
{
	config_setting_t	*s;
	char			 full[128], hint[160];
	int			 i, n, key, bad = 0;

	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return fail(ld, g, "trip: must be a group such as { policy = "
		    "\"rate\"; }, not %s", type_name(g));
	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(g, (unsigned int)i);
		snprintf(full, sizeof full, "trip.%s", config_setting_name(s));
		if ((key = policy_key_lookup(full)) < 0)
			bad = fail(ld, s, "%s: unknown key%s", full,
			    key_hint(config_setting_name(s), HINT_TRIP, hint,
			    sizeof hint));
		else if (add_item(ld, l, (enum policy_key)key, s) != 0)
			bad = -1;
	}
	return bad;
}

/* A `defaults` group or a `breakers` entry (entry != 0). */
static int
load_layer(struct loader *ld, struct config_layer *l,
    const config_setting_t *g, int entry)
{
	config_setting_t	*s;
	const char		*name, *match;
	char			 hint[160];
	int			 i, n, key, bad = 0;

	n = config_setting_length(g);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(g, (unsigned int)i);
		name = config_setting_name(s);
		if (entry && strcmp(name, "match") == 0) {
			if (get_string(ld, s, "match", &match) != 0)
				bad = -1;
			else
				l->match = xstrdup(match);
		} else if (strcmp(name, "trip") == 0) {
			if (load_trip(ld, l, s) != 0)
				bad = -1;
		} else if ((key = policy_key_lookup(name)) >= 0) {
			if (add_item(ld, l, (enum policy_key)key, s) != 0)
				bad = -1;
		} else if (strncmp(name, "trip_", 5) == 0) {
			snprintf(hint, sizeof hint, "trip.%s", name + 5);
			if (policy_key_lookup(hint) >= 0)
				bad = fail(ld, s, "%s: unknown key (write "
				    "trip = { %s = ...; })", name, name + 5);
			else
				bad = fail(ld, s, "%s: unknown key", name);
		} else
			bad = fail(ld, s, "%s: unknown key%s", name,
			    key_hint(name, entry ? HINT_ENTRY : HINT_DEFAULTS,
			    hint, sizeof hint));
	}
	return bad;
}

static int
apply_layer(const struct config_layer *l, enum policy_layer layer,
    struct policy_builder *b, struct cb_err *err)
{
	struct cb_err	perr;
	size_t		i;

	for (i = 0; i < l->nitems; i++) {
		if (policy_set(b, l->items[i].key, &l->items[i].value, layer,
		    l->items[i].origin, &perr) != 0) {
			err_set(err, "%s: %s", l->items[i].origin, perr.msg);
			return -1;
		}
	}
	return 0;
}

static int
load_breakers(struct loader *ld, const config_setting_t *list)
{
	struct cb_config	*cfg = ld->cfg;
	config_setting_t	*e;
	int			 i, n, bad = 0;

	if (config_setting_type(list) != CONFIG_TYPE_LIST)
		return fail(ld, list, "breakers: must be a list of groups such "
		    "as ( { match = \"api-*\"; }, ... ), not %s",
		    type_name(list));
	n = config_setting_length(list);
	cfg->breakers = xcalloc((size_t)n, sizeof *cfg->breakers);
	for (i = 0; i < n; i++) {
		e = config_setting_get_elem(list, (unsigned int)i);
		cfg->nbreakers++;
		if (config_setting_type(e) != CONFIG_TYPE_GROUP) {
			bad = fail(ld, e, "breakers: entry %d must be a "
			    "group, not %s", i + 1, type_name(e));
			continue;
		}
		cfg->breakers[i].line = config_setting_source_line(e);
		if (load_layer(ld, &cfg->breakers[i], e, 1) != 0)
			bad = -1;
		if (cfg->breakers[i].match == NULL &&
		    config_setting_get_member(e, "match") == NULL)
			bad = fail(ld, e, "breakers: entry %d has no match",
			    i + 1);
	}
	return bad;
}

/*
 * Every policy the file can produce must finish: `defaults` alone (a NAME
 * no entry matches) and each entry laid over it.
 */
static int
check_layers(struct loader *ld, config_t *lc)
{
	struct cb_config	*cfg = ld->cfg;
	struct policy_builder	 b;
	struct cb_err		 perr;
	config_setting_t	*s;
	size_t			 i;
	int			 bad = 0;

	if (cfg->defaults.nitems > 0) {
		s = config_lookup(lc, "defaults");
		policy_init(&b);
		if (apply_layer(&cfg->defaults, LAYER_DEFAULTS, &b,
		    &perr) != 0) {
			note(ld, perr.msg);
			return -1;
		}
		/* Every entry is laid over defaults: report it once. */
		if (policy_finish(&b, NULL, &perr) != 0)
			return fail(ld, s, "defaults: %s", perr.msg);
	}
	s = config_lookup(lc, "breakers");
	for (i = 0; i < cfg->nbreakers; i++) {
		policy_init(&b);
		if (apply_layer(&cfg->defaults, LAYER_DEFAULTS, &b,
		    &perr) != 0 ||
		    apply_layer(&cfg->breakers[i], LAYER_ENTRY, &b,
		    &perr) != 0) {
			note(ld, perr.msg);
			bad = -1;
		} else if (policy_finish(&b, NULL, &perr) != 0)
			bad = fail(ld, config_setting_get_elem(s,
			    (unsigned int)i), "breakers entry '%.80s': %s",
			    cfg->breakers[i].match != NULL ?
			    cfg->breakers[i].match : "?", perr.msg);
	}
	return bad;
}

static int
load_top(struct loader *ld, config_t *lc)
{
	struct cb_config	*cfg = ld->cfg;
	config_setting_t	*root = config_root_setting(lc), *s;
	const char		*name, *str;
	char			 hint[160];
	int			 i, n, e, bad = 0;

	n = config_setting_length(root);
	for (i = 0; i < n; i++) {
		s = config_setting_get_elem(root, (unsigned int)i);
		name = config_setting_name(s);
		for (e = 0; e < CONFIG_TOP_MAX && top_keys[e] != NULL; e++)
			if (strcmp(name, top_keys[e]) == 0)
				cfg->top_line[e] =
				    config_setting_source_line(s);
		if (strcmp(name, "state") == 0) {
			if (get_string(ld, s, name, &str) != 0)
				bad = -1;
			else
				cfg->state = xstrdup(str);
		} else if (strcmp(name, "state_mode") == 0) {
			if (get_state_mode(ld, s, &cfg->state_mode) != 0)
				bad = -1;
			else
				cfg->state_mode_set = 1;
		} else if (strcmp(name, "sync") == 0) {
			if (get_enum(ld, s, name, sync_names, &e) != 0)
				bad = -1;
			else
				cfg->sync = (enum cb_sync)e;
		} else if (strcmp(name, "max_breakers") == 0) {
			if (get_max_breakers(ld, s, &cfg->max_breakers) != 0)
				bad = -1;
		} else if (strcmp(name, "on_store_error") == 0) {
			if (get_enum(ld, s, name, store_error_names, &e) != 0)
				bad = -1;
			else
				cfg->on_store_error = (enum cb_store_error)e;
		} else if (strcmp(name, "log") == 0) {
			if (get_enum(ld, s, name, log_names, &e) != 0)
				bad = -1;
			else
				cfg->log = (enum cb_log)e;
		} else if (strcmp(name, "redis_prefix") == 0) {
			if (get_redis_prefix(ld, s, &cfg->redis_prefix) != 0)
				bad = -1;
		} else if (strcmp(name, "store_timeout") == 0) {
			if (get_store_timeout(ld, s,
			    &cfg->store_timeout_ms) != 0)
				bad = -1;
		} else if (strcmp(name, "fallback") == 0) {
			if (get_enum(ld, s, name, fallback_names, &e) != 0)
				bad = -1;
			else
				cfg->fallback = (enum cb_fallback)e;
		} else if (strcmp(name, "on_transition") == 0) {
			if (get_argv(ld, s, &cfg->on_transition) != 0)
				bad = -1;
		} else if (strcmp(name, "defaults") == 0) {
			if (config_setting_type(s) != CONFIG_TYPE_GROUP)
				bad = fail(ld, s, "defaults: must be a group "
				    "such as { open_timeout = \"30s\"; }, not "
				    "%s", type_name(s));
			else if (load_layer(ld, &cfg->defaults, s, 0) != 0)
				bad = -1;
			cfg->defaults.line = config_setting_source_line(s);
		} else if (strcmp(name, "breakers") == 0) {
			if (load_breakers(ld, s) != 0)
				bad = -1;
		} else if (policy_key_lookup(name) >= 0 ||
		    strcmp(name, "trip") == 0)
			bad = fail(ld, s, "%s: unknown key (policy keys go in "
			    "defaults or a breakers entry)", name);
		else
			bad = fail(ld, s, "%s: unknown key%s", name,
			    key_hint(name, HINT_TOP, hint, sizeof hint));
	}
	if (check_layers(ld, lc) != 0)
		bad = -1;
	return bad;
}

/* Parse and check text; fills ld->cfg.  Returns 0 or -1. */
static int
load_text(struct loader *ld, const char *text)
{
	config_t	lc;
	int		rc = -1;

	if (scan_text(ld, text) != 0)
		return -1;
	config_init(&lc);
	if (config_read_string(&lc, text) != CONFIG_TRUE) {
		err_set(ld->err, "%s:%d: %s", ld->path, config_error_line(&lc),
		    config_error_text(&lc) != NULL ? config_error_text(&lc) :
		    "syntax error");
		goto out;
	}
	if (mark_bad_ints(ld, &lc) != 0 || load_top(ld, &lc) != 0)
		goto out;
	rc = 0;
out:
	config_destroy(&lc);
	return rc;
}

/* Load path if it exists (or must); returns 1, 0 when absent, or -1. */
static int
load_path(const char *path, int required, struct cb_config *cfg,
    struct config_msgs *msgs, struct cb_err *err)
{
	struct loader	 ld;
	char		*text = NULL, *nul, *p;
	size_t		 len;
	unsigned int	 line = 1;
	int		 rc;

	if ((rc = read_text(path, required, &text, &len, err)) != 1)
		return rc;
	/* libconfig would stop reading at a NUL and ignore the rest. */
	if ((nul = memchr(text, '\0', len)) != NULL) {
		for (p = text; p < nul; p++)
			line += *p == '\n';
		err_set(err, "%s:%u: syntax error: NUL byte", path, line);
		free(text);
		return -1;
	}
	memset(&ld, 0, sizeof ld);
	ld.path = path;
	ld.cfg = cfg;
	ld.err = err;
	ld.msgs = msgs;
	rc = load_text(&ld, text);
	free(ld.lits);
	free(text);
	if (rc != 0) {
		config_free(cfg);
		return -1;
	}
	cfg->path = xstrdup(path);
	return 1;
}

static int
load_any(const char *path, struct cb_config *cfg, struct config_msgs *msgs,
    struct cb_err *err)
{
	const char	*env, *home;
	char		*xdg;
	int		 rc;

	config_defaults(cfg);
	if (path != NULL) {
		cfg->source = CONFIG_OPTION;
		return load_path(path, 1, cfg, msgs, err) == 1 ? 0 : -1;
	}
	if ((env = getenv("CBEXEC_CONFIG")) != NULL && *env != '\0') {
		cfg->source = CONFIG_ENV;
		return load_path(env, 1, cfg, msgs, err) == 1 ? 0 : -1;
	}

	/* XDG: a relative $XDG_CONFIG_HOME is to be ignored. */
	xdg = NULL;
	if ((env = getenv("XDG_CONFIG_HOME")) != NULL && *env == '/')
		xasprintf(&xdg, "%s/%s", env, CONFIG_XDG);
	else if ((home = getenv("HOME")) != NULL && *home != '\0')
		xasprintf(&xdg, "%s/.config/%s", home, CONFIG_XDG);
	if (xdg != NULL) {
		cfg->searched[cfg->nsearched++] = xdg;
		if ((rc = load_path(xdg, 0, cfg, msgs, err)) != 0)
			return rc == 1 ? 0 : -1;
	}
	cfg->searched[cfg->nsearched++] = xstrdup(CONFIG_ETC);
	return load_path(CONFIG_ETC, 0, cfg, msgs, err) == -1 ? -1 : 0;
}

int
config_load(const char *path, struct cb_config *cfg, struct cb_err *err)
{
	return load_any(path, cfg, NULL, err);
}

int
config_check(const char *path, struct cb_config *cfg,
    struct config_msgs *msgs, struct cb_err *err)
{
	memset(msgs, 0, sizeof *msgs);
	return load_any(path, cfg, msgs, err);
}

void
config_msgs_free(struct config_msgs *msgs)
{
	size_t	i;

	for (i = 0; i < msgs->n; i++)
		free(msgs->v[i]);
	free(msgs->v);
	memset(msgs, 0, sizeof *msgs);
}

unsigned int
config_line(const struct cb_config *cfg, const char *key)
{
	size_t	i;

	for (i = 0; i < CONFIG_TOP_MAX && top_keys[i] != NULL; i++)
		if (strcmp(key, top_keys[i]) == 0)
			return cfg->top_line[i];
	return 0;
}

size_t
config_entry(const struct cb_config *cfg, const char *name)
{
	size_t	i;

	for (i = 0; i < cfg->nbreakers; i++)
		if (fnmatch(cfg->breakers[i].match, name, 0) == 0)
			break;
	return i;
}

int
config_policy(const struct cb_config *cfg, const char *name,
    struct policy_builder *b, struct cb_err *err)
{
	size_t	i;

	policy_init(b);
	if (cfg == NULL)
		return 0;
	if (apply_layer(&cfg->defaults, LAYER_DEFAULTS, b, err) != 0)
		return -1;
	if ((i = config_entry(cfg, name)) < cfg->nbreakers)
		return apply_layer(&cfg->breakers[i], LAYER_ENTRY, b, err);
	return 0;
}

const char *
config_lib_version(void)
{
	static char	buf[32];

	snprintf(buf, sizeof buf, "libconfig %d.%d.%d", LIBCONFIG_VER_MAJOR,
	    LIBCONFIG_VER_MINOR, LIBCONFIG_VER_REVISION);
	return buf;
}
