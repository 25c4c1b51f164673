/* SPDX-License-Identifier: ISC */
/*
 * jobmark.h: the marker a job is started with, CBEXEC_JOB=NAME:TOKEN
 * (SPEC 2b): TOKEN is 128 random bits in 32 lowercase hex digits, one per
 * slot taken, and the slot keeps only jobmark_hash of NAME:TOKEN, so that
 * what a member of the state's group reads proves nothing and what it
 * writes cannot name another process as the job.  Pure: no I/O.
 */
#ifndef CBEXEC_JOBMARK_H
#define CBEXEC_JOBMARK_H

#include <stddef.h>
#include <stdint.h>

#define JOBMARK_VAR		"CBEXEC_JOB"
#define JOBMARK_TOKEN_HEX	32
/* "CBEXEC_JOB=" NAME ":" TOKEN and a NUL, for a NAME of at most max
 * bytes. */
#define JOBMARK_SIZE(max)	(sizeof JOBMARK_VAR + (max) + 1 + \
				 JOBMARK_TOKEN_HEX + 1)

/*
 * "CBEXEC_JOB=NAME:TOKEN" into buf (size len) from the 128 random bits
 * rnd; -1 when it does not fit.
 */
int		jobmark_make(const char *name, const uint64_t rnd[2],
		    char *buf, size_t len);

/*
 * The hash a slot keeps of the marker's value (NAME:TOKEN, n bytes at
 * value): the first 8 bytes of its SHA-256, little-endian; never 0, which
 * is a slot with no job.
 */
uint64_t	jobmark_hash(const char *value, size_t n);

/* 1 when value (n bytes) is NAME:TOKEN for this name and a well-formed
 * TOKEN, and its hash is hash (not 0); else 0. */
int		jobmark_matches(const char *value, size_t n, const char *name,
		    uint64_t hash);

#endif
