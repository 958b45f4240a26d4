/*
 * import: turns a source (mbox/Maildir/message files, a quilt directory, a
 * git range, a Debian source package) into candidate series versions ready
 * for the store.  Every patch is parsed; nothing is written here.
 */
#ifndef KCARRY_IMPORT_H
#define KCARRY_IMPORT_H

#include "series.h"

struct fetch_opts;

struct import_opts {
	int strip;       /* -pN for quilt and plain patches; default 1 */
	bool strip_set;
	const char *git_repo; /* with git_range: import commits */
	const char *git_range;
	const struct fetch_opts *fetch; /* downloads (NULL: the defaults) */
	/* A thread fetched by message-id: fails with ERR_NOTFOUND unless
	 * a message read has this Message-ID (NULL: no check). */
	const char *require_msgid;
};

struct import_candidate {
	char *version;              /* "v3" from subjects, or NULL */
	struct series_version sv;   /* name/version unset */
	char *kind, *source, *base_commit, *cover_subject;
	char **msgids;
	size_t nr_msgids;
};

struct import_set {
	struct import_candidate *items; /* oldest version first */
	size_t nr, alloc;
	char **notes; /* things the user should know (skipped messages...) */
	size_t nr_notes, alloc_notes;
};

void import_set_release(struct import_set *s);
/*
 * Read sources: one path or "apt:PKG=VERSION[/patches-rt]", or several
 * mail paths (mboxes, messages) whose messages form one set of threads.
 */
int import_sources(struct import_set *out, char *const *sources, size_t nr,
		   const struct import_opts *opts, struct err *err);
/* The commits of opts->git_range in opts->git_repo. */
int import_git(struct import_set *out, const struct import_opts *opts,
	       struct err *err);
/* Fill p from provenance fields of c (borrowed pointers). */
void import_provenance(struct series_provenance *p,
		       const struct import_candidate *c);

#endif
