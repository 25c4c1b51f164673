/* SPDX-License-Identifier: ISC */
/*
 * held.h: the command's own output held back (run's output = on-failure
 * or on-change, SPEC 6.5), in two unlinked temporary files, stdout's and
 * stderr's, that the command gets as its descriptors 1 and 2, so that a
 * 2 GB dump never sits in cbexec's memory.  After the run the caller
 * decides: written out (stdout's file to stdout, then stderr's to
 * stderr; each stream in order, their interleaving not kept, as with
 * chronic) or dropped.  A file that cannot be made leaves the output to
 * pass through, and the caller says so.
 */
#ifndef CBEXEC_HELD_H
#define CBEXEC_HELD_H

struct held {
	int	on;		/* holding: fd[] are open */
	int	fd[2];		/* stdout's, stderr's (close-on-exec, > 2) */
	int	err;		/* !on: the errno that stopped it, or 0 */
};

/*
 * Make the two files in $TMPDIR (or /tmp when unset or empty): O_TMPFILE,
 * else mkstemp and unlink.  Returns 0 with h->on set, or -1 with nothing
 * open, h->on clear and h->err the reason (ENOSPC, EROFS, EMFILE, ...).
 */
int	held_open(struct held *h);

/*
 * The end of a run: with show, write out what was held (stdout's, then
 * stderr's), then empty both files for the next run (--retries).  Returns
 * 0; 1 when the output may have been cut (the files' file system was full,
 * so that the command's writes could fail with ENOSPC); -1 when a read or
 * a write failed, with errno set (the output is then incomplete).
 */
int	held_end(struct held *h, int show);

/* Close both files; h->on cleared.  Nothing when not holding. */
void	held_close(struct held *h);

#endif
