/* SPDX-License-Identifier: ISC */
/*
 * preset.h: named exit code tables for well-known tools (SPEC section 3:
 * `preset = "curl"`).  A preset fills the three code classes, failure,
 * success and ignore, in that order; policy.c decides how explicit keys
 * override it.  Pure: libc only.
 */
#ifndef CBEXEC_PRESET_H
#define CBEXEC_PRESET_H

#include "units.h"

#define PRESET_CLASSES	3	/* failure, success, ignore */

/* The name of preset i ("curl", ...) in table order; NULL past the end. */
const char	*preset_name(int);

/* The index of the preset called name, or -1. */
int		 preset_lookup(const char *);

/* Class cls (0 failure, 1 success, 2 ignore) of preset i; empty when
 * either is out of range. */
struct cb_codeset preset_class(int, int);

#endif
