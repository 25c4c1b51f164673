/* SPDX-License-Identifier: ISC */
/*
 * resolve.c: a host name's addresses within a deadline (see resolve.h).
 */
#include <sys/socket.h>
#include <arpa/inet.h>

#include <netdb.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "resolve.h"
#include "util.h"

static void
resolved_add(struct resolved *out, const struct addrinfo *res)
{
	const struct addrinfo	*ai;
	const void		*in;

	for (ai = res; ai != NULL && out->n < RESOLVE_MAX; ai = ai->ai_next) {
		if (ai->ai_family == AF_INET)
			in = &((const struct sockaddr_in *)
			    (const void *)ai->ai_addr)->sin_addr;
		else if (ai->ai_family == AF_INET6)
			in = &((const struct sockaddr_in6 *)
			    (const void *)ai->ai_addr)->sin6_addr;
		else
			continue;
		if (inet_ntop(ai->ai_family, in, out->addr[out->n],
		    sizeof out->addr[out->n]) != NULL)
			out->n++;
	}
}

static void
request_free(struct gaicb *req)
{
	free((char *)req->ar_name);
	free(req);
}

/* Wait for req until deadline_ms: its gai_error, or EAI_INPROGRESS. */
static int
request_wait(struct gaicb *req, int64_t deadline_ms)
{
	const struct gaicb	*list[1] = { req };
	struct timespec		 ts;
	int64_t			 left;
	int			 rc;

	while ((rc = gai_error(req)) == EAI_INPROGRESS &&
	    (left = deadline_ms - clock_mono_ms()) > 0) {
		ts.tv_sec = (time_t)(left / 1000);
		ts.tv_nsec = (long)(left % 1000) * 1000000;
		(void)gai_suspend(list, 1, &ts);
	}
	return rc;
}

int
resolve_host(const char *host, int64_t deadline_ms, struct resolved *out,
    struct cb_err *err)
{
	static const struct addrinfo	 numeric = {
		.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM };
	static const struct addrinfo	 hints = { .ai_socktype = SOCK_STREAM };
	struct gaicb			*req, *list[1];
	struct addrinfo			*res;
	int				 rc;

	out->n = 0;
	if (getaddrinfo(host, NULL, &numeric, &res) == 0) {
		resolved_add(out, res);
		freeaddrinfo(res);
		return out->n > 0 ? RESOLVE_OK : RESOLVE_FAILED;
	}
	req = xcalloc(1, sizeof *req);
	req->ar_name = xstrdup(host);
	req->ar_request = &hints;
	list[0] = req;
	if ((rc = getaddrinfo_a(GAI_NOWAIT, list, 1, NULL)) == 0 &&
	    (rc = request_wait(req, deadline_ms)) == EAI_INPROGRESS) {
		if ((rc = gai_cancel(req)) == EAI_NOTCANCELED)
			return RESOLVE_LATE;	/* req left to the resolver */
		if (rc == EAI_ALLDONE && gai_error(req) == 0)
			freeaddrinfo(req->ar_result);
		request_free(req);
		return RESOLVE_LATE;
	}
	if (rc != 0) {
		err_set(err, "cannot resolve host '%s': %s", host,
		    gai_strerror(rc));
		request_free(req);
		return RESOLVE_FAILED;
	}
	resolved_add(out, req->ar_result);
	freeaddrinfo(req->ar_result);
	request_free(req);
	if (out->n == 0) {
		err_set(err, "host '%s' has no IPv4 or IPv6 address", host);
		return RESOLVE_FAILED;
	}
	return RESOLVE_OK;
}
