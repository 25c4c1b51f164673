/*
 * cmd.h: the command table and what every command shares.  Each command
 * lives in its own cmd-*.c and exports one struct cmd_entry; cmd.c lists
 * them.  A command returns its exit status instead of exiting, and prints
 * its own messages (cmd_warn / cmd_warnx); nothing below the cmd layer
 * prints.
 */
#ifndef CBEXEC_CMD_H
#define CBEXEC_CMD_H

#include <signal.h>

#include "breaker.h"
#include "config.h"
#include "policy.h"
#include "store.h"
#include "util.h"

/* Exit statuses (SPEC section 6). */
#define EXIT_OK		0
#define EXIT_FAIL	1	/* non-run commands: operation failed */
#define EXIT_USAGE	2	/* non-run commands: bad usage */
#define EXIT_TIMEOUT	124
#define EXIT_CBEXEC	125	/* run: cbexec itself failed */
#define EXIT_NOEXEC	126
#define EXIT_NOTFOUND	127

/* Global state: options given before the command, lazily loaded config
 * and store. */
struct cb_ctx {
	const char		*config_path;	/* -c, or NULL */
	const char		*state_path;	/* -s, or NULL */
	int			 quiet;		/* -q */
	int			 verbose;	/* -v */

	int			 cfg_loaded;
	int			 cfg_failed;	/* reported; not tried again */
	int			 cfg_missing;	/* ... as a -c file that is not
						 * there: a usage error */
	struct cb_config	 cfg;
	char			*state;		/* resolved state path */
	struct store		*store;
	int			 have_boot_id;
	uint8_t			 boot_id[16];
	/* The signal mask cbexec started with, for the children it starts
	 * while it blocks signals itself (run; see spawn_block). */
	int			 have_mask;
	sigset_t		 mask;
};

struct cmd_entry {
	const char	*name;
	const char	*usage;		/* after "cbexec [GLOBAL] NAME " */
	const char	*summary;	/* one line for `cbexec --help` */
	const char	*help;		/* option lines for `help NAME` */
	/* argv[0] is the command's name; returns the exit status. */
	int		(*exec)(struct cb_ctx *, int argc, char **argv);
};

extern const struct cmd_entry	*const cmd_table[];
const struct cmd_entry		*cmd_find(const char *);

/* "cbexec: " + message + "\n" on stderr; cmd_warn appends strerror(errno). */
void	cmd_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	cmd_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
/* Print "usage: cbexec NAME USAGE" and return EXIT_USAGE (or
 * EXIT_CBEXEC for run). */
int	cmd_usage(const struct cmd_entry *, int status);

/*
 * Load the config once (config_load with -c).  Returns 0, or -1 after
 * printing every problem the file has, one line each (once: later calls
 * return -1 quietly).  On -1, cfg_missing is set when the file named by -c
 * or CBEXEC_CONFIG does not exist, a usage error; otherwise the file
 * cannot be used (SPEC section 4): run then runs unguarded, check admits,
 * the other commands fail.
 */
int	cmd_config(struct cb_ctx *);

/*
 * The state path: -s, $CBEXEC_STATE, config `state`, else
 * /var/lib/cbexec/state.mdb for root and $XDG_STATE_HOME/cbexec/state.mdb
 * (default ~/.local/state/cbexec/state.mdb) for others.  Needs the config.
 * Returns NULL after printing when it cannot be worked out (no HOME).
 */
const char	*cmd_state_path(struct cb_ctx *);

/*
 * Open the store once.  Returns it, or NULL with err filled (the caller
 * decides how to report: run follows on_store_error, others exit 1).
 * readonly: for status/check-style readers: a missing state file is then
 * no error but an empty store (NULL with *missing set).
 */
struct store	*cmd_store(struct cb_ctx *, int readonly, int *missing,
		    struct cb_err *);

/*
 * Replace the store with the local LMDB file (the state path rules with
 * every Redis URL skipped), for fallback = "local" when Redis cannot be
 * used.  Returns it, or NULL with err filled.
 */
struct store	*cmd_store_local(struct cb_ctx *, struct cb_err *);

/*
 * The policy for NAME from the config; command-line values are then added
 * by the caller with policy_set(..., LAYER_CLI, "command line", ...).
 * Returns 0, or -1 after printing.
 */
int	cmd_policy(struct cb_ctx *, const char *name, struct policy_builder *);

/*
 * Check NAME against SPEC section 1: 1 to 200 bytes of
 * A-Z a-z 0-9 . _ - : @ / +, not beginning with '-'.  Returns 0, or -1
 * with a message naming the offending byte ("invalid breaker name 'a b':
 * byte 0x20 at offset 1").
 */
int	cmd_name_valid(const char *, struct cb_err *);

/* A wait as users read it: whole seconds, rounded up ("23s", "4m10s"). */
void	cmd_format_wait(int64_t, char *, size_t);

/* Who is acting, for manual transitions: the user name, or "uid N". */
const char	*cmd_user(void);

/*
 * Decode NAME's stored record; on failure err names the breaker and the
 * state file.  Returns 0 or -1.
 */
struct cb_record;
int	cmd_decode(struct cb_ctx *, const char *name, const uint8_t *,
	    size_t, struct cb_record *, struct cb_err *);

/*
 * The environment of a breaker step taken now: the wall clock, a jitter
 * draw, and the liveness oracle for probe holders on this host (alive while
 * the pid exists with the start time it had, in this boot).
 */
struct cb_env;
void		 cmd_env(struct cb_ctx *, struct cb_env *);
const uint8_t	*cmd_boot_id(struct cb_ctx *);

/*
 * Report what the last store update evicted to stay within max_breakers:
 * a warning for an open or half-open breaker (evicted only when every
 * breaker was open), a note with -v for the others.  Call after every
 * update that may create a record (run, trip, acquire).
 */
void	cmd_evictions(struct cb_ctx *);

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
	struct cb_ticket	 ticket;
	struct cb_run		 run;
	enum cb_outcome		 counted;	/* as cmd_record_cb counted it */
	struct cb_effects	 fx;
	struct cb_record	 rec;
};

int	cmd_admit_cb(const uint8_t *, size_t, struct cb_buf *, void *,
	    struct cb_err *);
int	cmd_record_cb(const uint8_t *, size_t, struct cb_buf *, void *,
	    struct cb_err *);

/*
 * Log the transitions a step made and start their on_transition hooks
 * (SPEC section 5).  The hooks run in the background, alongside what the
 * command does next; cmd_hooks_wait() (called by main before exit)
 * finishes them, killing each hook's process group five seconds after it
 * started at the latest.
 */
struct cb_effects;
void	cmd_transitions(struct cb_ctx *, const char *name,
	    const struct cb_effects *);
void	cmd_hooks_wait(struct cb_ctx *);

/* Operands and options of reset, trip and forget (cmd-admin.c). */
struct admin_args {
	int		  want_reason;	/* set by the caller: --reason ok */
	int		  want_for;	/* --for allowed */
	const char	 *reason;
	int64_t		  for_ms;
	char		**names;	/* operands: NAMEs and GLOBs */
	int		  nnames;
};

/*
 * Parse argv (argv[0] the command name) into a, checking every NAME (an
 * operand with *, ? or [ is a GLOB, an fnmatch(3) pattern).  Returns 0; 1
 * after printing --help; -1 after printing a usage error.
 */
int	admin_parse(const struct cmd_entry *, int, char **,
	    struct admin_args *);

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
struct cb_record;
struct cb_effects;
typedef void (*admin_fn)(struct cb_record *, const struct cb_policy *,
    const struct cb_env *, const struct admin_args *, const char *reason,
    struct cb_effects *);
int	admin_each(struct cb_ctx *, const struct admin_args *,
	    const char *what, int create, admin_fn);

/* RUN-OPTIONS, shared by run and `config show` (cmd-run.c). */
#define RUN_MAX_OPTS	64
struct run_value {
	enum policy_key	 key;
	const char	*value;
};
struct run_opts {
	struct run_value v[RUN_MAX_OPTS];	/* in command-line order */
	int		 nv;
	int		 foreground;
	int		 help;		/* -h or --help seen: stop there */
};

/*
 * Parse RUN-OPTIONS from argv (argv[0] is NAME and is skipped), stopping at
 * "--" or at the first word that is not an option.  Returns the index of
 * that word (argc when none), or -1 after printing an error prefixed with
 * cmd.
 */
int	run_options(const char *cmd, int argc, char **argv, struct run_opts *);
/* Lay ro's values over b as LAYER_CLI ("command line").  Returns 0, or -1
 * after printing. */
int	run_apply(const char *cmd, const struct run_opts *,
	    struct policy_builder *);
/* The refusal line of run and acquire (nothing with -q). */
struct cb_ticket;
void	run_refusal(struct cb_ctx *, const char *name,
	    const struct cb_ticket *);

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
