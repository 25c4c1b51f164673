/*
 * cmd-acquire.c: `cbexec acquire NAME [--lease D] [--pid PID]`, the first
 * half of the two-step API of SPEC section 7b.  It admits a call exactly as
 * run would and prints an opaque token that `cbexec release`
 * (cmd-release.c) turns back into the admission.  Tokens are leases: a
 * half-open token holds a probe slot with pid 0, which only its lease can
 * free, so an unreleased one expires as a dropped permit; a closed-state
 * token holds nothing.  With --pid the slot is held by that process (the
 * calling script, `--pid $$`), judged alive as run's own slot is: by its
 * start time and the boot id, so a script that dies frees the slot at the
 * next call.  The token codec lives here too.
 *
 * A token is "cb1-" and the lower-case hex of: u8 version (2), u8 flags (1
 * probe, 2 unguarded, 4 running: holds a run slot), u64 epoch, u64 slot
 * token, u64 record identity, i64 acquired-at in wall milliseconds, u8
 * name length, the name, and a u32 FNV-1a checksum of all that, each
 * integer little-endian.  A version 1 token (cbexec 0.1) has no identity
 * and stands for identity 0, which records of 0.1 keep.  The checksum
 * catches a token cut or mistyped; it is no secret (anyone who can write the state file can do
 * more than forge a token).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breaker.h"
#include "clock.h"
#include "cmd.h"
#include "record.h"

#define TOKEN_PREFIX	"cb1-"
#define TOKEN_VERSION	2
#define TOKEN_FIXED_V1	(1 + 1 + 8 + 8 + 8 + 1)	/* before the name */
#define TOKEN_FIXED	(TOKEN_FIXED_V1 + 8)
#define TOKEN_MAX	(TOKEN_FIXED + 255 + 4)

static uint32_t
fnv1a(const uint8_t *p, size_t len)
{
	uint32_t	h = 2166136261u;

	while (len-- > 0) {
		h ^= *p++;
		h *= 16777619u;
	}
	return h;
}

void
token_encode(const struct cb_token *t, char *out, size_t outlen)
{
	static const char	 hex[] = "0123456789abcdef";
	struct cb_buf		 b = { 0 };
	size_t			 namelen, i, off;

	namelen = strlen(t->name);
	if (namelen > 255)
		namelen = 255;
	buf_add_u8(&b, TOKEN_VERSION);
	buf_add_u8(&b, (uint8_t)((t->probe ? TOKEN_PROBE : 0) |
	    (t->unguarded ? TOKEN_UNGUARDED : 0) |
	    (t->running ? TOKEN_RUNNING : 0)));
	buf_add_u64(&b, t->epoch);
	buf_add_u64(&b, t->slot);
	buf_add_u64(&b, t->identity);
	buf_add_u64(&b, (uint64_t)t->acquired_ms);
	buf_add_u8(&b, (uint8_t)namelen);
	buf_add(&b, t->name, namelen);
	buf_add_u32(&b, fnv1a(b.data, b.len));

	off = (size_t)snprintf(out, outlen, "%s", TOKEN_PREFIX);
	for (i = 0; i < b.len && off + 2 < outlen; i++) {
		out[off++] = hex[b.data[i] >> 4];
		out[off++] = hex[b.data[i] & 15];
	}
	if (off < outlen)
		out[off] = '\0';
	buf_free(&b);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
token_decode(const char *s, struct cb_token *t, struct cb_err *err)
{
	uint8_t		 raw[TOKEN_MAX];
	const char	*h;
	size_t		 hexlen, len, i, namelen, fixed;
	int		 hi, lo;

	memset(t, 0, sizeof *t);
	if (strncmp(s, TOKEN_PREFIX, strlen(TOKEN_PREFIX)) != 0) {
		err_set(err, "not a cbexec token (no '%s' prefix)",
		    TOKEN_PREFIX);
		return -1;
	}
	h = s + strlen(TOKEN_PREFIX);
	hexlen = strlen(h);
	if (hexlen % 2 != 0 || hexlen / 2 > sizeof raw ||
	    hexlen / 2 < TOKEN_FIXED_V1 + 1 + 4) {
		err_set(err, "cut short or too long");
		return -1;
	}
	len = hexlen / 2;
	for (i = 0; i < len; i++) {
		if ((hi = hexval((unsigned char)h[2 * i])) < 0 ||
		    (lo = hexval((unsigned char)h[2 * i + 1])) < 0) {
			err_set(err, "unexpected character at offset %zu",
			    strlen(TOKEN_PREFIX) + 2 * i +
			    (hi < 0 ? 0 : 1));
			return -1;
		}
		raw[i] = (uint8_t)(hi << 4 | lo);
	}
	fixed = raw[0] == 1 ? TOKEN_FIXED_V1 : TOKEN_FIXED;
	if (len < fixed + 1 + 4) {
		err_set(err, "cut short or too long");
		return -1;
	}
	namelen = raw[fixed - 1];
	if (len != fixed + namelen + 4) {
		err_set(err, "cut short or too long");
		return -1;
	}
	if (get_u32(raw + len - 4) != fnv1a(raw, len - 4)) {
		err_set(err, "checksum mismatch (cut or mistyped?)");
		return -1;
	}
	if (raw[0] != 1 && raw[0] != TOKEN_VERSION) {
		err_set(err, "token version %u, this cbexec knows %u",
		    raw[0], TOKEN_VERSION);
		return -1;
	}
	if ((raw[1] & ~(TOKEN_PROBE | TOKEN_UNGUARDED | TOKEN_RUNNING)) != 0) {
		err_set(err, "unknown flags 0x%02x", raw[1]);
		return -1;
	}
	t->probe = (raw[1] & TOKEN_PROBE) != 0;
	t->unguarded = (raw[1] & TOKEN_UNGUARDED) != 0;
	t->running = (raw[1] & TOKEN_RUNNING) != 0;
	t->epoch = get_u64(raw + 2);
	t->slot = get_u64(raw + 10);
	if (raw[0] >= 2)
		t->identity = get_u64(raw + 18);
	t->acquired_ms = (int64_t)get_u64(raw + fixed - 9);
	if (t->acquired_ms < 0 || t->acquired_ms > (int64_t)1 << 53) {
		err_set(err, "its time is not one acquire writes");
		return -1;
	}
	memcpy(t->name, raw + fixed, namelen);
	t->name[namelen] = '\0';
	if (strlen(t->name) != namelen ||
	    cmd_name_valid(t->name, err) == -1) {
		err_set(err, "it names no valid breaker");
		return -1;
	}
	return 0;
}

/*
 * The holder named by --pid: a live process whose start time can be read
 * (its slot is judged by it).  Returns 0, or -1 after printing.
 */
static int
acquire_pid(const char *arg, pid_t *pid, uint64_t *start)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || errno != 0 ||
	    v <= 0 || v > INT32_MAX) {
		cmd_warnx("acquire: --pid: '%s' is not a process id", arg);
		return -1;
	}
	*pid = (pid_t)v;
	if ((*start = clock_proc_start(*pid)) == 0) {
		if (kill(*pid, 0) == 0 || errno == EPERM)
			cmd_warnx("acquire: --pid: cannot read the start time "
			    "of process %ld (/proc/%ld/stat)", v, v);
		else
			cmd_warnx("acquire: --pid: no process %ld", v);
		return -1;
	}
	return 0;
}

/* What the admission callback shares with the command. */
static int
acquire_help(void)
{
	printf("usage: cbexec acquire %s\n%s", cmd_acquire_entry.usage,
	    cmd_acquire_entry.help);
	return EXIT_OK;
}

static int
cmd_acquire_exec(struct cb_ctx *ctx, int argc, char **argv)
{
	static const struct option	 longopts[] = {
		{ "lease",	required_argument,	NULL, 'l' },
		{ "pid",	required_argument,	NULL, 'p' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	static struct cmd_call		 st;	/* large: off the stack */
	struct policy_builder		 b;
	struct cb_policy		 p;
	struct cb_token			 tok;
	struct cb_err			 err;
	struct store			*store;
	const char			*name = NULL, *lease = NULL, *disable;
	const char			*pidarg = NULL;
	char				 text[TOKEN_TEXT_MAX];
	int64_t				 lease_ms;
	uint64_t			 start = 0;
	pid_t				 pid = 0;
	int				 ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+l:p:h", longopts, NULL)) != -1 ||
	    optind < argc) {
		if (ch == -1) {
			/* An operand: the name, then options may follow. */
			if (name != NULL) {
				cmd_warnx("acquire: unexpected '%s'",
				    argv[optind]);
				return cmd_usage(&cmd_acquire_entry,
				    EXIT_USAGE);
			}
			name = argv[optind++];
			continue;
		}
		switch (ch) {
		case 'l':
			lease = optarg;
			break;
		case 'p':
			pidarg = optarg;
			break;
		case 'h':
			return acquire_help();
		default:
			if (optopt == 'l' || optopt == 'p')
				cmd_warnx("acquire: option '--%s' needs "
				    "an argument", optopt == 'l' ? "lease" :
				    "pid");
			else
				cmd_warnx("acquire: unknown option '%s'",
				    argv[optind - 1]);
			return cmd_usage(&cmd_acquire_entry, EXIT_USAGE);
		}
	}
	if (name == NULL)
		return cmd_usage(&cmd_acquire_entry, EXIT_USAGE);
	if (cmd_name_valid(name, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_USAGE;
	}
	if (lease != NULL) {
		if (parse_duration(lease, &lease_ms, &err) == -1) {
			cmd_warnx("acquire: --lease: %s", err.msg);
			return EXIT_USAGE;
		}
		if (lease_ms <= 0) {
			cmd_warnx("acquire: --lease: must be longer than 0");
			return EXIT_USAGE;
		}
	}
	if (pidarg != NULL && acquire_pid(pidarg, &pid, &start) == -1)
		return EXIT_USAGE;

	policy_init(&b);
	if (cmd_policy(ctx, name, &b) == -1)
		return EXIT_FAIL;
	if (policy_finish(&b, &p, &err) == -1) {
		cmd_warnx("%s: %s", name, err.msg);
		return EXIT_FAIL;
	}
	if (lease == NULL)
		lease_ms = p.probe_lease_ms;

	memset(&tok, 0, sizeof tok);
	snprintf(tok.name, sizeof tok.name, "%s", name);
	disable = getenv("CBEXEC_DISABLE");
	if (disable != NULL && strcmp(disable, "1") == 0) {
		if (!ctx->quiet)
			cmd_warnx("warning: CBEXEC_DISABLE=1: '%s' unguarded, "
			    "nothing recorded", name);
		tok.unguarded = 1;
		tok.acquired_ms = clock_wall_ms();
		token_encode(&tok, text, sizeof text);
		printf("%s\n", text);
		return EXIT_OK;
	}

	memset(&st, 0, sizeof st);
	st.ctx = ctx;
	st.name = name;
	st.p = &p;
	cmd_env(ctx, &st.env);
	/* --pid: that process holds the slot, judged alive as run's is.
	 * Else none does: pid 0, judged by its lease alone. */
	st.self.pid = (int32_t)pid;
	st.self.start_time = start;
	memcpy(st.self.boot_id, cmd_boot_id(ctx), sizeof st.self.boot_id);
	clock_host_name(st.self.host, sizeof st.self.host);
	st.self.token = clock_random();
	st.self.lease_until_ms = st.env.now_ms + lease_ms;
	if ((store = cmd_store(ctx, 0, NULL, &err)) == NULL ||
	    store_update(store, name, cmd_admit_cb, &st, &err) == -1) {
		cmd_warnx("%s", err.msg);
		return EXIT_FAIL;
	}
	cmd_evictions(ctx);
	cmd_transitions(ctx, name, &st.fx);
	if (!st.ticket.admitted) {
		/* Whatever on_open says: no token, so the caller must not run. */
		run_refusal(ctx, name, &st.ticket);
		return p.open_exit_code;
	}
	tok.probe = st.ticket.probe;
	tok.running = st.ticket.running;
	tok.epoch = st.ticket.epoch;
	tok.identity = st.ticket.identity;
	tok.slot = st.ticket.probe || st.ticket.running ? st.ticket.token : 0;
	tok.acquired_ms = st.env.now_ms;
	token_encode(&tok, text, sizeof text);
	if (ctx->verbose)
		cmd_warnx("%s: admitted (%s, epoch %llu)", name,
		    tok.probe ? "probe" : "closed",
		    (unsigned long long)tok.epoch);
	/* A reader gone is an error to handle here, not a SIGPIPE. */
	(void)signal(SIGPIPE, SIG_IGN);
	if (printf("%s\n", text) < 0 || fflush(stdout) == EOF) {
		cmd_warn("acquire: cannot print the token");
		/* Nobody has the token: give its probe slot back at once. */
		if (st.ticket.probe) {
			st.run.outcome = OUTCOME_IGNORED;
			st.run.exit_code = -1;
			if (store_update(store, name, cmd_record_cb, &st,
			    &err) == -1)
				cmd_warnx("%s", err.msg);
			else
				cmd_transitions(ctx, name, &st.fx);
		}
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

const struct cmd_entry cmd_acquire_entry = {
	"acquire",
	"NAME [--lease D] [--pid PID]",
	"admit a call as run would and print a token for release",
	"Admits a call to NAME as run would and prints a TOKEN on stdout;\n"
	"`cbexec release TOKEN success|failure|ignore` records its outcome.\n"
	"Refused: exits open_exit_code (75) and prints no token, whatever\n"
	"on_open says.\n"
	"  -l, --lease D   how long a half-open probe slot is held for the\n"
	"                  token (default: probe_lease, 1h); unreleased by\n"
	"                  then, it counts as a failed probe\n"
	"  -p, --pid PID   process PID holds the slot (typically --pid $$):\n"
	"                  once it has died, the next call frees the slot as\n"
	"                  a failed probe instead of waiting for the lease\n"
	"Example:\n"
	"  tok=$(cbexec acquire api --pid $$) || exit\n"
	"  trap 'cbexec release \"$tok\" failure' EXIT\n"
	"  if curl -fsS https://api.example/; then r=success; else "
	"r=failure; fi\n"
	"  trap - EXIT\n"
	"  cbexec release \"$tok\" $r\n",
	cmd_acquire_exec
};
