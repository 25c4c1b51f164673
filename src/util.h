/* SPDX-License-Identifier: ISC */
/*
 * util.h: the few helpers every module shares: an error buffer that lower
 * layers fill instead of printing, allocation that never returns NULL, and a
 * growable byte buffer with little-endian writers.
 */
#ifndef CBEXEC_UTIL_H
#define CBEXEC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define CB_ERR_MAX	512

/*
 * Filled by any function that returns -1.  The message is one line, lower
 * case, without the "cbexec: " prefix and without a trailing newline.  code
 * says what a caller may act on beyond printing msg; err_set makes it
 * CB_ERR_OTHER, and a function that sets another says so in its header.
 */
#define CB_ERR_OTHER	0
#define CB_ERR_MISSING	1	/* what was to be read does not exist */
#define CB_ERR_CONFIG	2	/* the config cannot be used (cmd.h) */
#define CB_ERR_PLANTED	3	/* a path another user made or may have
				 * made for us: no store failure (ctx.c) */

struct cb_err {
	int	code;
	char	msg[CB_ERR_MAX];
};

/* The value of a lower-case hex digit, as every hex cbexec reads is
 * written (tokens, boot ids, the config memo), or -1. */
int	 hex_digit(int c);

void	 err_set(struct cb_err *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/* Allocation: abort with a message on failure, so callers never see NULL. */
void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
char	*xstrdup(const char *);
/* The directory part of path, as dirname(3) would give it, in new memory:
 * "." when there is no slash, "/" for a file in the root. */
char	*xdirname(const char *);
char	*xstrndup(const char *, size_t);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * A growable byte buffer.  Zero-initialise it ({ 0 }); buf_free releases
 * the storage.  All writers append.
 */
struct cb_buf {
	uint8_t	*data;
	size_t	 len;
	size_t	 cap;
};

void	buf_reserve(struct cb_buf *, size_t);
void	buf_add(struct cb_buf *, const void *, size_t);
void	buf_add_u8(struct cb_buf *, uint8_t);
void	buf_add_u16(struct cb_buf *, uint16_t);
void	buf_add_u32(struct cb_buf *, uint32_t);
void	buf_add_u64(struct cb_buf *, uint64_t);
void	buf_reset(struct cb_buf *);
void	buf_free(struct cb_buf *);

/* Little-endian readers over a bounded input (record.c). */
static inline uint16_t
get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t
get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static inline uint64_t
get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

#endif
