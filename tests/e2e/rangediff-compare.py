#!/usr/bin/env python3
"""Compare the pairs of 'kcarry diff --json' with those of 'git range-diff'.

usage: rangediff-compare.py [--pairs-only|--interdiffs] RANGE_DIFF_OUTPUT
                             KCARRY_JSON

range-diff's header lines ("N:  abc1234 = M:  def5678 subject", '<' for a
dropped commit, '>' for a new one) give its pairs.  kcarry's "unchanged"
and "changed" entries are its pairs; a "rewritten" entry is a dropped and
a new patch to range-diff.  Pairs (and, unless --pairs-only, '=' against
'!') must be the same, and so must the dropped and the new patches; with
no rewritten entry the order of the entries must be range-diff's too.
With --interdiffs, the interdiff of every '!' pair must also be the one
range-diff prints under it (indented by four spaces).  Prints one summary
line; exits 1 on any difference.
"""
import json
import re
import sys

HEADER = re.compile(r"^\s*(\d+|-):\s+([0-9a-f]+|-+) ([=!<>]) \s*(\d+|-):\s+([0-9a-f]+|-+) ")


def range_diff(path, bodies=None):
    seq = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("    "):
                if bodies is not None and seq:
                    bodies.setdefault(seq[-1], []).append(line[4:])
                continue
            m = HEADER.match(line)
            if not m:
                continue
            old = None if m.group(1) == "-" else int(m.group(1))
            new = None if m.group(4) == "-" else int(m.group(4))
            seq.append((old, m.group(3), new))
    return seq


def kcarry(path, bodies=None):
    doc = json.load(open(path))
    assert doc["schema"] == "kcarry-diff/1", doc["schema"]
    seq = []
    rewritten = 0
    for p in doc["pairs"]:
        old = p["old"]["index"] if p["old"] else None
        new = p["new"]["index"] if p["new"] else None
        st = p["status"]
        if st == "unchanged":
            seq.append((old, "=", new))
        elif st == "changed":
            seq.append((old, "!", new))
            if bodies is not None and p["interdiff"] is not None:
                bodies[seq[-1]] = p["interdiff"].splitlines(True)
        elif st == "new":
            seq.append((None, ">", new))
        elif st == "dropped":
            seq.append((old, "<", None))
        elif st == "rewritten":
            rewritten += 1
            seq.append((old, "<", None))
            seq.append((None, ">", new))
    return seq, rewritten


def main():
    args = sys.argv[1:]
    pairs_only = interdiffs = False
    if args and args[0] == "--pairs-only":
        pairs_only = True
        args = args[1:]
    elif args and args[0] == "--interdiffs":
        interdiffs = True
        args = args[1:]
    rd_bodies, kc_bodies = {}, {}
    rd = range_diff(args[0], rd_bodies)
    kc, rewritten = kcarry(args[1], kc_bodies)

    def norm(seq):
        out = set()
        for old, st, new in seq:
            if pairs_only and st in "=!":
                st = "p"
            out.add((old, st, new))
        return out

    a, b = norm(rd), norm(kc)
    bad = False
    for e in sorted(a - b, key=str):
        print("range-diff only:", e)
        bad = True
    for e in sorted(b - a, key=str):
        print("kcarry only:    ", e)
        bad = True
    if not bad and not rewritten:
        ra = [(o, "p" if pairs_only and s in "=!" else s, n) for o, s, n in rd]
        rb = [(o, "p" if pairs_only and s in "=!" else s, n) for o, s, n in kc]
        if ra != rb:
            print("same entries, another order")
            bad = True
    if interdiffs:
        for key, body in kc_bodies.items():
            if rd_bodies.get(key, []) != body:
                print("interdiff of %s differs:" % (key,))
                print("".join(rd_bodies.get(key, [])), "---")
                print("".join(body))
                bad = True
    npairs = sum(1 for _, s, _ in rd if s in "=!")
    nsame = sum(1 for _, s, _ in rd if s == "=")
    ndrop = sum(1 for _, s, _ in rd if s == "<")
    nnew = sum(1 for _, s, _ in rd if s == ">")
    print("%s: %d pairs (%d =), %d dropped, %d new; kcarry rewritten %d"
          % ("DIFFERENT" if bad else "same", npairs, nsame, ndrop, nnew,
             rewritten))
    sys.exit(1 if bad else 0)


main()
