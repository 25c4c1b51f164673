/* SPDX-License-Identifier: ISC */
/*
 * name.h: what a breaker NAME may be (SPEC section 1): 1 to NAME_MAX_LEN
 * bytes of A-Z a-z 0-9 . _ - : @ / +, not beginning with '-' (so that an
 * option put before NAME is never taken for one).  Pure: no I/O, so the
 * unit tests and the fuzzer link it alone.
 */
#ifndef CBEXEC_NAME_H
#define CBEXEC_NAME_H

#include "util.h"

#define NAME_MAX_LEN	200

/*
 * Returns 0 if name is a valid breaker name, or -1 with a message in err
 * naming the offending byte and its offset ("invalid breaker name 'a b':
 * byte 0x20 at offset 1 (allowed: ...)").
 */
int	name_valid(const char *, struct cb_err *);

#endif
