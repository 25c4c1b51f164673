/* SPDX-License-Identifier: ISC */
/*
 * fuzz-config.c: libFuzzer harness for the config file, from text to the
 * effective policy.  The input is written to a private file and loaded
 * through config_load(), exactly as cbexec reads one (by its
 * /proc/self/fd name: the file is unlinked at once, since libFuzzer ends
 * with _exit and would leave it behind).  A file that loads
 * must give every NAME a policy that finishes: the default one, each
 * entry's own match pattern, and a few names besides.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "policy.h"

static char	path[64];
static int	fd = -1;

static void
finish(const struct cb_config *cfg, const char *name)
{
	struct policy_builder	b;
	struct cb_policy	p;
	struct cb_err		err;

	if (config_policy(cfg, name, &b, &err) != 0 ||
	    policy_finish(&b, &p, &err) != 0)
		abort();
}

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct cb_config	cfg;
	struct cb_err		err;
	size_t			i;

	if (fd == -1) {
		char	tmpl[] = "/tmp/cbexec-fuzz-config.XXXXXX";

		if ((fd = mkstemp(tmpl)) == -1 || unlink(tmpl) != 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, len, 0) !=
	    (ssize_t)len)
		abort();
	if (config_load(path, &cfg, &err) != 0) {
		if (memchr(err.msg, '\0', sizeof err.msg) == NULL)
			abort();
		/* A file with a problem keeps what of its top level was
		 * read right: the caller frees it either way. */
		config_free(&cfg);
		return 0;
	}
	finish(&cfg, "x");
	finish(&cfg, "warehouse-api");
	finish(&cfg, "payments-api");
	for (i = 0; i < cfg.nbreakers; i++)
		finish(&cfg, cfg.breakers[i].match);
	config_free(&cfg);
	return 0;
}
