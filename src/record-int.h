/* SPDX-License-Identifier: ISC */
/*
 * record-int.h: what record-decode.c and record-decode4.c, the two halves
 * of the decoder, share: the bounded reader (defined in record-decode4.c,
 * so that the two call one way only) and the time bound.  Not for other
 * callers; record.h is the interface.
 */
#ifndef CBEXEC_RECORD_INT_H
#define CBEXEC_RECORD_INT_H

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

/* Bound on stored times and durations (ms): sums of two stay in int64. */
#define RECORD_TIME_BOUND	((int64_t)1 << 53)

/* Version 4 from the state byte on (record-decode4.c); the magic and
 * version are read.  Returns the state byte; errors are left in rd, or
 * -1 with err set for a count past its bound. */
int	record_decode4(struct reader *, struct cb_record *, uint8_t *state,
	    struct cb_err *);

#endif
