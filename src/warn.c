/* SPDX-License-Identifier: ISC */
/*
 * warn.c: cmd_warnx and cmd_warn, the "cbexec: " line on stderr that every
 * message of cbexec is, escaped whole (warn.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "util.h"
#include "warn.h"

/*
 * "cbexec: MESSAGE[TAIL]\n", the message escaped whole (esc.h): whatever
 * it quotes (a name or reason from the state, a Redis reply, a path, an
 * argument) reaches the terminal as text, never as control.  Escaping is
 * idempotent, so what a caller escaped already is shown unchanged.
 */
void
warn_line(const char *fmt, va_list ap, const char *tail)
{
	va_list	 aq;
	char	 small[512], *msg = small, *e;
	size_t	 len;
	int	 n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0) {
		n = 0;
		small[0] = '\0';
	} else if ((size_t)n >= sizeof small) {
		msg = xmalloc((size_t)n + 1);
		(void)vsnprintf(msg, (size_t)n + 1, fmt, aq);
	}
	va_end(aq);
	len = esc_len(msg, (size_t)n) + 1;
	e = xmalloc(len);
	fprintf(stderr, "cbexec: %s%s\n", esc_mem(e, len, msg, (size_t)n),
	    tail);
	free(e);
	if (msg != small)
		free(msg);
}

void
cmd_warnx(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	warn_line(fmt, ap, "");
	va_end(ap);
}

void
cmd_warn(const char *fmt, ...)
{
	va_list	ap;
	char	tail[256];

	snprintf(tail, sizeof tail, ": %s", strerror(errno));
	va_start(ap, fmt);
	warn_line(fmt, ap, tail);
	va_end(ap);
}
