/*
 * fs: files and directories: whole-file reads with a size limit, atomic
 * writes (temporary file + rename, so nothing is ever half-written; a
 * FIFO or a device is written into, never replaced), and directory
 * helpers.
 */
#ifndef KCARRY_FS_H
#define KCARRY_FS_H

#include <stdio.h>

#include "err.h"

/* Read a whole file; files larger than limit bytes (0: no limit) fail. */
int fs_read_file(struct buf *out, const char *path, size_t limit,
		 struct err *err);
/*
 * Write data to path through a temporary file in the same directory,
 * renamed over it: for the workspace's, the cache's and an export's own
 * files, where whatever stands at path (a symlink, a FIFO planted
 * there) is replaced, never followed or opened, so a write never waits
 * for a FIFO's reader.  A report the user names (-o) goes through
 * fs_atomic_open instead.
 */
int fs_write_atomic(const char *path, const void *data, size_t len,
		    struct err *err);
/*
 * A report written to path through PATH.tmp-PID renamed over it at
 * commit (after a checked fclose), so that a reader never sees half of
 * it and a failed write leaves the old file.  abort removes the copy.
 * For -o FILE: a FIFO or a character device, itself or through a
 * symlink (/dev/null, /dev/stdout), is written straight into, and a
 * folder, a block device or a socket is refused at open.
 */
struct fs_atomic {
	FILE *f;
	char *path, *tmp;
};
int fs_atomic_open(struct fs_atomic *a, const char *path, struct err *err);
int fs_atomic_commit(struct fs_atomic *a, struct err *err);
void fs_atomic_abort(struct fs_atomic *a);
int fs_mkdirs(const char *path, struct err *err);
bool fs_is_dir(const char *path);
bool fs_is_file(const char *path);
int fs_remove_tree(const char *path, struct err *err);
/* Sorted names of a directory's entries (without . and ..). */
int fs_list_dir(const char *path, char ***names, size_t *nr, struct err *err);
void fs_free_list(char **names, size_t nr);
/* SHA-256 of a file's bytes as lower-case hex (libcrypto). */
int fs_sha256_file(char hex[65], const char *path, struct err *err);
/* Join two path parts with one slash; returns a new string. */
char *fs_join(const char *a, const char *b);
/*
 * Absolute form of path with ".", ".." and repeated slashes resolved in
 * the text alone (no symlink is followed; need not exist); a new string.
 */
char *fs_normalise(const char *path);
/* Absolute form of path (need not exist); returns a new string. */
char *fs_absolute(const char *path);

#endif
