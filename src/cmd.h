/* SPDX-License-Identifier: ISC */
/*
 * cmd.h: the command table and what every command shares.  Each command
 * lives in its own cmd-*.c and exports one struct cmd_entry; cmd-table.c lists
 * them.  A command returns its exit status instead of exiting, and prints
 * its own messages (cmd_warn / cmd_warnx); nothing below the cmd layer
 * prints.  Under the commands: ctx.c (the invocation's context: config,
 * state, store), call.c (the admit and record steps of a guarded call)
 * and hook.c (what transitions set off).
 */
#ifndef CBEXEC_CMD_H
#define CBEXEC_CMD_H

#include <getopt.h>
#include <signal.h>

#include "breaker.h"
#include "config.h"
#include "policy.h"
#include "stategroup.h"
#include "store.h"
#include "util.h"
#include "warn.h"

/* Exit statuses (SPEC section 6). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* non-run commands: operation failed */
#define EXIT_USAGE	2	/* non-run commands: bad usage */
#define EXIT_TIMEOUT	124
#define EXIT_CBEXEC	125	/* run: cbexec itself failed */
#define EXIT_NOEXEC	126
#define EXIT_NOTFOUND	127

/*
 * The context of one invocation (ctx.c): options given before the command,
 * and what is worked out from them once, on demand.  Commands read cfg
 * once cfg_loaded is set, and state and state_redis once ctx_state has
 * returned 0; the rest is ctx.c's.
 */
struct cb_ctx {
	const char		*config_path;	/* -c, or NULL */
	const char		*state_path;	/* -s, or NULL */
	int			 quiet;		/* -q */
	int			 verbose;	/* -v */

	int			 cfg_loaded;
	int			 cfg_broken;	/* ... from a file with
						 * problems: cfg holds its top
						 * level only (SPEC 4) */
	int			 cfg_failed;	/* not tried again */
	int			 cfg_missing;	/* ... as a -c file that is not
						 * there: a usage error */
	int			 cfg_reported;	/* its problems printed */
	struct cb_config	 cfg;
	struct config_msgs	 cfg_msgs;	/* its problems, when broken or
						 * failed */
	struct cb_err		 cfg_err;	/* the first, CB_ERR_CONFIG */

	int			 state_done;	/* decided: */
	char			*state;		/* state path, or NULL */
	int			 state_redis;	/* ... naming a Redis store */
	struct cb_err		 state_err;	/* why NULL */
	int			 state_reported;
	char			*memo_default;	/* the default state, beside
						 * which the first writer of a
						 * clean config remembers it
						 * (lastgood.h), or NULL */
	int			 memo_written;
	int			 state_unmade;	/* its directory, a user's
						 * /var/tmp/cbexec-UID, is
						 * made by the first writer */
	int			 state_split;	/* private, though a member of
						 * the shared state's group
						 * (ctx_state); said once */
	int			 state_split_said;
	struct store		*store;
	int			 have_boot_id;
	uint8_t			 boot_id[16];
	int			 have_pidns;
	uint64_t		 pidns;		/* clock_pidns() */
	int			 have_host;
	char			 host[RECORD_HOST_MAX];
	/* The signal mask cbexec started with, for the children it starts
	 * while it blocks signals itself (run; see spawn_block). */
	int			 have_mask;
	sigset_t		 mask;
	/* Who makes this invocation's runs (SPEC 7), for the record and the
	 * transition log lines: run, acquire and release set run_by_wanted
	 * (run also run_argv0, the command's argv[0]); cmd_run_by fills
	 * run_by at its first use, so that a refusal pays nothing for it. */
	int			 run_by_wanted;
	int			 run_by_done;
	const char		*run_argv0;
	struct cb_runby		 run_by;
	/* run with output = on-change (SPEC 6.5): a failed probe's
	 * re-opening goes on with the outage and is not said (-v says it). */
	int			 reopen_quiet;
};

/*
 * One option of a command's grammar: --NAME (NULL: none), -LETTER (0:
 * none), and the KEY the parser reports it by (the letter, or another
 * character for a long-only option).  -h and --help are every command's
 * and are not listed.
 */
struct cmd_opt {
	const char	*name;
	int		 letter;
	int		 key;
	int		 has_arg;	/* no_argument or required_argument */
};

/*
 * A command's grammar, as tmux's cmd_entry.args: its options, and how many
 * operands it takes.  Options and operands mix freely (getopt_long's
 * order), unless CMD_NAME_FIRST: then the first word is NAME whatever it
 * is, and the options after it end at "--" or at the first word that is
 * not one (run's RUN-OPTIONS, SPEC section 1).
 */
#define CMD_NAME_FIRST	0x1
struct cmd_grammar {
	const struct cmd_opt	*opts;		/* ends with a zero entry */
	int			 lower;		/* operands, at least */
	int			 upper;		/* ... at most; -1: any */
	int			 flags;
	/* Said when there is NAME but too few other operands ("no command
	 * given"); NULL: only the usage line. */
	const char		*too_few;
};

#define CMD_MAX_OPTS	64
struct cmd_entry;
/* A command line as its grammar parsed it. */
struct cmd_args {
	const struct cmd_entry	*entry;		/* the command (or subcommand) */
	struct {
		const struct cmd_opt	*opt;
		const char		*arg;	/* NULL without argument */
	}			 v[CMD_MAX_OPTS]; /* in command-line order */
	int			 nv;
	int			 argc;		/* the operands */
	char			**argv;		/* ... NULL-terminated, freed
						 * by cmd_args_free */
	char			 what[64];	/* "run", "config show" */
};

struct cmd_entry {
	const char		*name;
	const char		*usage;		/* after "cbexec [GLOBAL] NAME " */
	const char		*summary;	/* one line for `cbexec --help` */
	const char		*help;		/* option lines for `help NAME` */
	struct cmd_grammar	 args;
	int			 usage_status;	/* 0: EXIT_USAGE */
	/* Subcommands (config): the first operand names one, whose grammar
	 * then parses the rest; usage and help stay the parent's. */
	const struct cmd_entry	*const *subs;
	/* Returns the exit status. */
	int			(*exec)(struct cb_ctx *, struct cmd_args *);
};

extern const struct cmd_entry	*const cmd_table[];
const struct cmd_entry		*cmd_find(const char *);
/* The command nearest to an unknown name ("stauts": status), or NULL. */
const char			*cmd_nearest(const char *);

/*
 * Parse argv (argv[0] the command's name) by e's grammar into a.  Returns
 * 0; 1 after printing e's help on stdout (-h or --help); -1 after printing
 * a usage error ("cbexec: trip: unknown option '--bogus'" and e's usage
 * line) on stderr: the exit status is then cmd_usage_status(e).
 */
int	cmd_parse(const struct cmd_entry *, int argc, char **argv,
	    struct cmd_args *);
int	cmd_usage_status(const struct cmd_entry *);
void	cmd_args_free(struct cmd_args *);
/* The last value of option key in a, or NULL; whether it was given. */
const char	*cmd_arg(const struct cmd_args *, int key);
int		 cmd_has(const struct cmd_args *, int key);
/* "usage: cbexec NAME USAGE\nHELP" on stdout, as --help prints it. */
int	cmd_help(const struct cmd_entry *);

/* Print "usage: cbexec NAME USAGE" and return EXIT_USAGE (or
 * EXIT_CBEXEC for run). */
int	cmd_usage(const struct cmd_entry *, int status);
/* Report an error cmd_store filled: a config's problems, each once
 * (cmd_config), or the message. */
void	cmd_store_error(struct cb_ctx *, const struct cb_err *);
/* SIGINT, SIGTERM, SIGHUP or SIGQUIT ended a wait for the store (SPEC 5):
 * exit 128 + sig at once, with nothing recorded. */
void	cmd_store_signal(int sig) __attribute__((noreturn));

/* ---- ctx.c ---- */

/*
 * Load the config once (config_check with -c), printing nothing.  Returns
 * 0, or -1 with err (may be NULL) holding its first problem, code
 * CB_ERR_CONFIG, when the file named by -c or CBEXEC_CONFIG does not exist
 * (cfg_missing: a usage error); later calls give the same answer.  A file
 * that cannot be used otherwise (SPEC section 4) gives 0 with cfg_broken
 * set: cfg holds what of its top level was read right, its problems are
 * in cfg_msgs, and calls run under cmd_call_policy's fallback.
 */
int	ctx_config_load(struct cb_ctx *, struct cb_err *);
/*
 * The same, for a command: returns 0, or -1 after printing the problem.
 * A broken file's problems are printed the first time, one line each,
 * even with -q, and logged (cmd_config_log).
 */
int	cmd_config(struct cb_ctx *);

/*
 * Decide the state once: -s, $CBEXEC_STATE, config `state`, else
 * /var/lib/cbexec/state.mdb for root and the group cbexec's members,
 * $XDG_STATE_HOME/cbexec/state.mdb (default ~/.local/state/cbexec/
 * state.mdb) for others, and /var/tmp/cbexec-UID/state.mdb for a user
 * with no usable home.  Sets ctx->state and ctx->state_redis and returns
 * 0, or returns -1 with err (may be NULL) saying why there is none.
 */
int		 ctx_state(struct cb_ctx *, struct cb_err *);

/* The shared system state: STATE_SYSTEM, STATE_GROUP (stategroup.h). */
/* ctx->state for a command: NULL after printing (the config's problems
 * and why there is no state, once). */
const char	*cmd_state_path(struct cb_ctx *);
/*
 * Is the shared state's directory (/var/lib/cbexec, of group cbexec, which
 * only its members may search) there while this process, not root and
 * not of the group, uses another state?
 * An exporter run as a user outside the group then exports nothing
 * (SPEC 7).  Sets *who to the user's name (static storage).
 */
int		 cmd_state_outside(struct cb_ctx *, const char **who);
/*
 * Where a clean config is remembered (lastgood.h): beside the state in use
 * when it is a local file (cmd_memo_base), else beside the default state
 * (no -s, $CBEXEC_STATE or config: cmd_memo_default), which also holds
 * which state the file named.  NULL when there is none.
 */
const char	*cmd_memo_base(struct cb_ctx *);
const char	*cmd_memo_default(struct cb_ctx *);

/*
 * Open the store once, of the kind ctx_state decided.  Returns it, or NULL
 * with err filled: code CB_ERR_CONFIG when the config cannot be used
 * (print it with cmd_store_error), CB_ERR_MISSING when readonly and the
 * state file does not exist (for status and check, an empty store, no
 * error).  The caller decides how to report: run follows on_store_error,
 * others exit 1.
 */
struct store	*cmd_store(struct cb_ctx *, int readonly, struct cb_err *);

/*
 * Replace the store with the local LMDB file (the state path rules with
 * every Redis URL skipped), for fallback = "local" when Redis cannot be
 * used.  Returns it, or NULL with err filled.
 */
struct store	*cmd_store_local(struct cb_ctx *, struct cb_err *);

/*
 * The mode new data and lock files at path get: state_mode if the config
 * sets it, else 0660 in a directory of the group cbexec (*shared set: root
 * and the group's members share it), else the built-in 0600.
 */
mode_t		 cmd_state_mode(struct cb_ctx *, const char *path,
		    int *shared);

/*
 * The path of that local LMDB file, in new memory, opening nothing (for
 * config show).  NULL with err filled when there is none.
 */
char		*cmd_state_local(struct cb_ctx *, struct cb_err *);

/* ---- call.c: the policy and environment of a call ---- */

/*
 * The policy for NAME from the config; command-line values are then added
 * by the caller with policy_set(..., LAYER_CLI, "command line", ...).
 * Returns 0, or -1 after printing.
 */
int	cmd_policy(struct cb_ctx *, const char *name, struct policy_builder *);

/*
 * The finished policy of a call to NAME (run, check, acquire, release,
 * trip, reset): cmd_policy's under the command line's values ro (NULL:
 * none; run_apply prefixes errors with what).  With a broken config
 * (cfg_broken), the policy NAME's record last ran under (breaker_policy:
 * never a command) over the built-in defaults, under ro; the record is
 * read from the store cmd_store opens as store_mode says, and one that
 * cannot be read counts as none (SPEC section 4).  Returns 0, or -1 after
 * printing.
 */
#define CALL_STORE_RW	0	/* open the store for writing */
#define CALL_STORE_RO	1	/* ... read-only (check, config show) */
#define CALL_STORE_NONE	2	/* never (CBEXEC_DISABLE): built-in */
struct run_opts;
/* Its first half: the layers under the command line's, into b. */
int	cmd_call_builder(struct cb_ctx *, const char *name, int store_mode,
	    struct policy_builder *);
int	cmd_call_policy(struct cb_ctx *, const char *what, const char *name,
	    int store_mode, const struct run_opts *ro, struct cb_policy *);

/*
 * The environment of a breaker step taken now: the wall clock, a jitter
 * draw, and call_holder_alive as the liveness oracle for probe holders.
 */
void		 cmd_env(struct cb_ctx *, struct cb_env *);
/* This boot's id (clock_boot_id), read once. */
const uint8_t	*cmd_boot_id(struct cb_ctx *);
/* This process's PID namespace (clock_pidns), read once. */
uint64_t	 cmd_pidns(struct cb_ctx *);
/* This host's name (clock_host_name), read once. */
const char	*cmd_host(struct cb_ctx *);
/* Release what the context holds: the store (if main has not closed it
 * before cmd_hooks_wait), the config and its problems, the state path. */
void		 ctx_free(struct cb_ctx *);

/* ---- cmd.c ---- */

/* A wait as users read it: whole seconds, rounded up ("23s", "4m10s"). */
void	cmd_format_wait(int64_t, char *, size_t);
/* A wall clock time of the day, "10:03:12", local. */
void	cmd_clock(int64_t ms, char *, size_t);

/* Who is acting, for manual transitions: the user name, or "uid N". */
const char	*cmd_user(void);

/* Who makes this invocation's runs: ctx->run_by, filled at the first
 * call (user as cmd_user says it, host name, run_argv0 or ""); NULL
 * unless ctx->run_by_wanted. */
const struct cb_runby	*cmd_run_by(struct cb_ctx *);

/*
 * Report what the last store update evicted to stay within max_breakers:
 * a warning for an open or half-open breaker (evicted only when every
 * breaker was open), a note with -v for the others.  Call after every
 * update that may create a record (run, trip, acquire).
 */
void	cmd_evictions(struct cb_ctx *);

/* ---- keys.c ---- */

/*
 * store_each and store_prune for the commands: fn sees only keys that are
 * valid NAMEs.  Every other key that the listing would show (npats 0: all;
 * else one of pats, NAMEs or GLOBs, matches it by fnmatch) is named on
 * stderr, escaped ("key '\x1b[2J' in state '...': not a breaker name;
 * skipped"), once, and counted in *bad; the caller then exits 1 (SPEC
 * section 5).  Return and err as store_each and store_prune.
 */
int	cmd_each(struct cb_ctx *, struct store *, char **pats, int npats,
	    store_each_fn, void *, unsigned long *bad, struct cb_err *);
int	cmd_prune(struct cb_ctx *, struct store *, store_prune_fn, void *,
	    struct cb_buf *removed, unsigned long *bad, struct cb_err *);

/* ---- call.c ---- */

/*
 * Decode NAME's stored record; on failure err names the breaker and the
 * state file.  Returns 0 or -1.
 */
int	cmd_decode(struct cb_ctx *, const char *name, const uint8_t *,
	    size_t, struct cb_record *, struct cb_err *);

/*
 * Is the holder of probe or run slot s alive (arg: the struct cb_ctx)?
 * One from another boot of a local state file is dead; in a multi-host
 * store another boot is most likely another host: unknown, its lease
 * decides, as for a slot taken in another PID namespace (a container on
 * this kernel) or, for a slot that does not say its namespace, on a host
 * of another name.  Within this boot and namespace the holder is alive
 * while its pid exists with the start time it had, or while the job's
 * process group (s->pgid) has a member and every member /proc shows
 * started no earlier than the holder (SPEC 2b); a pid that exists with
 * another start time is dead, whoever owns it.  Unknown when neither can
 * be seen (hidepid).
 */
enum cb_liveness	call_holder_alive(const struct cb_slot *, void *);

/*
 * After a committed update: SIGKILL the process group of every slot the
 * step reclaimed because its lease had passed (fx->reaped) while its
 * holder is gone, when the group is alive here (same boot and namespace,
 * members all started no earlier than the holder) and proven the job's
 * by the kernel (a member of our real uid started with the slot's marker:
 * jobproof.h), and say so unless -q; a live group that is not proven is
 * left alone, and that is said once (unless -q).  SPEC 2b: no job outlives its timeout and its guardian by
 * more than one call.  cmd_transitions calls it.
 */
void	cmd_reap(struct cb_ctx *, const char *name, const struct cb_effects *);

/*
 * One guarded call on its way through the breaker.  run, acquire and
 * release drive it; its two store updates are the same whatever drives
 * them: cmd_admit_cb admits (creating NAME's record if it has none),
 * cmd_record_cb records the outcome in run (a breaker forgotten in the
 * meantime counts it nowhere).  Both are store_update_fn callbacks taking
 * the call as arg; they leave the transitions they made in fx.
 */
struct cmd_call {
	struct cb_ctx		*ctx;
	const char		*name;
	const struct cb_policy	*p;
	struct cb_env		 env;
	struct cb_slot		 self;		/* the slot a probe takes */
	/* Fills self, called only when a probe slot is at stake; NULL when
	 * the caller filled self already. */
	void			(*fill_self)(struct cmd_call *);
	/* Called by cmd_admit_cb when the call was admitted with a probe or
	 * run slot: the job's process group, to record in the slot from the
	 * start (run forks the job ahead, held until it is let go: spawn_hold),
	 * or 0; NULL: none. */
	pid_t			(*job_group)(struct cmd_call *);
	struct cb_ticket	 ticket;
	/* Set while a --wait goes on: a busy refusal is then not counted
	 * (only the last one is, when the wait is over). */
	int			 waiting;
	/* What is left of that wait (ms): a rate limited refusal whose
	 * turn comes within it is not counted either (SPEC 2d). */
	int64_t			 wait_left_ms;
	struct cb_run		 run;
	enum cb_outcome		 counted;	/* as cmd_record_cb counted it */
	struct cb_effects	 fx;
	struct cb_record	 rec;
};

int	cmd_admit_cb(const uint8_t *, size_t, struct cb_buf *, void *,
	    struct cb_err *);
int	cmd_record_cb(const uint8_t *, size_t, struct cb_buf *, void *,
	    struct cb_err *);

/* ---- hook.c ---- */

/*
 * Kill the groups a committed step reclaimed (cmd_reap), log the
 * transitions it made and start their on_transition hooks (SPEC section
 * 5).  The hooks run in the background, alongside what the command does
 * next; cmd_hooks_wait() (called by main before exit)
 * finishes them, killing each hook's process group five seconds after it
 * started at the latest.
 */
void	cmd_transitions(struct cb_ctx *, const char *name,
	    const struct cb_effects *);
void	cmd_hooks_wait(struct cb_ctx *);

/*
 * Log a broken config's problems (SPEC section 4) as transitions are
 * logged (log = syslog; stderr has them already), once per distinct
 * content of the file: the last content logged is remembered beside the
 * local state, in STATE-config-logged (ctx.c: cmd_config calls it).
 */
void	cmd_config_log(struct cb_ctx *);

/* Operands and options of reset, trip and forget (cmd-admin.c). */
struct admin_args {
	const char	 *reason;	/* --reason */
	int64_t		  for_ms;	/* --for */
	int		  on_open;	/* trip --on-open: MANUAL_ON_OPEN_* */
	char		**names;	/* operands: NAMEs and GLOBs */
	int		  nnames;
};
/* reset's grammar, --reason; trip's (cmd-trip.c) uses the keys 'f' for
 * --for and 'r' for --reason too. */
extern const struct cmd_opt	admin_grammar_reason[];

/*
 * Check the command line a's grammar parsed and fill aa: every NAME valid
 * (an operand with *, ? or [ is a GLOB, an fnmatch(3) pattern), --for a
 * duration, --reason short and printable.  Returns 0, or -1 after
 * printing.
 */
int	admin_parse(const struct cmd_args *, struct admin_args *);

/* The breakers the operands of a command name (admin_targets). */
struct admin_target {
	char	*name;
	int	 exact;		/* given as a NAME (else only matched) */
};
struct admin_targets {
	struct admin_target	*v;
	size_t			 n;
};

/*
 * Turn a's operands into breakers, in name order, each once: an exact
 * NAME as given, a GLOB into the existing breakers it matches (read from
 * store in one pass).  A GLOB matching nothing is reported ("no breaker
 * matches 'GLOB'") and makes the result 1.  Returns 0, 1, or -1 after
 * printing a store error.  t is filled in every case; free it with
 * admin_targets_free().
 */
int	admin_targets(struct cb_ctx *, struct store *,
	    const struct admin_args *, struct admin_targets *);
void	admin_targets_free(struct admin_targets *);
/* Name a breaker a GLOB matched, once it is done (stdout, not with -q). */
void	admin_done(struct cb_ctx *, const struct admin_target *);

/*
 * Apply fn to each breaker a names (admin_targets), one store update per
 * breaker, with its policy and reason "manual WHAT by USER[: TEXT]".  An
 * exact NAME with no record is created when create is set, else reported;
 * a matched breaker gone meanwhile is skipped.  Returns the exit status.
 */
typedef int (*admin_fn)(struct cb_record *, const struct cb_policy *,
    const struct cb_env *, const struct admin_args *, const char *reason,
    struct cb_effects *);
int	admin_each(struct cb_ctx *, const struct admin_args *,
	    const char *what, int create, admin_fn);

/* RUN-OPTIONS, shared by run and `config show` (run-opts.c). */
#define RUN_MAX_OPTS	CMD_MAX_OPTS
struct run_value {
	enum policy_key	 key;
	const char	*value;
	char		**list;		/* a list key's value, read by
					 * libconfig; NULL: none */
};
struct run_opts {
	struct run_value v[RUN_MAX_OPTS];	/* in command-line order */
	int		 nv;
	int		 foreground;
	int64_t		 wait_ms;	/* --wait; 0: none */
};
extern const struct cmd_opt	run_grammar[];

/*
 * Turn RUN-OPTIONS parsed by run_grammar into ro.  Returns 0, or -1 after
 * printing an error prefixed with a->what (an -o that is not KEY=VALUE
 * of a known key, a list value libconfig cannot read).
 */
int	run_options(const struct cmd_args *, struct run_opts *);
/* Free the lists run_options read (ro's values must outlive every policy
 * made of them). */
void	run_options_free(struct run_opts *);
/* Lay ro's values over b as LAYER_CLI ("command line").  Returns 0, or -1
 * after printing. */
int	run_apply(const char *cmd, const struct run_opts *,
	    struct policy_builder *);
/* 1 when ro's own on_open (--on-open, -o on_open=) is fail: a script
 * that asked to know, which a trip --on-open skip window never hides
 * (SPEC 1). */
int	run_asks_fail(const struct run_opts *);
/* The refusal line of run and acquire (nothing with -q). */
void	run_refusal(struct cb_ctx *, const char *name,
	    const struct cb_ticket *);

/* ---- busy.c ---- */

/*
 * A busy refusal (SPEC 2b), nothing with -q: "NAME: busy, 1 of 1 running
 * (pid 4242 since 10:03:12)", the holder's host named when it is another.
 */
void	busy_refusal(struct cb_ctx *, const char *name,
	    const struct cb_ticket *);

/*
 * The --wait D of run and acquire for a free run slot: start it, ask
 * whether time is left (then a busy refusal is not final), and sleep
 * before asking the store again: 50ms at first, doubled up to 1s, never
 * past the end.  busy_wait_sleep returns 0, the signal that ended the
 * sleep (SIGINT, SIGTERM, SIGHUP, SIGQUIT: consumed), or -1 with err.
 */
#define BUSY_WAIT_FIRST_MS	50	/* the first sleep (step_ms) */
struct busy_wait {
	int64_t	deadline_ms;	/* monotonic; 0: no wait */
	int64_t	step_ms;	/* the next sleep */
};
void	busy_wait_start(struct busy_wait *, int64_t wait_ms);
int	busy_wait_left(const struct busy_wait *);
int	busy_wait_sleep(struct busy_wait *, struct cb_err *);
/*
 * After a refusal: whether to ask again, and the sleep before.
 * busy_retry: 1 when t is busy and time is left, or rate limited (SPEC
 * 2d) with its turn coming within what is left (else the refusal stands
 * at once: no pointless wait).  busy_sleep: busy_wait_sleep, or for a
 * rate limited t a sleep until its turn; returns as busy_wait_sleep.
 * busy_wait_left_ms: the ms left of the wait, 0 when none.
 */
int	busy_retry(const struct busy_wait *, const struct cb_ticket *);
int	busy_sleep(struct busy_wait *, const struct cb_ticket *,
	    struct cb_err *);
int64_t	busy_wait_left_ms(const struct busy_wait *);
/* The rate limited refusal's line (SPEC 2d), unless quiet. */
void	rate_refusal(struct cb_ctx *, const char *name,
	    const struct cb_ticket *);
/* --wait's argument: a duration.  Returns 0, or -1 after printing. */
int	busy_wait_arg(const char *what, const char *arg, int64_t *ms);

extern const struct cmd_entry	cmd_acquire_entry;
extern const struct cmd_entry	cmd_config_entry;
extern const struct cmd_entry	cmd_release_entry;
extern const struct cmd_entry	cmd_run_entry;
extern const struct cmd_entry	cmd_check_entry;
extern const struct cmd_entry	cmd_status_entry;
extern const struct cmd_entry	cmd_reset_entry;
extern const struct cmd_entry	cmd_trip_entry;
extern const struct cmd_entry	cmd_forget_entry;
extern const struct cmd_entry	cmd_gc_entry;
extern const struct cmd_entry	cmd_help_entry;

#endif
