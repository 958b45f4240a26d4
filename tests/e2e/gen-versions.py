#!/usr/bin/env python3
"""Two random versions of a series as branches v1 and v2 of a git repository.

usage: gen-versions.py SEED REPO

REPO gets a base commit (tag base) of six C-like files, then branch v1:
6 to 12 commits, each changing a few lines of one file; and branch v2, from
base again: v1's commits kept, changed (an edit added or altered), moved,
dropped, rewritten (the same subject, other edits), given another message,
or joined by new ones.  The same SEED gives the same repository (author and
committer dates are fixed).
"""
import os
import random
import subprocess
import sys

seed, repo = int(sys.argv[1]), sys.argv[2]
rnd = random.Random(seed)
FILES = ["fs/btrfs/%s.c" % n for n in ("async", "disk", "inode", "scrub", "volumes", "qgroup")]
env = dict(os.environ, GIT_AUTHOR_DATE="2024-04-10 12:00:00 +0100",
           GIT_COMMITTER_DATE="2024-04-10 12:00:00 +0100")


def git(*args):
    subprocess.run(["git", "-C", repo] + list(args), check=True, env=env,
                   stdout=subprocess.DEVNULL)


def base_lines(path):
    stem = os.path.basename(path)[:-2]
    return ["\t%s_line_%d();" % (stem, k) for k in range(1, 81)]


def random_edit():
    """(file, [(line number, kind, text)]): kind 'r' replaces, 'i' inserts after."""
    f = rnd.choice(FILES)
    start = rnd.randint(1, 70)
    edits = []
    for _ in range(rnd.randint(1, 4)):
        k = start + rnd.randint(0, 8)
        edits.append((k, rnd.choice("rri"), "\tchange_%d_%d();" % (k, rnd.randint(0, 999))))
    return (f, edits)


def apply(content, change):
    f, edits = change
    lines = content[f]
    for k, kind, text in edits:
        key = "_line_%d();" % k
        for i, l in enumerate(lines):
            if l.endswith(key):
                if kind == "r":
                    lines[i] = l[:-len(key)] + "_line_%d(%s);" % (k, text.strip()[:-2])
                else:
                    lines.insert(i + 1, text)
                break


def write(content):
    for f, lines in content.items():
        p = os.path.join(repo, f)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as fh:
            fh.write("\n".join(lines) + "\n")


def build(branch, commits):
    git("checkout", "-q", "-b", branch, "base")
    content = {f: base_lines(f) for f in FILES}
    for subject, body, change in commits:
        before = {f: list(l) for f, l in content.items()}
        apply(content, change)
        if content == before:                     # never an empty commit
            content[change[0]].append("\tfiller_%s();" % subject.split()[-1])
        write(content)
        msg = ["-m", subject] + (["-m", body] if body else [])
        git("commit", "-q", "-a", *msg)


subprocess.run(["git", "init", "-q", repo], check=True, stdout=subprocess.DEVNULL)
write({f: base_lines(f) for f in FILES})
git("add", "-A")
git("commit", "-q", "-m", "base")
git("tag", "base")

v1 = []
for n in range(rnd.randint(6, 12)):
    v1.append(("btrfs: change %d" % n, "Why %d." % n if rnd.random() < .5 else "",
               random_edit()))
v2 = []
for subject, body, change in v1:
    r = rnd.random()
    if r < .10:
        continue                                  # dropped
    if r < .25:                                   # changed: one more edit
        f, edits = change
        k = edits[-1][0] + rnd.randint(1, 3)
        change = (f, edits + [(k, "r", "\tmore_%d();" % k)])
    elif r < .32:                                 # rewritten
        change = random_edit()
    elif r < .42:                                 # another message
        body = "Reworded %d." % rnd.randint(0, 99)
    v2.append((subject, body, change))
    if rnd.random() < .15:                        # a new one after it
        v2.append(("btrfs: new %d" % rnd.randint(0, 999), "", random_edit()))
for i in range(len(v2) - 1):                      # moved
    if rnd.random() < .1:
        v2[i], v2[i + 1] = v2[i + 1], v2[i]
build("v1", v1)
build("v2", v2)
