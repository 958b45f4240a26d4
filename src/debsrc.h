/*
 * debsrc: Debian source packages: where apt says their files are
 * (apt-get source --print-uris), cached downloads of those files, and
 * the files under one folder of a .debian.tar.xz read through libarchive.
 */
#ifndef KCARRY_DEBSRC_H
#define KCARRY_DEBSRC_H

#include "err.h"

struct debsrc_file {
	char *uri;
	char *name; /* linux_6.1.170-3.debian.tar.xz (a plain file name) */
	unsigned long long size;
	char *sha256; /* hex, or NULL */
};

struct debsrc {
	char *package, *version;
	struct debsrc_file *files;
	size_t nr;
};

/* Ask apt where the files of PACKAGE=VERSION are. */
int debsrc_locate(struct debsrc *d, const char *package, const char *version,
		  struct err *err);
void debsrc_release(struct debsrc *d);
/* The file whose name ends with suffix (".debian.tar.xz"), or NULL. */
const struct debsrc_file *debsrc_find(const struct debsrc *d,
				      const char *suffix);

/* Directory for downloads: $KCARRY_CACHE, $XDG_CACHE_HOME/kcarry, ~/.cache/kcarry. */
char *debsrc_cache_dir(void);

/*
 * A name apt gives that may be used as a file name in the cache: one
 * component, Debian's characters (letters, digits, . + ~ : - _), no
 * leading dot or dash.
 */
bool debsrc_safe_name(const char *name);

struct fetch_opts;
/*
 * Download f into <cache>/debian/ with fetch's limits (o NULL: the
 * defaults); a copy with the size and checksum apt gives is reused
 * without the network.  *path gets the cached file's path.
 */
int debsrc_fetch(char **path, const struct debsrc_file *f,
		 const struct fetch_opts *o, struct err *err);

/* Files of a tarball under prefix ("debian/patches/"), names relative. */
struct debsrc_tree {
	char **names;
	struct buf *data;
	size_t nr, alloc;
};

int debsrc_read_tar(struct debsrc_tree *t, const char *tarball,
		    const char *prefix, struct err *err);
void debsrc_tree_release(struct debsrc_tree *t);
/* Index of name in t, or -1. */
long debsrc_tree_find(const struct debsrc_tree *t, const char *name);

#endif
