/* SPDX-License-Identifier: ISC */
/*
 * record-int.h: what record-decode.c and record-decode4.c, the two halves
 * of the decoder, share (the bounded reader is record-wire.h's).  Not for
 * other callers; record.h is the interface.
 */
#ifndef CBEXEC_RECORD_INT_H
#define CBEXEC_RECORD_INT_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"
#include "record-wire.h"

/* Version 4 from the state byte on (record-decode4.c); the magic and
 * version are read.  Returns the state byte; errors are left in rd, or
 * -1 with err set for a count past its bound. */
int	record_decode4(struct reader *, struct cb_record *, uint8_t *state,
	    struct cb_err *);

#endif
