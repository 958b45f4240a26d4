/*
 * series: the series store: every stored version of a series under
 * patches/NAME/VERSION/ (patch files in git format-patch form, a quilt
 * 'series' file, the cover letter, an 'origins' file mapping each patch to
 * where it came from) and its provenance in series/NAME.conf.  Writes are
 * atomic: a version directory is built aside and swapped in.
 */
#ifndef KCARRY_SERIES_H
#define KCARRY_SERIES_H

#include "patch.h"
#include "strmap.h"

struct series_item {
	char *file;       /* "0001-btrfs-foo.patch" */
	char *origin;     /* original file name, message-id or commit */
	int strip;        /* -pN the patch applies with (1 for git's a/ b/) */
	struct buf text;  /* the stored text */
	struct patch patch;
};

struct series_version {
	char *name;
	char *version;
	struct series_item *items;
	size_t nr, alloc;
	struct buf cover; /* cover letter (format-patch form), may be empty */
};

struct series_provenance {
	const char *kind;   /* "mbox", "quilt", "git", "apt" */
	const char *source; /* path, URL, "apt:linux=6.1.170-3", repo range */
	char **msgids; /* the thread's root first (the cover letter) */
	size_t nr_msgids;
	const char *base_commit;
	const char *cover_subject;
};

/*
 * What [version "V"] of series/NAME.conf holds: what import recorded of
 * V (series_provenance and its count and date), or what a person wrote
 * there by hand.  Each field is NULL when its key is absent.
 */
struct series_record {
	char *version;     /* V, as the section names it (case kept) */
	char *kind, *source, *imported, *patches, *cover, *base_commit;
	char **msgids;     /* every msgid line, in file order, without
			    * the <> a person may write around one */
	size_t nr_msgids;
};

/* series/NAME.conf as provenance: [series] list-url and every [version]. */
struct series_records {
	bool exists;    /* false: there is no series/NAME.conf */
	char *list_url; /* [series] list-url, NULL when unset */
	struct series_record *items; /* in the order the file names them */
	size_t nr, alloc;
	struct strmap index; /* version -> item, for series_records_find */
};

/*
 * Read the provenance of series NAME from root/series/NAME.conf (the one
 * reader of its [version] sections).  Keys are read as git config reads
 * them: in any case, the last of several lines (but msgid, whose every
 * line is kept).  No file: 0 with r->exists false; a file git config
 * cannot read: ERR_PARSE naming it.  Release r either way.
 */
int series_provenance_load(struct series_records *r, const char *root,
			   const char *name, struct err *err);
void series_records_release(struct series_records *r);
/* The record of version (exact case), or NULL (a hash lookup). */
const struct series_record *series_records_find(const struct series_records *r,
						const char *version);
/* The msgid a version names: its last msgid line (one value as git
 * config reads it), or NULL. */
const char *series_record_msgid(const struct series_record *rec);

void series_version_init(struct series_version *v, const char *name,
			 const char *version);
void series_version_release(struct series_version *v);
/*
 * Append a parsed patch; file is derived from its position and subject
 * (or origin when it has no subject).  Takes ownership of *p (left
 * re-initialised) and of text.
 */
void series_version_add(struct series_version *v, struct patch *p,
			struct buf *text, const char *origin);

enum series_write_result {
	SERIES_WRITTEN,
	SERIES_UNCHANGED,  /* identical content already stored */
	SERIES_REPLACED,   /* different content replaced (force) */
	SERIES_REPAIRED,   /* same content; its provenance was rewritten */
	SERIES_UPDATED,    /* same source and diffs, other headers or
			    * messages (trailers since): replaced */
};

/*
 * Store v under root/patches/NAME/VERSION and record prov in
 * root/series/NAME.conf.  Different content for an existing version fails
 * with ERR_EXISTS unless force, or unless it comes from the same source
 * with the same diffs (SERIES_UPDATED).
 */
int series_write_version(enum series_write_result *res, const char *root,
			 const struct series_version *v,
			 const struct series_provenance *prov, bool force,
			 struct err *err);

struct series_target_file {
	const char *name; /* "0003-foo.patch" or "series" */
	const char *text;
	size_t len;
};

/*
 * Store the refreshed series of a version for one target under
 * patches/NAME/VERSION/TARGET/ (replacing what was there, atomically).
 */
int series_write_target(const char *root, const char *name,
			const char *version, const char *target,
			const struct series_target_file *files, size_t nr,
			struct err *err);

/*
 * Recorded resolutions: a patch as a person resolved it against one tree
 * state, under patches/NAME/.resolutions/FINGERPRINT.patch, replayed on any
 * version and target where the same patch meets the same blobs.
 */
/* The line of a resolution that leaves the tree as it is (the person
 * decided the target needs nothing of the patch). */
#define SERIES_NOTHING_TO_APPLY "X-Kcarry-Resolution: nothing to apply"
int series_read_resolution(struct patch *out, const char *root,
			   const char *name, const char *fingerprint,
			   struct err *err);
int series_write_resolution(const char *root, const char *name,
			    const char *fingerprint, const char *text,
			    size_t len, struct err *err);

/* One line of a quilt 'series' file. */
struct series_quilt_entry {
	char *file;    /* as listed, relative to the series file's folder */
	int strip;     /* -pN, or the default */
	size_t lineno; /* in the series file */
};

struct series_quilt {
	struct series_quilt_entry *items;
	size_t nr, alloc;
};

/*
 * Read a quilt 'series' text (the one reader of the format): one
 * "NAME [-pN | -p N]" per line; '#' starts a comment; blank lines are
 * skipped.  -R (reversed), other options, a strip count over 64 and names
 * that leave the folder (absolute, "..") are refused with
 * "name:line: ..." (ERR_PARSE).  default_strip applies without -p.
 */
int series_quilt_parse(struct series_quilt *out, struct span text,
		       const char *name, int default_strip, struct err *err);
void series_quilt_release(struct series_quilt *q);

/* Load a stored version; version NULL: the newest. */
int series_load_version(struct series_version *v, const char *root,
			const char *name, const char *version,
			struct err *err);

/* Whether root holds series NAME (series/NAME.conf or patches/NAME/). */
bool series_exists(const char *root, const char *name);

/*
 * series.stacks-on of series NAME into *base (a new string; NULL when
 * unset): the one reader of the key.  A workspace shared through git may
 * carry any text there, and the value becomes a path, so it must be a
 * valid series name (name.h) of another series of root; otherwise
 * ERR_USAGE, ERR_NOTFOUND or ERR_PARSE with "series/NAME.conf: ...".  A
 * .conf that cannot be read is an error too: carrying the series on the
 * bare tree instead would give a wrong result silently.
 */
int series_stacks_on(char **base, const char *root, const char *name,
		     struct err *err);

/*
 * What NAME@VERSION is carried on top of (series.stacks-on): the one rule
 * that check, build and export follow.  The base's version named VERSION
 * when the base has one (debian-linux-rt 6.1.164-1 on debian-linux
 * 6.1.164-1); else the base's newest version, with newest set so that the
 * command says so.  base NULL: the series stacks on nothing.  apply and
 * rebase do not follow it.
 */
struct series_stack {
	char *base;    /* the series stacked on, or NULL */
	char *version; /* its version carried first */
	bool newest;   /* the base has no version VERSION: its newest */
};

int series_stacks_on_resolve(struct series_stack *s, const char *root,
			     const char *name, const char *version,
			     struct err *err);
void series_stack_release(struct series_stack *s);

/*
 * Stored versions of a series, oldest first (natural order).  NAME must
 * be a valid series name (ERR_USAGE otherwise): it becomes a path.
 */
int series_list_versions(const char *root, const char *name,
			 char ***versions, size_t *nr, struct err *err);
/* Names of the series in the workspace (series/NAME.conf files and patches/). */
int series_list_names(const char *root, char ***names, size_t *nr,
		      struct err *err);
void series_free_list(char **list, size_t nr);

/*
 * Parse "NAME[@VERSION]"; *version is NULL when absent.  New strings.
 * Both parts must be valid names (name.h), else ERR_USAGE.
 */
int series_parse_spec(const char *spec, char **name, char **version,
		      struct err *err);

/* Natural order of version names: v2 < v10, 6.1.164-1 < 6.1.170-3. */
int series_version_cmp(const char *a, const char *b);

#endif
