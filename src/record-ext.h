/* SPDX-License-Identifier: ISC */
/*
 * record-ext.h: version 5's tagged fields (record.h, enum record_tag),
 * record-ext.c's.  For record.c and record-decode.c only.
 */
#ifndef CBEXEC_RECORD_EXT_H
#define CBEXEC_RECORD_EXT_H

#include "record.h"
#include "record-wire.h"

/* Append the tagged fields r holds (U n, then each tag, length, bytes). */
void	record_ext_encode(const struct cb_record *, struct cb_buf *);

/*
 * Read the tagged fields from rd, which holds exactly the rest of the
 * record, into r (whose version 4 fields are read).  RECORD_OK (a short
 * read and values out of range are left in rd, as every take leaves
 * them), RECORD_ENEWER for a tag this cbexec does not know, RECORD_EVALUE
 * for tags out of order or a field not read to its end; err set for the
 * last two.
 */
enum record_error	record_ext_decode(struct reader *, struct cb_record *,
			    struct cb_err *);

#endif
