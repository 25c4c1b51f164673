/* SPDX-License-Identifier: ISC */
/*
 * resolve.h: a host name's addresses within a deadline.  getaddrinfo(3)
 * waits for a resolver that does not answer as long as resolv.conf lets
 * it (timeout x attempts, 10s and more); a store with a timeout must not.
 */
#ifndef CBEXEC_RESOLVE_H
#define CBEXEC_RESOLVE_H

#include <netinet/in.h>
#include <stdint.h>

#include "util.h"

/* Addresses tried, at most, in the resolver's order. */
#define RESOLVE_MAX	4

struct resolved {
	char	addr[RESOLVE_MAX][INET6_ADDRSTRLEN];	/* numeric */
	int	n;
};

enum {
	RESOLVE_OK = 0,
	RESOLVE_FAILED = -1,	/* err filled: no such host, no address */
	RESOLVE_LATE = -2	/* no answer by the deadline */
};

/*
 * Fill out with host's IPv4 and IPv6 addresses (a numeric host at once,
 * without a lookup) by deadline_ms, on the monotonic clock (clock.h).
 * Returns RESOLVE_OK (out->n > 0), RESOLVE_FAILED with err naming the
 * host, or RESOLVE_LATE.  A name is looked up with glibc's getaddrinfo_a
 * and waited for with gai_suspend; one still running at the deadline is
 * cancelled, or, if it cannot be, left to the resolver's thread (its
 * request, a few hundred bytes, is then never freed: that thread may
 * still write it).
 */
int	resolve_host(const char *host, int64_t deadline_ms, struct resolved *out,
	    struct cb_err *err);

#endif
