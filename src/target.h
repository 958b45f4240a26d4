/*
 * target: the kernel trees a series is carried to.  Reads
 * kernels/TARGET.conf and prepares the tree: a local repository + ref, a
 * remote git URL cloned once into the cache, or a release tarball (a path,
 * a URL, or apt:SRCPKG=VERSION for the pristine tarball of a Debian source
 * package) imported once into a cached repository as one commit.
 */
#ifndef KCARRY_TARGET_H
#define KCARRY_TARGET_H

#include "lock.h"
#include "tree.h"

enum target_kind { TARGET_LOCAL, TARGET_REMOTE, TARGET_TARBALL };

struct target {
	char *name;
	char *root;      /* the workspace (its kcarry.conf sets limits) */
	char *conf_path;
	enum target_kind kind;
	char *url;     /* local path or remote URL (LOCAL, REMOTE) */
	char *ref;     /* ref or tag in that repository */
	char *tarball; /* path, URL or apt:PKG=VERSION (TARBALL) */
	char *repo_path; /* the repository kcarry reads and writes */
	/* the normalised tarball path or URL, or remote URL, that keys the
	 * cache folder (TARBALL, REMOTE) */
	char *source;
	struct lock lock; /* held from target_prepare to target_release */
	/* kernel.history: a repository with upstream history, where the
	 * commit that introduced a name the target lacks is looked for
	 * (absolute; NULL when not set) */
	char *history;
	/* [build] of kernels/TARGET.conf (build.c uses them) */
	char *build_command;  /* build.command: what --full runs */
	char **build_config;  /* build.config lines, in order */
	size_t nr_build_config;
	char **build_targets; /* build.targets: make targets; none: default */
	size_t nr_build_targets;
	char *build_cc;       /* build.cc: "gcc", "ccache gcc", "clang" */
	unsigned build_jobs;  /* build.jobs; 0: number of CPUs */
	char *build_make_flags; /* build.make-flags, split at spaces */
	char *build_profile;  /* build.profile: "auto" (NULL) or "none" */
};

struct target_progress {
	void (*fn)(void *ctx, const char *target, const char *what);
	void *ctx;
};

/* kernels/NAME.conf of root; on failure t holds nothing to release. */
int target_load(struct target *t, const char *root, const char *name,
		struct err *err);
void target_release(struct target *t);
/* Names of the targets (kernels/NAME.conf), natural order. */
int target_list(const char *root, char ***names, size_t *nr,
		struct err *err);

/* Ready when the tree can be read without fetching; detail says why not. */
bool target_ready(const struct target *t, char **detail);

/*
 * Make the tree available (clone, download, import as needed) and open
 * its repository; *base gets the commit the series is applied to.  The
 * repository's kcarry lock is taken (another kcarry using the same tree
 * waits, told through progress) and held until target_release; ref locks
 * an interrupted kcarry left on kcarry's branches are then cleared.
 */
int target_prepare(struct tree_repo **repo, struct tree_oid *base,
		   struct target *t, const struct target_progress *progress,
		   struct err *err);

/* Where cached trees live: <cache>/trees. */
char *target_cache_dir(void);

#endif
