#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# check-render.py PAGE...: render each mdoc PAGE as people read it, with
# man-db (man -l, groff) and with mandoc, at 80 and at 60 columns, and fail
# when a line runs past the margin or a quotation mark is never closed (a
# nested .Dq opens a second quote before the first one closes), or a
# closing bracket lands after the quote that should hold it (mdoc takes a
# lone "]" at the end of .Ql for a delimiter: write "\&]").  Exit 0
# when every rendering is clean, 1 after naming each fault as
# PAGE: RENDERER WIDTH: line N: what.
import os
import re
import subprocess
import sys

WIDTHS = (80, 60)
PAIRS = {"\u201d": "\u201c", "\u2019": "\u2018"}


def render(page, how, width):
    env = dict(os.environ, LC_ALL="C.UTF-8", MANWIDTH=str(width),
               MAN_KEEP_FORMATTING="", MANROFFOPT="", GROFF_NO_SGR="1")
    for v in ("MANPAGER", "PAGER", "MANOPT", "MANROFFSEQ"):
        env.pop(v, None)
    if how == "man":
        cmd = ["man", "--nj", "-l", page]
    else:
        cmd = ["mandoc", "-T", "utf8", "-O", "width=%d" % width, page]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True,
                         stdin=subprocess.DEVNULL).stdout
    # Drop the overstrike of bold and underline (col -b), and any SGR.
    text = out.decode("utf-8")
    text = re.sub(r".\x08", "", text)
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    return text.splitlines()


def faults(lines, width):
    """Each (line number, what) wrong in one rendering."""
    open_at = []               # (mark, line) of each quote still open
    for n, line in enumerate(lines, 1):
        text = line.expandtabs(8).rstrip()
        if len(text) > width:
            yield n, "%d columns: %s" % (len(text), text.strip())
        if "\u2019]" in text:
            yield n, "a bracket moved out of its quote: %s" % text.strip()
        if not text:
            for mark, at in open_at:
                yield at, "quote %s never closed" % mark
            open_at = []
            continue
        for i, c in enumerate(text):
            if c in PAIRS.values():
                if any(m == c for m, _ in open_at):
                    yield n, "quote %s opened inside another: %s" % (
                        c, text.strip())
                open_at.append((c, n))
            elif c in PAIRS:
                # A lone U+2019 after a letter is an apostrophe.
                if open_at and open_at[-1][0] == PAIRS[c]:
                    open_at.pop()
                elif not (i > 0 and text[i - 1].isalnum()):
                    yield n, "quote %s closes nothing: %s" % (c, text.strip())
    for mark, at in open_at:
        yield at, "quote %s never closed" % mark


def main(pages):
    bad = 0
    for page in pages:
        for how in ("man", "mandoc"):
            for width in WIDTHS:
                for n, what in faults(render(page, how, width), width):
                    print("%s: %s %d: line %d: %s" % (page, how, width, n,
                                                       what))
                    bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
