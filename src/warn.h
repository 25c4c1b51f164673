/* SPDX-License-Identifier: ISC */
/*
 * warn.h: the one way cbexec says something on stderr: "cbexec: " +
 * message + "\n".  Below every file that prints (the commands, and what
 * they call: ctx.c, call.c, hook.c, busy.c, keys.c, status).
 */
#ifndef CBEXEC_WARN_H
#define CBEXEC_WARN_H

#include <stdarg.h>

/* "cbexec: " + message + "\n" on stderr; cmd_warn appends strerror(errno).
 * The message is escaped whole (esc.h): no byte it quotes reaches the
 * terminal as control. */
void	cmd_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	cmd_warn(const char *, ...) __attribute__((format(printf, 1, 2)));

/*
 * "cbexec: MESSAGE[TAIL]\n" from fmt and ap, the message escaped whole,
 * as cmd_warnx prints it (for a printer of its own, such as the parser's
 * usage errors).
 */
void	warn_line(const char *fmt, va_list ap, const char *tail);

#endif
