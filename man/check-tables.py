#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# check-tables.py PAGE...: render each mdoc PAGE with mandoc and fail when
# a table row lost words on the way.  In a `.Bl -column` row every word is
# parsed, so a cell that begins with a word that is also a macro name (An,
# No, At, In, ...) loses that word silently ("An error" renders "error"),
# and `mandoc -T lint` says nothing.  For each row this takes the first
# words of every cell as the source spells them (a cell that begins with a
# formatting macro such as Sy or Cm is skipped) and requires the rendered
# page to hold them, in order, on one line.  Exit 0 when every row is
# intact, 1 after naming each damaged one as FILE:LINE.
import re
import subprocess
import sys

# Macros a cell may begin with on purpose: their words are not plain text.
FORMATTING = set("""Ar Cm Dq Dv Em Er Ev Fa Fl Fn Ic Li Nm Pa Ql Qq Sq Sx Sy
    Va Vt Xr Pq Po Pc Ns Ms Lk Mt""".split())


def rendered(page):
    out = subprocess.run(["mandoc", "-T", "ascii", "-O", "width=200", page],
                         check=True, capture_output=True).stdout
    # Drop the overstrike of bold and underline (col -b).
    text = re.sub(rb".\x08", b"", out).decode("utf-8", "replace")
    return [" ".join(line.split()) for line in text.splitlines()]


def unescape(word):
    """The word as rendered, or None when its escapes are not simple."""
    word = word.replace("\\&", "").replace("\\-", "-").replace("\\e", "\\")
    return None if "\\" in word else word


def rows(page):
    depth = []
    with open(page, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith(".Bl"):
                depth.append("-column" in line.split())
            elif line.startswith(".El"):
                if depth:
                    depth.pop()
            elif depth and depth[-1] and line.startswith(".It"):
                yield n, line[3:]


def cells(args):
    cell = []
    for w in args.split():
        if w == "Ta":
            yield cell
            cell = []
        else:
            cell.append(w)
    yield cell


def check(page):
    lines = rendered(page)
    bad = 0
    for n, args in rows(page):
        want = []
        for cell in cells(args):
            if not cell or cell[0] in FORMATTING:
                want.append(None)
                continue
            words = []
            for w in cell:
                if w in FORMATTING:
                    break
                u = unescape(w)
                if u is None:
                    break
                words.append(u)
            want.append(" ".join(words) if words else None)
        parts = [re.escape(w) for w in want if w]
        if not parts:
            continue
        pat = re.compile(r"(^|\s)" + r"\s.*?".join(parts))
        if not any(pat.search(line) for line in lines):
            print("%s:%d: table row lost words when rendered: '%s' is not "
                  "on any line (a word that is also an mdoc macro "
                  "needs \\& before it)" % (page, n, " | ".join(w for w in want if w)))
            bad += 1
    return bad


def main():
    if len(sys.argv) < 2:
        print("usage: check-tables.py PAGE...", file=sys.stderr)
        return 2
    return 1 if sum(check(p) for p in sys.argv[1:]) else 0


if __name__ == "__main__":
    sys.exit(main())
