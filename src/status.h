/* SPDX-License-Identifier: ISC */
/*
 * status.h: what the four files of `cbexec status` share (internal).
 * status.c parses the options, walks the store and calls, for each record
 * that matches, the format's add function; after the walk, the format's
 * print function.  status-text.c has the table and the detail view,
 * status-json.c --json and status-prom.c --prometheus.  --names is one
 * line in status.c.
 */
#ifndef CBEXEC_STATUS_H
#define CBEXEC_STATUS_H

#include <stdint.h>
#include <stdio.h>

#include "breaker.h"
#include "cmd.h"
#include "out.h"
#include "record.h"

enum status_format {
	FMT_TABLE,
	FMT_DETAIL,
	FMT_JSON,
	FMT_NAMES,
	FMT_PROM
};

struct status_row;		/* status-text.c */
struct status_prow;		/* status-prom.c */

struct status_walk {
	struct cb_ctx		 *ctx;
	enum status_format	  fmt;
	FILE			 *out;
	int			  colour;	/* ANSI colour on out */
	int			  utf8;		/* UTF-8 marks */
	int			  unreadable_shared;	/* the shared state is
					 * there, not ours to read, and what we
					 * show is empty (SPEC 7) */
	char			**pats;
	int			  npats;
	int			 *hit;		/* per pattern */
	int64_t			  now;
	size_t			  n;		/* records shown */
	unsigned long		  unreadable;	/* records named on stderr */
	struct cb_env		  env;		/* judges run slot holders */
	struct cb_record	  rec;		/* the record being shown */

	struct obuf		 *ob;		/* --json, --prometheus */
	struct json_writer	  jw;		/* --json */

	struct status_row	 *rows;		/* the table */
	size_t			  nrows, caprows;
	struct cb_policy	 *pol;		/* by config entry */
	uint8_t			 *polset;

	struct status_prow	 *prows;	/* --prometheus */
	size_t			  nprows, capprows;
};

/*
 * Each add function shows or keeps w->rec, the record of name; those that
 * can fail return -1 with a message printed (the walk then stops).  The
 * free functions release what the adds kept.
 */
int	status_text_detail(struct status_walk *, const char *name);
int	status_table_add(struct status_walk *, const char *name);
void	status_table_print(struct status_walk *);
void	status_table_free(struct status_walk *);

/*
 * Shared by the detail view and the table (status-text.c): "5m ago" (or
 * "-" for then 0), the wait before the next probe ("23s", "-"), and the
 * policy NAME's record would run under now (the config's, over which the
 * record's snapshot lies; -1 after printing).
 */
void	status_ago(int64_t now, int64_t then, char *buf, size_t len);
void	status_retry_in(const struct cb_record *, int64_t now, char *buf,
	    size_t len);
int	status_policy_of(struct cb_ctx *, const char *name,
	    struct cb_policy *);
/* The config's policy of NAME, built once per config entry; NULL after
 * printing. */
const struct cb_policy	*status_row_policy(struct status_walk *,
			    const char *name);
/* How long w->rec, NAME's record, is overdue (breaker_overdue), and its
 * expect_every in *every (0: none). */
int64_t	status_overdue(struct status_walk *, const char *name,
	    int64_t *every);

void	status_json_begin(struct status_walk *);
void	status_json_add(struct status_walk *, const char *name, size_t);
void	status_json_end(struct status_walk *);

void	status_prom_add(struct status_walk *, const char *name);
void	status_prom_print(struct status_walk *);
void	status_prom_free(struct status_walk *);

#endif
