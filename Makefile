# SPDX-License-Identifier: ISC
# cbexec: a circuit breaker in front of any command.
#
#   make            build ./cbexec
#   make deps       install the Debian packages the build and tests need
#   make check      man page lint, then unit tests and bats suite; then
#                   both again under ASan+UBSan (SANITIZE=0 skips that)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deb        cbexec_VERSION_ARCH.deb (debian/), checked by lintian
#   make bench      performance figures (never part of check)
#   make fuzz       libFuzzer harnesses, FUZZ_RUNS (1000000) executions each
#   make stress     full load and chaos drivers (tests/stress/)

VERSION	= 0.3.0
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
# Where each shell looks on Debian, with no XDG_DATA_DIRS set, in a fresh
# login shell.  bash-completion: PREFIX/share/bash-completion/completions
# for /usr and /usr/local alike.  zsh's fpath holds
# /usr/local/share/zsh/site-functions (for the local admin) and
# /usr/share/zsh/vendor-completions (for packages); other prefixes get
# site-functions, the usual name, to add to fpath.  fish looks in
# /usr/share/fish/vendor_completions.d, in ~/.local/share/fish/
# vendor_completions.d and, for the local admin, in /etc/fish/completions;
# PREFIX/share/fish/vendor_completions.d only when XDG_DATA_DIRS names
# PREFIX/share, so a /usr/local install goes to /etc/fish/completions.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ifeq ($(PREFIX),/usr)
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
else ifeq ($(PREFIX),/usr/local)
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= /etc/fish/completions
else
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
endif

SHELL	= /bin/bash
.SHELLFLAGS = -o pipefail -c

PKGS	= lmdb libconfig

# The Redis fleet store (SPEC section 9) is built when pkg-config finds
# hiredis; WITH_REDIS=0 leaves it out (a redis:// state is then an error).
ifndef WITH_REDIS
WITH_REDIS := $(shell pkg-config --exists hiredis 2>/dev/null && echo 1 || echo 0)
endif
ifeq ($(WITH_REDIS),1)
PKGS	+= hiredis
REDISFLAGS = -DCBEXEC_REDIS
endif

# Flags: CFLAGS, CPPFLAGS and LDFLAGS are the user's (`make CFLAGS='-O1 -g'`,
# or dpkg-buildflags' in a Debian build) and replace only these defaults;
# what the build needs lives in CB_CFLAGS and CB_LDFLAGS, which every rule
# adds.  pkg-config and the compiler probes run once per make (:=).
# -Werror is for the project's own checks (make check, so CI), not for users
# and distributions, whose newer compilers may warn about new things;
# exported so that the makes that check starts (and the tests' makes) agree.
CFLAGS	?= -O2 -g
CPPFLAGS ?= -D_FORTIFY_SOURCE=2
ifneq ($(filter check check-one check-deb,$(MAKECMDGOALS)),)
export WERROR ?= -Werror
endif
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
CB_CFLAGS = -std=c11 -D_GNU_SOURCE -DCBEXEC_VERSION='"$(VERSION)"' \
	   $(REDISFLAGS) $(PKG_CFLAGS) -Wall -Wextra $(WERROR) -Wshadow \
	   -Wstrict-prototypes -Wmissing-prototypes $(SANFLAGS)
ALL_CFLAGS = $(CB_CFLAGS) $(CPPFLAGS) $(CFLAGS)
# Start-up cost (see README, Performance): each shared library is an
# open, five mmaps and a symbol lookup pass for every invocation, about a
# quarter of a closed run's instructions.  So liblmdb and libconfig are
# linked from Debian's static archives when they are installed (STATIC=0
# links them shared); libc stays shared (getpwuid needs NSS).  The shared
# -l flags after -Bdynamic bring in the private dependencies; --as-needed
# drops whatever the archives already satisfied.
ifndef STATIC
STATIC	:= $(if $(and $(wildcard $(shell $(CC) -print-file-name=liblmdb.a)),\
	   $(wildcard $(shell $(CC) -print-file-name=libconfig.a))),1,0)
endif
CB_LDFLAGS = -Wl,-O1,--as-needed $(SANFLAGS)
ALL_LDFLAGS = $(CB_LDFLAGS) $(CFLAGS) $(LDFLAGS)
ifeq ($(STATIC),1)
STATIC_LIBS := $(shell pkg-config --libs-only-l $(PKGS) 2>/dev/null)
LDLIBS	+= -Wl,-Bstatic $(STATIC_LIBS) -Wl,-Bdynamic
endif
PKG_LIBS := $(shell pkg-config --static --libs $(PKGS) 2>/dev/null)
LDLIBS	+= $(PKG_LIBS)

# Build directory: build/ normally, build-san/ for the sanitizer pass.
ifeq ($(SANITIZE),1)
B	= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
	   -fno-sanitize-recover=all
else
B	= build
endif

# Everything is rebuilt when the flags change (-Werror under check, STATIC,
# a new CFLAGS): $(B)/.flags holds the last ones.
FLAGS_NOW := $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) $(LDLIBS)
ifneq ($(FLAGS_NOW),$(file <$(B)/.flags))
$(shell mkdir -p $(B))
$(file >$(B)/.flags,$(FLAGS_NOW))
endif

# The pure core: links without -llmdb or -lconfig (the unit tests prove it).
PURE	= util units preset policy policy-type policy-finish record record-wire record-ext record-decode \
	  record-decode4 breaker \
	  breaker-trip breaker-view breaker-outage slot \
	  classify name hint token sha256 jobmark
IO	= clock config config-layer config-setting conftext statefile store-lmdb \
	  store-lmdb-open store-lmdb-evict store-lmdb-wait store-redis spawn spawn-run \
	  spawn-child spawn-job jobproof \
	  warn cmd ctx call hook cmd-admin cmd-run run-opts probe cmd-check status \
	  status-text status-table \
	  status-json status-prom out cmd-reset cmd-trip cmd-forget cmd-gc \
	  cmd-table cmd-acquire cmd-release cmd-config cbexec
# The one escaper of text from the state (SPEC 5).
PURE	+= esc
IO	+= keys
# What a config named when it last loaded cleanly (SPEC 4).
IO	+= confmemo lastgood stategroup
# The bulkhead's refusal line and --wait (SPEC 2b).
IO	+= busy
# The rate limit's GCRA (SPEC 2d): pure, time passed in.
PURE	+= breaker-rate
# run's output held in temporary files (SPEC 6.5).
IO	+= held
# The Redis store's URL parser (pure) and deadline-bound name lookup; its
# connection and walks only with hiredis (store-redis.c stands alone
# without it).
PURE	+= redis-url
IO	+= resolve
ifeq ($(WITH_REDIS),1)
IO	+= store-redis-conn store-redis-update store-redis-scan store-redis-sentinel
endif
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
	$(CC) $(ALL_LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

UNITOBJS = $(B)/unit.o $(B)/unit-record.o $(B)/unit-record4.o \
	$(B)/unit-record5.o $(B)/unit-jobmark.o \
	$(B)/unit-breaker.o $(B)/unit-rate.o \
	$(B)/unit-classify.o $(B)/unit-policy.o $(B)/unit-token.o
UNITOBJS += $(B)/unit-redis-url.o
# out.o (status's writers) needs libc alone, so it is tested here too.
UNITOBJS += $(B)/unit-out.o $(B)/out.o

$(B)/unit: $(UNITOBJS) $(PUREOBJS)
	$(CC) $(ALL_LDFLAGS) -o $@ $(UNITOBJS) $(PUREOBJS) -lm

$(B)/unit.o: tests/unit.c | $(B)
	$(CC) $(ALL_CFLAGS) -Isrc -MMD -MP -c -o $@ $<

$(B)/unit-%.o: tests/unit-%.c | $(B)
	$(CC) $(ALL_CFLAGS) -Isrc -MMD -MP -c -o $@ $<

$(B)/%.o: src/%.c | $(B)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(B):
	mkdir -p $@

$(OBJS) $(UNITOBJS) $(B)/cbexec $(B)/unit $(B)/hold-writer $(B)/mkrecord: \
    $(B)/.flags

# Rebuild the Redis store when WITH_REDIS changes.
$(B)/store-redis.o: $(B)/.with-redis-$(WITH_REDIS)
$(B)/.with-redis-$(WITH_REDIS): | $(B)
	rm -f $(B)/.with-redis-*
	touch $@

-include $(wildcard $(B)/*.d)

# Debian packages for building and testing; `make deps` installs the
# missing ones.
DEBS	= gcc make libc6-dev pkg-config liblmdb-dev libconfig-dev lmdb-utils \
	  bats bats-assert bats-support parallel faketime mandoc shellcheck jq procps \
	  bsdutils prometheus zsh fish bash-completion \
	  curl wget python3 openssh-client rsync postgresql-client strace \
	  libhiredis-dev redis-server \
	  hyperfine time \
	  clang libclang-rt-14-dev valgrind util-linux \
	  debhelper dpkg-dev lintian fakeroot adduser systemd binutils man-db \
	  universal-ctags
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

# Every pass appends "PASSED FAILED SKIPPED NAME" to $(COUNTS) through
# tests/check-summary.sh, which keeps each command's exit status and holds
# bats to its 1..N plan, and a line "# WHAT" for each failure; `total`
# names the failures, sums the counts into the closing line and fails
# unless something passed and nothing failed.  lint runs once.
COUNTS	= build/.check-counts
SUMMARY	= tests/check-summary.sh

check: lint
	@mkdir -p build && : > $(COUNTS)
	@$(MAKE) --no-print-directory check-one SANITIZE=0
	@$(MAKE) --no-print-directory fuzz-smoke memcheck SANITIZE=0
	@if [ "$(SANITIZE)" != 0 ]; then \
		$(MAKE) --no-print-directory check-one SANITIZE=1; fi
	@$(SUMMARY) total $(COUNTS)

# ASan is not first in the library list when faketime is preloaded.  In
# the sanitizer pass every report also goes to a file in $(SANLOG)
# (log_path), so that one from a process whose status no test checks (a
# background holder, a `|| true`) still fails the pass.
SANLOG	= $(abspath $(B))/san-reports
SANLOGOPT = $(if $(filter 1,$(SANITIZE)),:log_path=$(SANLOG)/$(1))
SANENV	= ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1:exitcode=86$(call SANLOGOPT,asan) \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1$(call SANLOGOPT,ubsan)

# The bats suite runs in two parts.  BATS_ALONE: the files that bound the
# wall-clock time of calls closely or load the machine on purpose; they run
# after the others, one at a time, with nothing beside them.  The others
# run BATS_JOBS files at a time (bats --jobs, with GNU parallel), each
# file's tests in order, the slowest first (BATS_FIRST) so that none is
# left to run on its own at the end.  Twice the cores: most of a test's
# time is spent waiting (for a timeout, a lease, a process).
BATS_ALONE = tests/93-load.bats tests/95-sentinel.bats
BATS_FIRST = tests/97-deb.bats tests/50-state.bats tests/95-redis.bats \
	  tests/77-hooks.bats tests/91-security.bats tests/64-install.bats
# BATS_TREE: the files that test the tree, the build, the package and
# make check itself, and never run the binary under test; the sanitizer
# pass, whose only difference is that binary, leaves them out.
BATS_TREE = tests/64-install.bats tests/65-build.bats tests/65-shape.bats \
	  tests/66-check.bats tests/97-deb.bats
BATS_FILES = $(filter-out $(if $(filter 1,$(SANITIZE)),$(BATS_TREE)), \
	  $(BATS_FIRST) $(filter-out $(BATS_FIRST) $(BATS_ALONE), \
	  $(sort $(wildcard tests/*.bats))))
BATS_JOBS ?= $(shell echo $$((2 * $$(nproc 2>/dev/null || echo 1))))
BATS_PAR = $(if $(filter-out 0 1,$(BATS_JOBS)), \
	  --jobs $(BATS_JOBS) --no-parallelize-within-files)

# A test tool: holds the LMDB writer lock until its stdin closes.
$(B)/hold-writer: tests/hold-writer.c | $(B)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(LDLIBS)

# A test tool: plants a record, fields set to anything (tests/mkrecord.c).
$(B)/mkrecord: tests/mkrecord.c $(PUREOBJS) | $(B)
	$(CC) $(ALL_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ $< $(PUREOBJS) -lm

# One pass: the unit binary and the bats suite with this build ($(B)).
check-one: $(B)/cbexec $(B)/unit $(B)/hold-writer $(B)/mkrecord
	@mkdir -p build && rm -rf $(SANLOG) && mkdir -p $(SANLOG)
	@echo "== unit tests ($(B))"
	@$(SANENV) $(SUMMARY) unit "unit ($(B))" $(COUNTS) $(B)/unit
	@echo "== bats ($(B)), $(BATS_JOBS) files at a time"
	@$(SANENV) CBEXEC=$(abspath $(B)/cbexec) \
	    HOLD_WRITER=$(abspath $(B)/hold-writer) \
	    MKRECORD=$(abspath $(B)/mkrecord) \
	    $(SUMMARY) bats "bats ($(B))" $(COUNTS) \
	    bats --tap $(BATS_PAR) $(BATS_FILES)
	@echo "== bats ($(B)), alone: $(notdir $(BATS_ALONE))"
	@$(SANENV) CBEXEC=$(abspath $(B)/cbexec) \
	    HOLD_WRITER=$(abspath $(B)/hold-writer) \
	    MKRECORD=$(abspath $(B)/mkrecord) \
	    $(SUMMARY) bats "bats alone ($(B))" $(COUNTS) \
	    bats --tap $(BATS_ALONE)
	@$(SUMMARY) reports "sanitizer reports ($(B))" $(COUNTS) $(SANLOG)

# check-shape.py: no file over 700 lines, no function over 100, no cycle
# between modules (HACKING.md); it reads the objects, so lint builds.
# mandoc -T lint misses a table cell that begins with a macro name ("An
# error" renders "error"): check-tables.py renders the pages and looks.
# The bench's programs are built too: make bench is not part of check, and
# they link cbexec's own objects.
lint: $(B)/cbexec $(B)/bench-floor $(B)/bench-gen
	python3 tests/check-shape.py src $(B)
	mandoc -T lint -W warning man/cbexec.1 man/cbexec.conf.5
	python3 man/check-tables.py man/cbexec.1 man/cbexec.conf.5
	shellcheck -s bash tests/helper.bash .ci/run completions/cbexec.bash \
	    bench/run.sh
	shellcheck -s bash tests/stress/*.sh tests/memcheck.sh \
	    tests/check-summary.sh tests/setup_suite.bash
	shellcheck -s sh tests/private-etc.sh

install: $(B)/cbexec
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man5
	install -m 755 $(B)/cbexec $(DESTDIR)$(BINDIR)/cbexec
	install -m 644 man/cbexec.1 $(DESTDIR)$(MANDIR)/man1/cbexec.1
	install -m 644 man/cbexec.conf.5 $(DESTDIR)$(MANDIR)/man5/cbexec.conf.5
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) \
	    $(DESTDIR)$(FISHCOMPDIR)
	install -m 644 completions/cbexec.bash $(DESTDIR)$(BASHCOMPDIR)/cbexec
	install -m 644 completions/_cbexec $(DESTDIR)$(ZSHCOMPDIR)/_cbexec
	install -m 644 completions/cbexec.fish \
	    $(DESTDIR)$(FISHCOMPDIR)/cbexec.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cbexec $(DESTDIR)$(MANDIR)/man1/cbexec.1 \
	    $(DESTDIR)$(MANDIR)/man5/cbexec.conf.5 \
	    $(DESTDIR)$(BASHCOMPDIR)/cbexec $(DESTDIR)$(ZSHCOMPDIR)/_cbexec \
	    $(DESTDIR)$(FISHCOMPDIR)/cbexec.fish

clean:
	rm -rf build build-san build-fuzz cbexec cbexec_*.deb

# Figures next to the floor (bench/floor.c); see bench/run.sh.
BENCHFLAGS = -Isrc $(filter-out -fsanitize=%,$(ALL_CFLAGS) $(ALL_LDFLAGS))

$(B)/bench-floor: bench/floor.c Makefile | $(B)
	$(CC) $(BENCHFLAGS) -o $@ $< $(LDLIBS)

LMDBOBJS = $(B)/store-lmdb.o $(B)/store-lmdb-open.o $(B)/store-lmdb-evict.o \
	   $(B)/store-lmdb-wait.o $(B)/statefile.o
# The lock wait reads the dispositions of the signals spawn forwards.
LMDBOBJS += $(B)/spawn.o $(B)/spawn-child.o $(B)/clock.o
$(B)/bench-gen: bench/gen.c Makefile $(LMDBOBJS) $(PUREOBJS)
	$(CC) $(BENCHFLAGS) -o $@ $< $(LMDBOBJS) $(PUREOBJS) $(LDLIBS)

bench: $(B)/cbexec $(B)/bench-floor $(B)/bench-gen
	bench/run.sh $(B)/cbexec $(B)/bench-floor $(B)/bench-gen


# ---- the Debian package (debian/, SPEC section 10) ----

# `make deb` builds cbexec_VERSION_ARCH.deb here from a copy of the tree in
# $(DEBB) (dpkg-buildpackage writes beside the source and cleans it), then
# runs lintian on it; any error (E:) fails.  The user's make flags stay
# out of the package build: debian/rules and dpkg-buildflags decide.
DEBB	= build/deb
DEBSRC	= $(DEBB)/cbexec-$(VERSION)
DEBENV	= env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u WERROR -u CFLAGS \
	  -u CPPFLAGS -u LDFLAGS -u STATIC -u WITH_REDIS -u SANITIZE

deb:
	@v=$$(dpkg-parsechangelog -S Version); [ "$$v" = "$(VERSION)" ] || \
	    { echo "deb: debian/changelog is at $$v, VERSION is $(VERSION)"; \
	    exit 1; }
	rm -rf $(DEBB) && mkdir -p $(DEBSRC)
	tar -c --exclude=./build --exclude=./build-san --exclude=./build-fuzz \
	    --exclude=./cbexec --exclude='./cbexec_*' --exclude-vcs \
	    --exclude=./debian/cbexec --exclude=./debian/.debhelper . | \
	    tar -x -C $(DEBSRC)
	cd $(DEBSRC) && $(DEBENV) dpkg-buildpackage -us -uc -b
	cp $(DEBB)/cbexec_$(VERSION)_*.deb .
	lintian --fail-on error --info $(DEBB)/cbexec_$(VERSION)_*.changes

# The package's build, lintian, contents and maintainer scripts, and an
# install, remove and purge in a throwaway root: tests/97-deb.bats, about
# 20 seconds and part of check; check-deb runs it alone.
check-deb: $(B)/cbexec
	@echo "== Debian package"
	@CBEXEC=$(abspath $(B)/cbexec) bats --tap tests/97-deb.bats

.PHONY: deb check-deb

# ---- reliability: fuzzing, memcheck, stress (README "Reliability") ----

# libFuzzer harnesses (tests/fuzz/), built with clang, ASan and UBSan.
# `make fuzz` runs each for FUZZ_RUNS executions on a scratch corpus seeded
# from tests/fuzz/corpus/; fuzz-smoke (part of check) runs each for
# FUZZ_SMOKE_S seconds.  A crash leaves its input in build-fuzz/.
FUZZERS	= record duration codes name config token redis-url
FUZZ_RUNS ?= 1000000
FUZZ_SMOKE_S ?= 1
FB	= build-fuzz
FUZZCC	= clang
FUZZFLAGS = -g -O1 -std=c11 -Wall -Wextra -Werror -Wshadow \
	    -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers \
	    -D_GNU_SOURCE \
	    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    $(PKG_CFLAGS) -Isrc
FUZZ_PURE = $(PURE:%=$(FB)/%.o)

$(FB)/%.o: src/%.c | $(FB)
	$(FUZZCC) $(FUZZFLAGS) -MMD -MP -c -o $@ $<

$(FB)/fuzz-%.o: tests/fuzz/fuzz-%.c | $(FB)
	$(FUZZCC) $(FUZZFLAGS) -MMD -MP -c -o $@ $<

$(FB)/fuzz-config: $(FB)/fuzz-config.o $(FB)/config.o $(FB)/config-layer.o \
    $(FB)/config-setting.o     $(FB)/conftext.o $(FUZZ_PURE)
	$(FUZZCC) $(FUZZFLAGS) -o $@ $^ $(shell pkg-config --libs libconfig) -lm

$(FB)/fuzz-%: $(FB)/fuzz-%.o $(FUZZ_PURE)
	$(FUZZCC) $(FUZZFLAGS) -o $@ $^ -lm

$(FB):
	mkdir -p $@

-include $(wildcard $(FB)/*.d)

fuzz-build: $(FUZZERS:%=$(FB)/fuzz-%)

FUZZOPTS = -rss_limit_mb=1024 -print_final_stats=1
# libconfig leaks on most syntax errors (lsan.supp), and libFuzzer then
# runs a full leak scan after each such input: a quarter of the speed.  The
# long config run skips the scan; fuzz-smoke keeps it.
FUZZOPTS_config = -detect_leaks=0
FUZZENV	= LSAN_OPTIONS=suppressions=$(abspath tests/fuzz/lsan.supp)

# run, status and reset under valgrind: zero errors, zero leaks.
memcheck: $(B)/cbexec
	@echo "== valgrind memcheck ($(B))"
	@tests/memcheck.sh $(abspath $(B)/cbexec) >$(B)/memcheck.log || true
	@sed '$$d' $(B)/memcheck.log
	@sed -n 's/^not ok [0-9]* /# /p' $(B)/memcheck.log >>$(COUNTS)
	@tail -1 $(B)/memcheck.log | grep -E '^[0-9]+ [0-9]+$$' >>$(COUNTS) || \
	    { echo "# memcheck ($(B)): no closing count"; echo "0 1"; } \
	    >>$(COUNTS)

# Full-size load and chaos (minutes); 93-load.bats runs them small.
STRESS_PROCS ?= 16
STRESS_RUNS ?= 500
CHAOS_WORKERS ?= 8
CHAOS_RUNS ?= 504
stress: all
	tests/stress/load.sh $(abspath cbexec) $(STRESS_PROCS) $(STRESS_RUNS) 1
	tests/stress/load.sh $(abspath cbexec) $(STRESS_PROCS) $(STRESS_RUNS) 50
	tests/stress/chaos.sh $(abspath cbexec) $(CHAOS_WORKERS) $(CHAOS_RUNS)
	tests/stress/chaos.sh $(abspath cbexec) $(CHAOS_WORKERS) $(CHAOS_RUNS) \
	    bulkhead

fuzz: fuzz-build
	@for f in $(FUZZERS); do \
		mkdir -p $(FB)/corpus/$$f; \
		dict=; [ -e tests/fuzz/$$f.dict ] && dict=-dict=tests/fuzz/$$f.dict; \
		echo "== fuzz $$f: $(FUZZ_RUNS) runs"; \
		$(FUZZENV) $(FB)/fuzz-$$f $(FUZZOPTS) $$dict -runs=$(FUZZ_RUNS) \
		    $$(case $$f in config) echo '$(FUZZOPTS_config)';; esac) \
		    -artifact_prefix=$(FB)/$$f- \
		    $(FB)/corpus/$$f tests/fuzz/corpus/$$f 2>$(FB)/$$f.log || \
		    { tail -40 $(FB)/$$f.log; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^Done' $(FB)/$$f.log; \
	done

# Each harness for a few seconds on the seed corpus, written to nothing.
fuzz-smoke: fuzz-build
	@echo "== fuzz smoke ($(FUZZ_SMOKE_S)s each)"
	@p=0; f=0; for h in $(FUZZERS); do \
		dict=; [ -e tests/fuzz/$$h.dict ] && dict=-dict=tests/fuzz/$$h.dict; \
		rm -rf $(FB)/smoke-$$h; mkdir -p $(FB)/smoke-$$h; \
		if $(FUZZENV) $(FB)/fuzz-$$h $(FUZZOPTS) $$dict \
		    -artifact_prefix=$(FB)/smoke-$$h/ \
		    -max_total_time=$(FUZZ_SMOKE_S) $(FB)/smoke-$$h \
		    tests/fuzz/corpus/$$h >$(FB)/$$h.smoke.log 2>&1; then \
			echo "ok fuzz $$h: $$(sed -n \
			    's/^stat::number_of_executed_units: *//p' \
			    $(FB)/$$h.smoke.log) runs"; p=$$((p + 1)); \
		else \
			echo "not ok fuzz $$h"; tail -30 $(FB)/$$h.smoke.log; \
			echo "# fuzz smoke: $$h" >>$(COUNTS); f=$$((f + 1)); \
		fi; \
	done; echo "$$p $$f" >>$(COUNTS)

.PHONY: all deps check check-one lint install uninstall bench clean \
	fuzz fuzz-smoke fuzz-build memcheck stress
