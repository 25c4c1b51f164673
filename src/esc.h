/* SPDX-License-Identifier: ISC */
/*
 * esc.h: bytes from the state shown as data, never as terminal control
 * (SPEC section 5).  Every name, reason, user, host and command name read
 * from the state goes through this one escaper wherever cbexec writes it
 * for people: the status table and detail view, --names, gc, the refusal
 * and busy lines, admin and eviction messages, transition log lines.
 * Pure: libc only, no I/O.
 *
 * What is escaped, each byte as "\xNN" (two lower-case hex digits): the C0
 * controls (0x00-0x1f), DEL (0x7f), the C1 controls U+0080-U+009F whether
 * one raw byte or UTF-8 encoded (0xc2 0x80-0x9f: both bytes), and every
 * byte that does not start a valid UTF-8 sequence (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF).  Printable ASCII and
 * valid UTF-8 above U+009F are kept as they are.  A backslash is not
 * escaped: a NAME cannot hold one, and the other texts are read, not
 * parsed.
 */
#ifndef CBEXEC_ESC_H
#define CBEXEC_ESC_H

#include <stddef.h>

/* Room for a whole NAME of the store (STORE_NAME_MAX bytes), escaped. */
#define ESC_SIZE	2048
#define ESC_SLOTS	4

/*
 * The length of the valid UTF-8 sequence at s (n bytes available, n > 0),
 * or 0 when s[0] starts none.  A lone ASCII byte is not a "sequence" here:
 * 0 for s[0] < 0x80 too.
 */
size_t		 esc_utf8_seq(const unsigned char *s, size_t n);

/*
 * The unit at s (n > 0 bytes left): returns its length, with *keep 1 when
 * it is shown as it is (a printable ASCII byte, a valid UTF-8 sequence
 * other than a C1 control), 0 when each of its bytes is shown as \xNN.
 * For writers with escapes of their own (config show's libconfig
 * strings) that must agree with this one.
 */
size_t		 esc_unit(const char *s, size_t n, int *keep);

/* How many bytes escaping len bytes of s makes (without a NUL). */
size_t		 esc_len(const char *s, size_t len);

/*
 * Escape len bytes of s (NUL bytes included) into dst, NUL-terminated,
 * and return dst.  When the result does not fit in size bytes it is cut
 * between two escaped units, never inside one, and ends with "..."
 * (size >= 4; smaller sizes get what fits, without the mark).
 */
char		*esc_mem(char *dst, size_t size, const char *s, size_t len);

/*
 * The same into one of ESC_SLOTS static buffers of ESC_SIZE bytes, used
 * in turn: the result stays valid until ESC_SLOTS more calls, so up to
 * that many may be arguments of one printf.  esc() takes a NUL-terminated
 * string (NULL gives "").
 */
const char	*esc_n(const char *s, size_t len);
const char	*esc(const char *s);

#endif
