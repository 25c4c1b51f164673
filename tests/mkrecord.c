/* SPDX-License-Identifier: ISC */
/*
 * mkrecord.c: a test tool for planting records, as a member of the state's
 * group could (SPEC 5).  `mkrecord FIELD=VALUE...` reads one breaker's
 * record as mdb_dump prints a value (a line of hex, a leading blank) on
 * stdin, decodes it, sets each FIELD, and prints the record encoded again
 * the same way, for mdb_load.  Nothing is checked: a field may be set to
 * what no cbexec writes, which is the point.  FIELDs:
 *
 *	policy.KEY	trip_policy trip_failures trip_window trip_min_calls
 *			half_open_max_calls max_concurrent preset timeout
 *			kill_after open_exit_code (a number; ms for times)
 *	failtimes	that many failure times, a millisecond apart, ending
 *			at last_used
 *	state		0 closed, 1 open, 2 half-open
 *	run.I.F, probe.I.F
 *			run slot or probe slot I (the count grows to I + 1),
 *			F one of token pid pgid start_time lease_until
 *			lease_ms since pidns (numbers), boot (32 hex digits,
 *			or "self": this boot's id), host, job (the hash of the
 *			job's marker, in hex; 0: none)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

static struct cb_record	r;

static void
die(const char *what, const char *arg)
{
	fprintf(stderr, "mkrecord: %s: %s\n", what, arg);
	exit(2);
}

static long long
num(const char *s)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno != 0 || *s == '\0' || *end != '\0')
		die("not a number", s);
	return v;
}

/* n bytes of hex at s into out; the dashes of a boot id are skipped. */
static void
unhex(const char *s, uint8_t *out, size_t n)
{
	size_t	i = 0;
	int	hi, lo;

	while (i < n && *s != '\0') {
		if (*s == '-' || *s == ' ' || *s == '\n') {
			s++;
			continue;
		}
		if ((hi = hex_digit(s[0])) < 0 || (lo = hex_digit(s[1])) < 0)
			die("not hex", s);
		out[i++] = (uint8_t)(hi << 4 | lo);
		s += 2;
	}
	if (i != n)
		die("too few hex digits", s);
}

static void
self_boot(uint8_t *out)
{
	char	 line[64];
	FILE	*f;

	if ((f = fopen("/proc/sys/kernel/random/boot_id", "r")) == NULL ||
	    fgets(line, sizeof line, f) == NULL)
		die("cannot read", "/proc/sys/kernel/random/boot_id");
	fclose(f);
	unhex(line, out, 16);
}

static void
set_slot(struct cb_slot *slots, uint16_t *n, size_t max, const char *spec)
{
	struct cb_slot	*s;
	const char	*f, *v;
	char		*end;
	unsigned long	 i;

	i = strtoul(spec, &end, 10);
	if (end == spec || *end != '.' || i >= max)
		die("bad slot", spec);
	f = end + 1;
	if ((v = strchr(f, '=')) == NULL)
		die("no value", spec);
	v++;
	for (; *n <= i; (*n)++)
		memset(&slots[*n], 0, sizeof slots[*n]);
	s = &slots[i];
#define IS(name)	(strncmp(f, name "=", sizeof name) == 0)
	if (IS("token"))
		s->token = (uint64_t)num(v);
	else if (IS("pid"))
		s->pid = (int32_t)num(v);
	else if (IS("pgid"))
		s->pgid = (int32_t)num(v);
	else if (IS("start_time"))
		s->start_time = (uint64_t)num(v);
	else if (IS("lease_until"))
		s->lease_until_ms = num(v);
	else if (IS("lease_ms"))
		s->lease_ms = num(v);
	else if (IS("since"))
		s->since_ms = num(v);
	else if (IS("pidns"))
		s->pidns = (uint64_t)num(v);
	else if (IS("boot")) {
		if (strcmp(v, "self") == 0)
			self_boot(s->boot_id);
		else
			unhex(v, s->boot_id, 16);
	} else if (IS("host"))
		snprintf(s->host, sizeof s->host, "%s", v);
	else if (IS("job"))
		s->job = (uint64_t)strtoull(v, NULL, 16);
	else
		die("unknown slot field", f);
#undef IS
}

static void
set_policy(const char *f, long long v)
{
	struct cb_snapshot	*p = &r.policy;

#define IS(name)	(strcmp(f, name) == 0)
	if (IS("trip_policy"))
		p->trip_policy = (uint8_t)v;
	else if (IS("trip_failures"))
		p->trip_failures = (uint32_t)v;
	else if (IS("trip_window"))
		p->trip_window = (uint32_t)v;
	else if (IS("trip_min_calls"))
		p->trip_min_calls = (uint32_t)v;
	else if (IS("half_open_max_calls"))
		p->half_open_max_calls = (uint32_t)v;
	else if (IS("max_concurrent"))
		p->max_concurrent = (uint32_t)v;
	else if (IS("preset"))
		p->preset = (int16_t)v;
	else if (IS("timeout"))
		p->timeout_ms = v;
	else if (IS("kill_after"))
		p->kill_after_ms = v;
	else if (IS("open_exit_code"))
		p->open_exit_code = (uint8_t)v;
	else
		die("unknown policy field", f);
#undef IS
	p->set = 1;
}

static void
set(const char *arg)
{
	const char	*v = strchr(arg, '=');
	long long	 i, n;

	if (v == NULL)
		die("not FIELD=VALUE", arg);
	v++;
	if (strncmp(arg, "policy.", 7) == 0) {
		char	f[64];

		snprintf(f, sizeof f, "%.*s", (int)(v - 1 - arg - 7), arg + 7);
		set_policy(f, num(v));
	} else if (strncmp(arg, "failtimes=", 10) == 0) {
		if ((n = num(v)) < 0 || n > RECORD_MAX_FAILTIMES)
			die("failtimes out of range", v);
		for (i = 0; i < n; i++)
			r.failtimes[i] = r.last_used_ms - n + 1 + i;
		r.nfailtimes = (uint16_t)n;
	} else if (strncmp(arg, "state=", 6) == 0)
		r.state = (enum cb_state)num(v);
	else if (strncmp(arg, "run.", 4) == 0)
		set_slot(r.running, &r.nrunning, RECORD_MAX_RUNNING, arg + 4);
	else if (strncmp(arg, "probe.", 6) == 0)
		set_slot(r.slots, &r.nslots, RECORD_MAX_SLOTS, arg + 6);
	else
		die("unknown field", arg);
}

int
main(int argc, char **argv)
{
	static char	line[1 << 20];
	static uint8_t	bytes[sizeof line / 2];
	struct cb_buf	b = { 0 };
	struct cb_err	err;
	size_t		len, i;
	char		*p;
	int		hi, lo;

	if (fgets(line, sizeof line, stdin) == NULL)
		die("no record on stdin", "-");
	for (p = line, len = 0; *p != '\0' && *p != '\n'; ) {
		if (*p == ' ') {
			p++;
			continue;
		}
		if ((hi = hex_digit(p[0])) < 0 || (lo = hex_digit(p[1])) < 0)
			die("not hex", p);
		bytes[len++] = (uint8_t)(hi << 4 | lo);
		p += 2;
	}
	if (record_decode(bytes, len, &r, &err) != RECORD_OK)
		die("cannot decode", err.msg);
	for (i = 1; i < (size_t)argc; i++)
		set(argv[i]);
	record_encode(&r, &b);
	putchar(' ');
	for (i = 0; i < b.len; i++)
		printf("%02x", b.data[i]);
	putchar('\n');
	buf_free(&b);
	return ferror(stdout) ? 1 : 0;
}
