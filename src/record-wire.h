/* SPDX-License-Identifier: ISC */
/*
 * record-wire.h: reading and writing a record's values (record-wire.c),
 * for the files that decode and encode records (record*.c) only; record.h
 * is the interface.  The spellings are the layout's at the top of
 * record.c: U (unsigned LEB128, shortest form), S (a zigzagged U), T (a
 * time: 0, or 1 + the zigzagged difference from a base), STR (U n, n
 * bytes of text, no NUL), F (a double's bits, u64 LE).
 */
#ifndef CBEXEC_RECORD_WIRE_H
#define CBEXEC_RECORD_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/*
 * A bounded reader: every take checks the remaining length first.  A take
 * past the end sets short_read and yields 0 (NULL for bytes), so that a
 * truncated record reads as zeros to its end and is then one error,
 * RECORD_ETRUNC; bad_flag and bad_value, set by the takes that check
 * their value, are RECORD_EVALUE once the whole record is read.
 */
struct reader {
	const uint8_t	*p;
	size_t		 left;
	int		 short_read;
	unsigned	 version;
	int		 bad_flag;	/* a flag byte other than 0 or 1 */
	const char	*bad_value;	/* the first field out of its range
					 * or not in its one spelling */
};

/* Bound on stored times and durations (ms): sums of two stay in int64. */
#define RECORD_TIME_BOUND	((int64_t)1 << 53)

const uint8_t	*take(struct reader *, size_t);
uint8_t		 take_u8(struct reader *);
uint16_t	 take_u16(struct reader *);
uint32_t	 take_u32(struct reader *);
uint64_t	 take_u64(struct reader *);
int64_t		 take_i64(struct reader *);
double		 take_f64(struct reader *);
uint8_t		 take_flag(struct reader *);
/* Copy n bytes of text at p into dst (size max): 0, or -1 when it does
 * not fit or holds a NUL; p NULL (a short read) is 0. */
int		 take_text(const uint8_t *p, size_t n, char *dst, size_t max);
/* Note what (the message's words after "record has ") as the first value
 * out of range or not in its one spelling. */
void		 take_bad(struct reader *, const char *what);
/* U; S; a U that fits 32 bits (else bad: what); an S within lo..hi. */
uint64_t	 take_uv(struct reader *);
int64_t		 take_sv(struct reader *);
uint32_t	 take_uv32(struct reader *, const char *what);
int64_t		 take_sv_in(struct reader *, int64_t lo, int64_t hi,
		    const char *what);
/* T from base, kept within +-RECORD_TIME_BOUND (else bad: what). */
int64_t		 take_time(struct reader *, int64_t base, const char *what);
/* STR into dst (size max): -1 when it does not fit or holds a NUL. */
int		 take_str(struct reader *, char *dst, size_t max);

void	put_f64(struct cb_buf *, double);
void	put_uv(struct cb_buf *, uint64_t);
void	put_sv(struct cb_buf *, int64_t);
void	put_time(struct cb_buf *, int64_t t, int64_t base);
/* STR of s, at most max - 1 bytes of it. */
void	put_str(struct cb_buf *, const char *s, size_t max);

#endif
