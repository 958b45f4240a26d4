# kcarry -- carry kernel patch series across kernel trees.
#
#   make                 build ./kcarry
#   make check           install missing Debian packages, unit + e2e tests
#   make check SANITIZE=1   the same under ASan+UBSan
#   make demo            run the main job on the bundled default workspace
#   make bench           benchmarks against peers (quilt, git am, patch)
#   make fuzz            libFuzzer on the parsers (FUZZ_SECONDS=60 each)
#   make install PREFIX=/usr/local   [DESTDIR=...] binary, man page, docs,
#                        bash and zsh completions
#
# DEVELOPER=1 turns warnings into errors (CI sets it); a user's newer
# compiler with a new warning still builds kcarry.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/kcarry
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Debian: /usr/share/zsh/vendor-completions (debian/rules sets it)
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/site-functions
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)

PKGS := libgit2 libcurl zlib jansson libarchive libcrypto
CC ?= cc
OPT ?= -O2
CFLAGS ?= $(OPT) -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 \
	-Wvla -Wno-missing-field-initializers -Wmissing-prototypes -Wstrict-prototypes
ifeq ($(DEVELOPER),1)
WARN += -Werror
endif
# each object lists the headers it includes (build/*.d): touching one
# header rebuilds only what includes it
DEPFLAGS = -MMD -MP
ALL_CFLAGS = -std=c11 -pthread -D_GNU_SOURCE -DKCARRY_VERSION='"$(VERSION)"' \
	$(WARN) $(CFLAGS) $(PKG_CFLAGS)

# The layers (docs/DESIGN.md): src/util/ sees only itself, the core
# (src/*.c) sees util, the command line (src/cli/) and the tests see all.
# A core file that includes a command-line header does not compile.
INC_UTIL := -Isrc/util
INC_CORE := -Isrc -Isrc/util
INC_CLI := -Isrc -Isrc/util -Isrc/cli
inc_for = $(if $(findstring /util/,$1),$(INC_UTIL),$(if $(findstring /cli/,$1)$(findstring /tests/,$1),$(INC_CLI),$(INC_CORE)))

ifeq ($(SANITIZE),1)
B := build-san
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
else
B := build
endif

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -pthread

SRCS := $(wildcard src/*.c src/util/*.c)
OBJS := $(SRCS:src/%.c=$(B)/%.o)
CLI_SRCS := $(filter-out src/cli/main.c,$(wildcard src/cli/*.c))
CLI_OBJS := $(CLI_SRCS:src/%.c=$(B)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
FUZZ_NAMES := mail patch apply conf
# the harnesses, built as replayers of tests/fuzz/regress/ for make check
REPLAY_BINS := $(FUZZ_NAMES:%=$(B)/tests/replay_%)

KCARRY := $(B)/kcarry

all: $(KCARRY) kcarry

kcarry: $(KCARRY)
	@if [ "$(B)" = build ]; then ln -sf $(KCARRY) kcarry; fi

$(B)/%.o: src/%.c $(B)/%.d
	@mkdir -p $(@D)
	@echo "  CC      $@"
	@$(CC) $(ALL_CFLAGS) $(call inc_for,$@) $(DEPFLAGS) -c -o $@ $<

# the core and util: what the tests and the fuzzers link
$(B)/libkcarry.a: $(OBJS)
	@rm -f $@
	@ar rcs $@ $^

# the command line but main.c
$(B)/libkcarry-cli.a: $(CLI_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(KCARRY): $(B)/cli/main.o $(B)/libkcarry-cli.a $(B)/libkcarry.a
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/tests/%: tests/unit/%.c tests/unit/unit.h $(B)/libkcarry-cli.a $(B)/libkcarry.a
	@mkdir -p $(B)/tests
	@echo "  TEST    $@"
	@$(CC) $(ALL_CFLAGS) $(INC_CLI) $(DEPFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(B)/libkcarry-cli.a $(B)/libkcarry.a $(PKG_LIBS) -lcmocka

$(B)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(B)/libkcarry.a
	@mkdir -p $(B)/tests
	@echo "  REPLAY  $@"
	@$(CC) $(ALL_CFLAGS) $(INC_CORE) $(DEPFLAGS) -Itests/fuzz $(LDFLAGS) -o $@ $< tests/fuzz/replay.c \
		$(B)/libkcarry.a $(PKG_LIBS)

# libFuzzer builds: clang, every object instrumented
FB := build-fuzz
FUZZ_CFLAGS := -std=c11 -pthread -D_GNU_SOURCE -DKCARRY_VERSION='"$(VERSION)"' \
	-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	$(PKG_CFLAGS) -Itests/fuzz
FUZZ_OBJS := $(SRCS:src/%.c=$(FB)/%.o)

$(FB)/%.o: src/%.c
	@mkdir -p $(@D)
	@clang $(FUZZ_CFLAGS) $(call inc_for,$@) $(DEPFLAGS) -c -o $@ $<

$(FB)/libkcarry.a: $(FUZZ_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(FB)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FB)/libkcarry.a
	@echo "  FUZZ    $@"
	@clang $(FUZZ_CFLAGS) $(INC_CORE) -fsanitize=fuzzer -o $@ $< $(FB)/libkcarry.a $(PKG_LIBS)

fuzz-build: $(FUZZ_NAMES:%=$(FB)/fuzz_%)

fuzz: deps
	@tests/fuzz/run

$(B):
	mkdir -p $(B)

deps:
	@scripts/install-deps

units: $(UNIT_BINS) $(REPLAY_BINS)

check: deps
	@$(MAKE) --no-print-directory all units
	@KCARRY_BUILD=$(B) scripts/run-tests

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo

bench: deps
	@$(MAKE) --no-print-directory all
	@bench/run

# the binary, kcarry(1), the documents and JSON schemas, the bash and zsh
# completions (what debian/ and kcarry.spec package)
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(KCARRY) $(DESTDIR)$(BINDIR)/kcarry
	install -m 644 docs/kcarry.1 $(DESTDIR)$(MANDIR)/man1/kcarry.1
	install -m 644 README.md docs/*.md docs/*.schema.json $(DESTDIR)$(DOCDIR)/
	install -m 644 contrib/completion/kcarry.bash \
		$(DESTDIR)$(BASHCOMPDIR)/kcarry
	install -m 644 contrib/completion/_kcarry $(DESTDIR)$(ZSHCOMPDIR)/_kcarry

format:
	clang-format -i src/*.[ch] src/cli/*.[ch] src/util/*.[ch] tests/unit/*.[ch]

clean:
	rm -rf build build-san build-fuzz build-clang kcarry

# An object built before it had a .d file is rebuilt once to get one.
# The .d files are named as explicit targets: a missing prerequisite that
# only a pattern rule makes would be an intermediate file, which make
# does not remake, and a stale object would survive a header change.
DEPFILES := $(OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(B)/cli/main.d
$(DEPFILES):
-include $(wildcard $(B)/*.d $(B)/*/*.d $(FB)/*.d $(FB)/*/*.d)

.PHONY: all kcarry deps units check demo bench install format clean fuzz fuzz-build
