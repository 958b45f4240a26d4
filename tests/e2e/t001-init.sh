#!/bin/sh
# kcarry init creates a workspace; commands find it from below like git.
. ./lib.sh

expect_exit 0 kcarry init ws
expect_stdout <<EOT
Initialized empty kcarry workspace in $TEST_TMP/ws
EOT
[ -d ws/series ] && [ -d ws/kernels ] && [ -d ws/patches ] || fail "dirs"

expect_exit 0 kcarry init ws
stdout_has "^Reinitialized existing kcarry workspace"

mkdir -p ws/kernels/deep/er
cd ws/kernels/deep/er
expect_exit 0 kcarry list
expect_stdout </dev/null
cd "$TEST_TMP"

expect_exit 2 kcarry list
expect_stderr <<'EOT'
error: not in a kcarry workspace (no series/ and kernels/ here or above)
hint: run 'kcarry init' to create one, or use -C DIR
EOT

expect_exit 0 kcarry -C ws list
expect_exit 2 kcarry frobnicate
stderr_has "is not a kcarry command"
expect_exit 0 kcarry --version
stdout_has "^kcarry [0-9]"
expect_exit 0 kcarry help import
stdout_has "^usage: kcarry import"
expect_exit 0 kcarry import --help
stdout_has "apt:SRCPKG=VERSION"
expect_exit 2 kcarry -C ws import
stderr_has "^error: no series name given"
