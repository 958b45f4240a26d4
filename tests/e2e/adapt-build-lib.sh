# adapt-build-lib.sh: the throw-away Kbuild tree of the tests of adapted
# hunks and builds (t130, t132, t134, t135, t144, t145), sourced after
# lib.sh and adapt-lib.sh (FOO_UP, FOO_TGT).  Sourcing it needs gcc and
# make and sets FX, the build fixture's folder (tests/fixtures/build/proj).
#
#   ab_texts decl|hdr  sets the files' texts, each foo() of adapt-lib.sh
#                      (step_two(c, 0) is the line the patches change,
#                      its context the target rewrote: rule 4):
#                      UP_C, TGT_C  fs/btrfs/demo.c upstream and on the
#                                   target; with decl it declares what it
#                                   calls itself (upstream's step_two()
#                                   takes more arguments, the target's
#                                   two), with hdr it includes demo.h;
#                      UP_H, TGT_H  (hdr) that demo.h: the declarations,
#                                   DEMO_* defines that differ and
#                                   demo_flags(), a line the target kept;
#                      UP2_C, TGT2_C  demo.c with foo renamed foo2 (the
#                                   final newline cut, as $(...) does);
#                      OTHER_C      fs/btrfs/other.c, other() returns n + 1
#   ab_repo DIR [FILE TEXT]...  make_repo DIR with the fixture's Makefile
#                      and include/ besides the files named
#   ab_ws TARGET...    workspace ws, each TARGET a kernel on the repository
#                      tgt at base, built with defconfig and one job
#   ab_bad_fixture [BRANCH]  t134's and t144's: tgt and up hold demo.c,
#                      other.c and demo2.c (ab_texts decl); up's branch bad:
#                      0001 demo.c passes a third argument to step_two()
#                      (adapted, the build refuses it), 0002 other.c
#                      returns n + 2 (clean), 0003 demo2.c passes 1
#                      (adapted, compiles); BRANCH, when named, is a branch
#                      at 0002; ws has target tgt and the series bad
need gcc
need make
FX=$KCARRY_FIXTURES/build/proj
[ -d "$FX" ] || FX=$(cd "$here/../fixtures/build/proj" && pwd)

ab_texts() {
	case $1 in
	decl)
		UP_C="struct ctx { int n; int lock; };
int step_one(struct ctx *c);
int step_two(struct ctx *c, int flags, ...);
void lock(struct ctx *c);
void unlock(struct ctx *c);
int foo(struct ctx *c);

$FOO_UP"
		TGT_C="struct ctx { int n; int lock; };
int step_one_locked(struct ctx *c);
int step_two(struct ctx *c, int flags);
void mutex_lock(int *l);
void mutex_unlock(int *l);
int foo(struct ctx *c);

$FOO_TGT"
		;;
	hdr)
		UP_C="#include \"demo.h\"

$FOO_UP"
		TGT_C="#include \"demo.h\"

$FOO_TGT"
		UP_H='struct ctx { int n; int lock; };
#define DEMO_ONE 1
#define DEMO_TWO 2
int demo_flags(void);
#define DEMO_THREE 3
#define DEMO_FOUR 4
int step_one(struct ctx *c);
int step_two(struct ctx *c, int flags);
void lock(struct ctx *c);
void unlock(struct ctx *c);
int foo(struct ctx *c);
'
		TGT_H='struct ctx { int n; int lock; };
#define DEMO_ONE 10
#define DEMO_TWO 20
int demo_flags(void);
#define DEMO_THREE 30
#define DEMO_FOUR 40
int step_one_locked(struct ctx *c);
int step_two(struct ctx *c, int flags);
void mutex_lock(int *l);
void mutex_unlock(int *l);
int foo(struct ctx *c);
'
		;;
	*)
		fail "ab_texts: decl or hdr, not '$1'"
		;;
	esac
	UP2_C=$(printf '%s' "$UP_C" | sed 's/foo/foo2/g')
	TGT2_C=$(printf '%s' "$TGT_C" | sed 's/foo/foo2/g')
	OTHER_C='int other(int n);
int other(int n)
{
	return n + 1;
}
'
}

ab_repo() {
	mkdir "$1" && cp "$FX/Makefile" "$1/" && cp -r "$FX/include" "$1/" ||
		fail "$1"
	make_repo "$@"
}

ab_ws() {
	kcarry init ws >/dev/null
	for t in "$@"; do
		printf '[kernel]\n\turl = %s/tgt\n\tref = base\n[build]\n\tconfig = defconfig\n\tjobs = 1\n' \
			"$TEST_TMP" >"ws/kernels/$t.conf"
	done
}

ab_bad_fixture() {
	ab_texts decl
	ab_repo tgt fs/btrfs/demo.c "$TGT_C" fs/btrfs/other.c "$OTHER_C" \
		fs/btrfs/demo2.c "$TGT2_C
"
	ab_repo up fs/btrfs/demo.c "$UP_C" fs/btrfs/other.c "$OTHER_C" \
		fs/btrfs/demo2.c "$UP2_C
"
	git -C up checkout -qb bad
	commit_file up fs/btrfs/demo.c "$(printf '%s' "$UP_C" |
		sed 's/step_two(c, 0)/step_two(c, 0, 1)/')
" "btrfs: demo: pass more to step two"
	commit_file up fs/btrfs/other.c "$(printf '%s' "$OTHER_C" |
		sed 's/n + 1/n + 2/')
" "btrfs: other: one more"
	if [ $# -gt 0 ]; then
		git -C up branch "$1"
	fi
	commit_file up fs/btrfs/demo2.c "$(printf '%s' "$UP2_C" |
		sed 's/step_two(c, 0)/step_two(c, 1)/')
" "btrfs: demo2: pass 1 to step two"
	ab_ws tgt
	expect_exit 0 kcarry -C ws import bad --git up base..bad
}
