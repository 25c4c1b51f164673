/* SPDX-License-Identifier: ISC */
/*
 * util.c: error buffer, allocation wrappers and the byte buffer.  Nothing
 * here does I/O except the message printed before aborting when memory runs
 * out, where there is nothing better to do.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void
err_set(struct cb_err *err, const char *fmt, ...)
{
	va_list	ap;

	if (err == NULL)
		return;
	err->code = CB_ERR_OTHER;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
}

static void
oom(void)
{
	fputs("cbexec: out of memory\n", stderr);
	abort();
}

void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = malloc(n == 0 ? 1 : n)) == NULL)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if ((p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size)) == NULL)
		oom();
	return p;
}

void *
xrealloc(void *old, size_t n)
{
	void	*p;

	if ((p = realloc(old, n == 0 ? 1 : n)) == NULL)
		oom();
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xdirname(const char *path)
{
	char	*dir, *p;

	dir = xstrdup(path);
	if ((p = strrchr(dir, '/')) == NULL) {
		free(dir);
		return xstrdup(".");
	}
	if (p == dir)
		p[1] = '\0';
	else
		*p = '\0';
	return dir;
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p;
	size_t	 len;

	len = strnlen(s, n);
	p = xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	return n;
}

void
buf_reserve(struct cb_buf *b, size_t more)
{
	size_t	cap;

	if (b->cap - b->len >= more)
		return;
	cap = b->cap == 0 ? 256 : b->cap;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2)
			oom();
		cap *= 2;
	}
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void
buf_add(struct cb_buf *b, const void *p, size_t n)
{
	if (n == 0)
		return;
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void
buf_add_u8(struct cb_buf *b, uint8_t v)
{
	buf_add(b, &v, 1);
}

void
buf_add_u16(struct cb_buf *b, uint16_t v)
{
	uint8_t	p[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	buf_add(b, p, sizeof p);
}

void
buf_add_u32(struct cb_buf *b, uint32_t v)
{
	uint8_t	p[4];
	int	i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	buf_add(b, p, sizeof p);
}

void
buf_add_u64(struct cb_buf *b, uint64_t v)
{
	buf_add_u32(b, (uint32_t)v);
	buf_add_u32(b, (uint32_t)(v >> 32));
}

void
buf_reset(struct cb_buf *b)
{
	b->len = 0;
}

void
buf_free(struct cb_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}
