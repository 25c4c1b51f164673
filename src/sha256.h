/* SPDX-License-Identifier: ISC */
/*
 * sha256.h: SHA-256 (FIPS 180-4), for the hash of a job's marker that a
 * slot keeps (jobmark.h, SPEC 2b).  Pure: no I/O.
 *
 * Why a hash: the state is readable by every member of its group, and the
 * marker is the proof that a process group is cbexec's job; the state keeps
 * only what checks a marker, never the marker.  Why this one: the check
 * needs a function that is one-way with no secret (every cbexec that reads
 * the state must compute it, so no key can be kept from a member), which
 * SHA-256 is and a keyed hash under a published key (SipHash) is not
 * claimed to be; no library cbexec links offers one, and SHA-256 is small
 * and has published test vectors (tests/unit-jobmark.c).
 */
#ifndef CBEXEC_SHA256_H
#define CBEXEC_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN	32

struct sha256 {
	uint32_t	h[8];
	uint64_t	len;		/* bytes hashed so far */
	uint8_t		buf[64];
	size_t		nbuf;
};

void	sha256_init(struct sha256 *);
void	sha256_add(struct sha256 *, const void *, size_t);
void	sha256_end(struct sha256 *, uint8_t out[SHA256_LEN]);
/* The digest of n bytes at p, in one call. */
void	sha256(const void *p, size_t n, uint8_t out[SHA256_LEN]);

#endif
