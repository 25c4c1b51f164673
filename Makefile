# cbexec: a circuit breaker in front of any command.
#
#   make            build ./cbexec
#   make deps       install the Debian packages the build and tests need
#   make check      unit tests, man page lint, bats suite; then all again
#                   under ASan+UBSan (SANITIZE=0 skips that second pass)
#   make install    PREFIX=/usr/local DESTDIR=
#   make bench      performance figures (never part of check)

VERSION	= 0.1.0
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man

SHELL	= /bin/bash
.SHELLFLAGS = -o pipefail -c

PKGS	= lmdb libconfig
CC	?= cc
CFLAGS	?= -O2 -g
CFLAGS	+= -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -D_FORTIFY_SOURCE=2 -D_GNU_SOURCE \
	   -DCBEXEC_VERSION='"$(VERSION)"' $(shell pkg-config --cflags $(PKGS))
LDLIBS	+= $(shell pkg-config --libs $(PKGS))

# Build directory: build/ normally, build-san/ for the sanitizer pass.
ifeq ($(SANITIZE),1)
B	= build-san
CFLAGS	+= -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all
LDFLAGS	+= -fsanitize=address,undefined
else
B	= build
endif

# The pure core: links without -llmdb or -lconfig (the unit tests prove it).
PURE	= util policy record breaker classify name
IO	= clock config store-lmdb spawn cmd cmd-admin cmd-run cmd-check \
	  cmd-status cmd-reset cmd-trip cmd-forget cmd-help cbexec
OBJS	= $(PURE:%=$(B)/%.o) $(IO:%=$(B)/%.o)
PUREOBJS = $(PURE:%=$(B)/%.o)

ifeq ($(SANITIZE),1)
all: $(B)/cbexec
else
all: cbexec
endif

cbexec: $(B)/cbexec
	cp -f $(B)/cbexec $@

$(B)/cbexec: $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

UNITOBJS = $(B)/unit.o $(B)/unit-core.o $(B)/unit-policy.o

$(B)/unit: $(UNITOBJS) $(PUREOBJS)
	$(CC) $(LDFLAGS) -o $@ $(UNITOBJS) $(PUREOBJS) -lm

$(B)/unit.o: tests/unit.c | $(B)
	$(CC) $(CFLAGS) -Isrc -MMD -MP -c -o $@ $<

$(B)/unit-%.o: tests/unit-%.c | $(B)
	$(CC) $(CFLAGS) -Isrc -MMD -MP -c -o $@ $<

$(B)/%.o: src/%.c | $(B)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(B):
	mkdir -p $@

-include $(wildcard $(B)/*.d)

# Debian packages for building and testing; `make deps` installs the
# missing ones.
DEBS	= gcc make libc6-dev pkg-config liblmdb-dev libconfig-dev lmdb-utils \
	  bats bats-assert bats-support faketime mandoc shellcheck jq procps
SUDO	= $(shell [ "$$(id -u)" = 0 ] || echo sudo)

deps:
	@missing=$$(for p in $(DEBS); do \
		dpkg-query -W -f='$${db:Status-Abbrev}' $$p 2>/dev/null | \
		    grep -q '^ii' || printf ' %s' $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -q && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive \
		    apt-get install -y -q --no-install-recommends $$missing; \
	else \
		echo "deps: all build and test dependencies are installed"; \
	fi

# Every pass appends "PASSED FAILED" to $(COUNTS); check sums them into the
# closing line.
COUNTS	= build/.check-counts
TAPSUM	= awk '/^ok /{p++} /^not ok /{f++} {print} \
	  END{printf "%d %d\n", p, f > "/dev/stderr"}'

check:
	@mkdir -p build && : > $(COUNTS)
	@$(MAKE) --no-print-directory check-one SANITIZE=0
	@if [ "$(SANITIZE)" != 0 ]; then \
		$(MAKE) --no-print-directory check-one SANITIZE=1; fi
	@awk '{p+=$$1; f+=$$2} END{printf "check: %d passed, %d failed\n", \
	    p, f; exit !(p > 0 && f == 0)}' $(COUNTS)

# ASan is not first in the library list when faketime is preloaded.
SANENV	= ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:exitcode=86 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

check-one: $(B)/cbexec $(B)/unit lint
	@echo "== unit tests ($(B))"
	@$(SANENV) $(B)/unit
	@echo "== bats ($(B))"
	@$(SANENV) CBEXEC=$(abspath $(B)/cbexec) bats --tap tests | \
	    $(TAPSUM) 2>>$(COUNTS) || true

lint:
	mandoc -T lint -W warning man/cbexec.1 man/cbexec.conf.5
	shellcheck -s bash tests/helper.bash .ci/run

install: $(B)/cbexec
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(B)/cbexec $(DESTDIR)$(BINDIR)/cbexec
	install -m 644 man/cbexec.1 $(DESTDIR)$(MANDIR)/man1/cbexec.1
	install -m 644 man/cbexec.conf.5 $(DESTDIR)$(MANDIR)/man5/cbexec.conf.5

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cbexec $(DESTDIR)$(MANDIR)/man1/cbexec.1 \
	    $(DESTDIR)$(MANDIR)/man5/cbexec.conf.5

clean:
	rm -rf build build-san cbexec

.PHONY: all deps check check-one lint install uninstall bench clean
