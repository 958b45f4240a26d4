/*
 * lock: one kcarry writer at a time in a workspace, and in a cached or
 * local target repository.  An flock(2) on a lock file, so that a killed
 * kcarry never leaves a lock behind; a waiting process is told who holds
 * it.  Once the lock is held, what an interrupted kcarry left behind
 * (libgit2 *.lock files, .tmp- folders and files of dead processes) is
 * stale and is cleared.
 */
#ifndef KCARRY_LOCK_H
#define KCARRY_LOCK_H

#include "err.h"

struct lock {
	int fd; /* -1: not held */
	char *path;
};

#define LOCK_INIT { -1, NULL }

struct lock_wait {
	/* called once when the lock is busy: pid of the holder, or 0 */
	void (*fn)(void *ctx, const char *path, long holder);
	void *ctx;
};

/*
 * Take the lock on path (created when missing; its folder must exist),
 * waiting as long as another process holds it.
 */
int lock_take(struct lock *l, const char *path, const struct lock_wait *w,
	      struct err *err);
void lock_release(struct lock *l);

/*
 * With the workspace lock held: remove what interrupted runs left under
 * root: series/NAME.conf.lock files, and the temporary folders and files
 * (".tmp-" and ".tmp." names ending in a pid) of dead processes under
 * series/ and patches/NAME[/VERSION]/.  *removed gets their paths
 * relative to root, for a note to the user.
 */
int lock_clear_stale(char ***removed, size_t *nr, const char *root,
		     struct err *err);

/*
 * With a repository's lock held: remove the ref lock files a killed
 * kcarry left under refs/heads/kcarry/ of its git directory (kcarry's own
 * branches only; other refs belong to whoever writes them).  Same
 * *removed.
 */
int lock_clear_repo(char ***removed, size_t *nr, const char *gitdir,
		    struct err *err);

#endif
