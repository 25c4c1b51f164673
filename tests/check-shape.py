#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
#
# check-shape.py: the shape of src/ that `make lint` keeps (HACKING.md).
#
#   check-shape.py SRCDIR OBJDIR
#
# Fails, naming what it found, on:
#   - a file in SRCDIR over 700 lines;
#   - a function over 100 lines, counted from its first line to its last
#     as universal-ctags reports them (--fields=+ne);
#   - a cycle between SRCDIR's modules.  A module is X.c with X.h (a
#     header with no .c, such as store.h, is a module of its own); an
#     arrow X -> Y is an `#include "Y.h"` in X.c, or a global symbol that
#     X.o uses and Y.o defines (nm).  A header's own includes are the
#     types it is written in, not arrows, and X.c including a header that
#     declares what X.c defines (breaker-trip.c and breaker.h) implements
#     it: no arrow either.  Every pair of modules has one
#     direction at most: what two modules both need belongs in a third one
#     below them.
import functools
import os
import re
import subprocess
import sys

MAX_FILE = 700
MAX_FUNC = 100
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def module(path):
	base = os.path.basename(path)
	return re.sub(r'\.(c|h|o)$', '', base)


def includes(srcdir, objdir, edges):
	for f in sorted(os.listdir(srcdir)):
		if not f.endswith('.c'):
			continue
		with open(os.path.join(srcdir, f), encoding='utf-8') as fh:
			for n, line in enumerate(fh, 1):
				m = INCLUDE.match(line)
				if not m:
					continue
				a, b = module(f), module(m.group(1))
				hdr = os.path.join(srcdir, m.group(1))
				if a != b and os.path.exists(hdr) and \
				    not implements(objdir, f, hdr):
					edges.setdefault((a, b),
					    '%s:%d includes "%s"' %
					    (f, n, m.group(1)))


def implements(objdir, cfile, hdr):
	"""Does cfile define a global symbol that hdr declares?  Then hdr is
	(in part) cfile's own interface, as breaker.h is breaker-trip.c's."""
	obj = os.path.join(objdir, module(cfile) + '.o')
	if not os.path.exists(obj):
		return False
	with open(hdr, encoding='utf-8') as fh:
		words = set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', fh.read()))
	return any(sym in words for sym in nm(obj, ['-g', '--defined-only']))


@functools.lru_cache(maxsize=None)
def nm_cached(obj, flags):
	out = subprocess.run(['nm', '-P'] + list(flags) + [obj], check=True,
	    capture_output=True, text=True).stdout
	return tuple(line.split()[0] for line in out.splitlines() if line)


def nm(obj, flags):
	"""Once per object and flags: implements() asks for each include."""
	return list(nm_cached(obj, tuple(flags)))


def calls(srcdir, objdir, edges):
	objs = [os.path.join(objdir, module(f) + '.o')
	    for f in sorted(os.listdir(srcdir)) if f.endswith('.c')]
	objs = [o for o in objs if os.path.exists(o)]
	definer = {}
	for o in objs:
		for sym in nm(o, ['-g', '--defined-only']):
			definer[sym] = module(o)
	for o in objs:
		a = module(o)
		for sym in nm(o, ['-u']):
			b = definer.get(sym)
			if b is not None and b != a:
				edges.setdefault((a, b),
				    '%s.c uses %s from %s.c' % (a, sym, b))


def cycles(edges):
	"""Tarjan's strongly connected components; one cycle from each."""
	graph = {}
	for a, b in edges:
		graph.setdefault(a, []).append(b)
		graph.setdefault(b, [])
	for v in graph.values():
		v.sort()
	index, low, stack, onstack, comps = {}, {}, [], set(), []

	def visit(v):
		index[v] = low[v] = len(index)
		stack.append(v)
		onstack.add(v)
		for w in graph[v]:
			if w not in index:
				visit(w)
				low[v] = min(low[v], low[w])
			elif w in onstack:
				low[v] = min(low[v], index[w])
		if low[v] == index[v]:
			comp = []
			while True:
				w = stack.pop()
				onstack.discard(w)
				comp.append(w)
				if w == v:
					break
			if len(comp) > 1:
				comps.append(sorted(comp))

	sys.setrecursionlimit(10000)
	for v in sorted(graph):
		if v not in index:
			visit(v)
	found = []
	for comp in comps:
		members = set(comp)
		start = comp[0]
		# Breadth-first from start back to start inside the component:
		# the shortest cycle through it.
		prev, queue = {start: None}, [start]
		end = None
		while queue and end is None:
			v = queue.pop(0)
			for w in graph[v]:
				if w not in members:
					continue
				if w == start:
					end = v
					break
				if w not in prev:
					prev[w] = v
					queue.append(w)
		path = [start]
		v = end
		while v is not None and v != start:
			path.append(v)
			v = prev[v]
		path = [start] + list(reversed(path[1:])) + [start]
		found.append((comp, path))
	return found


def functions(srcdir):
	bad = []
	for f in sorted(os.listdir(srcdir)):
		if not f.endswith('.c'):
			continue
		out = subprocess.run(['ctags', '--c-kinds=f', '--fields=+ne',
		    '-o', '-', os.path.join(srcdir, f)], check=True,
		    capture_output=True, text=True).stdout
		for line in out.splitlines():
			name = line.split('\t', 1)[0]
			start = re.search(r'\tline:(\d+)', line)
			end = re.search(r'\tend:(\d+)', line)
			if not (start and end):
				continue
			n = int(end.group(1)) - int(start.group(1)) + 1
			if n > MAX_FUNC:
				bad.append('%s:%s: %s is %d lines, over %d' %
				    (f, start.group(1), name, n, MAX_FUNC))
	return bad


def main():
	if len(sys.argv) != 3:
		print('usage: check-shape.py SRCDIR OBJDIR', file=sys.stderr)
		return 2
	srcdir, objdir = sys.argv[1], sys.argv[2]
	problems = []
	for f in sorted(os.listdir(srcdir)):
		if f.endswith(('.c', '.h')):
			with open(os.path.join(srcdir, f), 'rb') as fh:
				n = sum(1 for _ in fh)
			if n > MAX_FILE:
				problems.append('%s: %d lines, over %d' %
				    (f, n, MAX_FILE))
	problems += functions(srcdir)
	edges = {}
	includes(srcdir, objdir, edges)
	calls(srcdir, objdir, edges)
	for comp, path in cycles(edges):
		problems.append('cycle between %s: %s' % (', '.join(comp),
		    ' -> '.join(path)))
		for a, b in zip(path, path[1:]):
			problems.append('    %s -> %s: %s' % (a, b, edges[(a, b)]))
	for p in problems:
		print('check-shape: ' + p, file=sys.stderr)
	if problems:
		return 1
	print('check-shape: %d modules, %d arrows, no cycle' %
	    (len({m for e in edges for m in e}), len(edges)))
	return 0


if __name__ == '__main__':
	sys.exit(main())
