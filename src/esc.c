/* SPDX-License-Identifier: ISC */
/*
 * esc.c: the one escaper of text read from the state (esc.h has the
 * rules): a byte at a time, valid UTF-8 sequences whole, so a name, a
 * reason or a host name can never move the cursor, retitle a window or
 * start a C1 control sequence on the terminal that shows it.
 */
#include <string.h>

#include "esc.h"

static const char	hexdig[] = "0123456789abcdef";

size_t
esc_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char	c = s[0], lo = 0x80, hi = 0xbf;
	size_t		len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

size_t
esc_unit(const char *s, size_t n, int *keep)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 k;

	*keep = 0;
	if (u[0] >= 0x20 && u[0] < 0x7f) {
		*keep = 1;
		return 1;
	}
	if (u[0] < 0x80 || (k = esc_utf8_seq(u, n)) == 0)
		return 1;
	if (k == 2 && u[0] == 0xc2 && u[1] < 0xa0)
		return 2;		/* a C1 control, UTF-8 encoded */
	*keep = 1;
	return k;
}

size_t
esc_len(const char *s, size_t len)
{
	size_t	i = 0, k, n = 0;
	int	keep;

	while (i < len) {
		k = esc_unit(s + i, len - i, &keep);
		n += keep ? k : 4 * k;
		i += k;
	}
	return n;
}

char *
esc_mem(char *dst, size_t size, const char *s, size_t len)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 i = 0, j, k, w, n = 0, room;
	int			 keep;

	if (size == 0)
		return dst;
	room = size - 1;
	if (esc_len(s, len) > room && size >= 4)
		room -= 3;		/* for the "..." */
	while (i < len) {
		k = esc_unit(s + i, len - i, &keep);
		w = keep ? k : 4 * k;
		if (w > room - n)
			break;
		if (keep)
			memcpy(dst + n, s + i, k);
		else
			for (j = 0; j < k; j++) {
				dst[n + 4 * j] = '\\';
				dst[n + 4 * j + 1] = 'x';
				dst[n + 4 * j + 2] = hexdig[u[i + j] >> 4];
				dst[n + 4 * j + 3] = hexdig[u[i + j] & 0xf];
			}
		n += w;
		i += k;
	}
	if (i < len && size >= 4) {
		memcpy(dst + n, "...", 3);
		n += 3;
	}
	dst[n] = '\0';
	return dst;
}

const char *
esc_n(const char *s, size_t len)
{
	static char	buf[ESC_SLOTS][ESC_SIZE];
	static int	next;
	char		*b;

	b = buf[next];
	next = (next + 1) % ESC_SLOTS;
	return esc_mem(b, ESC_SIZE, s, len);
}

const char *
esc(const char *s)
{
	return s == NULL ? esc_n("", 0) : esc_n(s, strlen(s));
}
