# kcarry -- carry kernel patch series across kernel trees.
#
#   make                 build ./kcarry
#   make check           install missing Debian packages, unit + e2e tests
#   make check SANITIZE=1   the same under ASan+UBSan
#   make demo            run the main job on the bundled default workspace
#   make bench           benchmarks against peers (quilt, git am, patch)
#   make fuzz            libFuzzer on the parsers (FUZZ_SECONDS=60 each)
#   make install PREFIX=/usr/local
#
# DEVELOPER=1 turns warnings into errors (CI sets it); a user's newer
# compiler with a new warning still builds kcarry.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
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
	$(WARN) $(CFLAGS) $(PKG_CFLAGS) -Isrc

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

SRCS := $(filter-out src/main.c,$(wildcard src/*.c))
OBJS := $(SRCS:src/%.c=$(B)/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
FUZZ_NAMES := mail patch apply conf
# the harnesses, built as replayers of tests/fuzz/regress/ for make check
REPLAY_BINS := $(FUZZ_NAMES:%=$(B)/tests/replay_%)

KCARRY := $(B)/kcarry

all: $(KCARRY) kcarry

kcarry: $(KCARRY)
	@if [ "$(B)" = build ]; then ln -sf $(KCARRY) kcarry; fi

$(B)/%.o: src/%.c $(B)/%.d | $(B)
	@echo "  CC      $@"
	@$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/libkcarry.a: $(OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(KCARRY): $(B)/main.o $(B)/libkcarry.a
	@echo "  LINK    $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/tests/%: tests/unit/%.c tests/unit/unit.h $(B)/libkcarry.a | $(B)
	@mkdir -p $(B)/tests
	@echo "  TEST    $@"
	@$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(B)/libkcarry.a \
		$(PKG_LIBS) -lcmocka

$(B)/tests/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(B)/libkcarry.a | $(B)
	@mkdir -p $(B)/tests
	@echo "  REPLAY  $@"
	@$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/fuzz $(LDFLAGS) -o $@ $< tests/fuzz/replay.c \
		$(B)/libkcarry.a $(PKG_LIBS)

# libFuzzer builds: clang, every object instrumented
FB := build-fuzz
FUZZ_CFLAGS := -std=c11 -pthread -D_GNU_SOURCE -DKCARRY_VERSION='"$(VERSION)"' \
	-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined \
	$(PKG_CFLAGS) -Isrc -Itests/fuzz
FUZZ_OBJS := $(SRCS:src/%.c=$(FB)/%.o)

$(FB)/%.o: src/%.c
	@mkdir -p $(FB)
	@clang $(FUZZ_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(FB)/libkcarry.a: $(FUZZ_OBJS)
	@rm -f $@
	@ar rcs $@ $^

$(FB)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FB)/libkcarry.a
	@echo "  FUZZ    $@"
	@clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FB)/libkcarry.a $(PKG_LIBS)

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

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(KCARRY) $(DESTDIR)$(BINDIR)/kcarry
	install -m 644 docs/kcarry.1 $(DESTDIR)$(MANDIR)/man1/kcarry.1

format:
	clang-format -i src/*.c src/*.h tests/unit/*.c tests/unit/*.h

clean:
	rm -rf build build-san build-fuzz kcarry

# an object built before it had a .d file is rebuilt once to get one
$(B)/%.d: ;
.PRECIOUS: $(B)/%.d
-include $(wildcard $(B)/*.d $(B)/tests/*.d $(FB)/*.d)

.PHONY: all kcarry deps units check demo bench install format clean fuzz fuzz-build
