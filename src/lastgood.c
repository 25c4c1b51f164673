/* SPDX-License-Identifier: ISC */
/*
 * lastgood.c: the last config that loaded cleanly, for the breakers that
 * never ran (SPEC section 4).  When a clean file's text differs from what
 * its memo says (confmemo.c), the policy each of its `breakers` entries
 * gives (over `defaults`), and the one for names no entry matches, are
 * written there as records holding only the policy's snapshot: every
 * number, class and mode, never a command.  Under a file that cannot be
 * used, a breaker with no record of its own gets the first of them whose
 * pattern matches its name, read back through record_decode, so every
 * value is range-checked as a record's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "confmemo.h"
#include "config.h"
#include "lastgood.h"
#include "record.h"

static const char	hexdig[] = "0123456789abcdef";

/* One "PATTERN\tHEX\n" line of the policy i gives into body; -1 when it
 * cannot be had or kept (a pattern holding a tab or a newline). */
static int
lastgood_line(const struct cb_config *cfg, size_t i, int64_t now,
    struct cb_buf *body)
{
	static struct cb_record	 r;	/* large: off the stack */
	struct policy_builder	 b;
	struct cb_policy	 p;
	struct cb_buf		 rec = { 0 };
	struct cb_err		 err;
	const char		*pat = i < cfg->nbreakers ?
				    cfg->breakers[i].match : "";
	size_t			 k;

	if (pat == NULL || strpbrk(pat, "\t\n") != NULL ||
	    config_entry_policy(cfg, i, &b, &err) != 0 ||
	    policy_finish(&b, &p, &err) != 0)
		return -1;
	breaker_policy_record(&r, &p, now);
	record_encode(&r, &rec);
	buf_add(body, "=", 1);
	buf_add(body, pat, strlen(pat));
	buf_add(body, "\t", 1);
	for (k = 0; k < rec.len; k++) {
		buf_add(body, &hexdig[rec.data[k] >> 4], 1);
		buf_add(body, &hexdig[rec.data[k] & 0xf], 1);
	}
	buf_add(body, "\n", 1);
	buf_free(&rec);
	return 0;
}

void
lastgood_remember(const char *default_state, const struct cb_config *cfg,
    int64_t now, int create)
{
	struct cb_buf	body = { 0 };
	size_t		i;

	if (cfg->path == NULL || !confmemo_due(default_state, cfg->path,
	    cfg->state, cfg->content_hash))
		return;
	for (i = 0; i <= cfg->nbreakers; i++)
		if (lastgood_line(cfg, i, now, &body) == -1)
			break;
	/* All or nothing: a policy that cannot be kept keeps none. */
	if (i <= cfg->nbreakers)
		body.len = 0;
	buf_add(&body, "", 1);
	confmemo_write(default_state, cfg->path, cfg->state,
	    cfg->content_hash, (const char *)body.data, create);
	buf_free(&body);
}

int
lastgood_policy(const char *default_state, const char *config,
    const char *name, const struct cb_policy *base, struct cb_policy *out)
{
	static struct cb_record	 r;	/* large: off the stack */
	struct cb_buf		 rec = { 0 };
	struct cb_err		 err;
	char			*hex;
	size_t			 i, n;
	uint8_t			 byte;
	int			 rc = -1, hi, lo;

	if ((hex = confmemo_policy(default_state, config, name)) == NULL)
		return -1;
	n = strlen(hex);
	for (i = 0; i + 1 < n; i += 2) {
		if ((hi = hex_digit(hex[i])) == -1 ||
		    (lo = hex_digit(hex[i + 1])) == -1)
			break;
		byte = (uint8_t)(hi << 4 | lo);
		buf_add(&rec, &byte, 1);
	}
	if (i == n && n > 0 &&
	    record_decode(rec.data, rec.len, &r, &err) == RECORD_OK &&
	    breaker_policy(&r, base, out) == 2)
		rc = 0;
	buf_free(&rec);
	free(hex);
	return rc;
}
