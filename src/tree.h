/*
 * tree: target trees and repositories through libgit2: opening
 * repositories, resolving refs, reading blobs, writing trees and commits on
 * kcarry branches, walking commit ranges, and libgit2's merge-file for
 * 3-way merges.  The only module (with conf.c) that includes <git2.h>.
 */
#ifndef KCARRY_TREE_H
#define KCARRY_TREE_H

#include "err.h"

struct tree_repo; /* an open repository */

/* An object id, kept apart from libgit2's type. */
struct tree_oid {
	unsigned char id[20];
};


int tree_global_init(struct err *err);
void tree_global_shutdown(void);

/*
 * 3-way merge of whole texts with libgit2's merge-file (diff3 markers with
 * the given labels on conflict).  *conflicts is set to true when markers
 * were written.  Needs no repository.
 */
struct tree_merge_labels {
	const char *ancestor, *ours, *theirs;
};
int tree_merge_file(struct buf *out, bool *conflicts, struct span base,
		    struct span ours, struct span theirs,
		    const struct tree_merge_labels *labels, struct err *err);

/*
 * Line diff of two texts with libgit2's xdiff (Myers, no heuristics, as
 * git's xdi_diff_outf runs it for range-diff): hunks with `context` lines
 * of context.  Lines are numbered from 1 in their text; old_no is 0 for
 * an added line and new_no 0 for a removed one.  Needs no repository.
 */
struct tree_diff_line {
	char kind; /* ' ', '-' or '+' */
	size_t old_no, new_no;
};
struct tree_diff_hunk {
	size_t old_start, old_count, new_start, new_count;
	size_t first, nr; /* its lines: lines[first .. first + nr) */
};
struct tree_diff {
	struct tree_diff_hunk *hunks;
	size_t nr_hunks, alloc_hunks;
	struct tree_diff_line *lines;
	size_t nr_lines, alloc_lines;
};
int tree_diff_text(struct tree_diff *out, struct span a, struct span b,
		   unsigned context, struct err *err);
void tree_diff_release(struct tree_diff *d);

int tree_open(struct tree_repo **out, const char *path, struct err *err);
void tree_close(struct tree_repo *r);
/* The path the repository was opened or created at. */
const char *tree_path(const struct tree_repo *r);
/* The repository's git directory ("/x/linux/.git/", or the bare one). */
const char *tree_git_dir(const struct tree_repo *r);

/*
 * Read the blob whose (possibly abbreviated, at least 7 hex digits) id is
 * hex.  ERR_NOTFOUND when the repository does not hold it.
 */
int tree_read_blob_by_id(struct buf *out, struct tree_repo *r,
			 const char *hex, struct err *err);

/* One commit of a range, as git format-patch would write it. */
struct tree_commit_patch {
	char id[41];
	struct buf text; /* git format-patch form */
};

/*
 * The unified diff (git form: "diff --git", index lines) of the given
 * paths between two commits, from their blobs alone: no tree walk.
 * Modes as git diff writes them: old/new mode (a mode-only change too),
 * new/deleted file mode 100755 or 120000 (a symlink's content is its
 * target), a file that becomes a symlink as a deletion and an addition.
 */
int tree_diff_paths(struct buf *out, struct tree_repo *r,
		    const struct tree_oid *old_commit,
		    const struct tree_oid *new_commit,
		    const char *const *paths, size_t nr, struct err *err);

/*
 * The renames among from[i] -> to[i] (nr pairs) between two commits, as
 * git writes them ("similarity index", "rename from/to", the content's
 * diff when it changed), appended to out; renamed[i] says which pair was
 * one.  A pair whose content changed too much (git's 50% similarity)
 * is not, and its two paths are left to tree_diff_paths.
 */
int tree_diff_renames(struct buf *out, bool *renamed, struct tree_repo *r,
		      const struct tree_oid *old_commit,
		      const struct tree_oid *new_commit,
		      const char *const *from, const char *const *to,
		      size_t nr, struct err *err);

/*
 * The diff of one file from text a to text b as tree_diff_paths writes it
 * for a file of mode 100644 in both (the index line has the texts' ids):
 * from the whole texts, or (window true) from a window around the lines
 * that changed when that gives the same text, as tree_diff_paths does for
 * big files.  Returns 1 when the window was used, 0 when the whole texts
 * were diffed, or an error.  Needs no repository.
 */
int tree_diff_texts(struct buf *out, const char *path, struct span a,
		    struct span b, bool window, struct err *err);

/* One commit as git format-patch text. */
int tree_format_commit(struct buf *out, struct tree_repo *r,
		       const struct tree_oid *commit, struct err *err);

/*
 * Commits of A..B (oldest first), each as format-patch text; merges and
 * empty commits are left out (*skipped counts the empty ones).
 */
int tree_range_patches(struct tree_commit_patch **out, size_t *nr,
		       size_t *skipped, struct tree_repo *r,
		       const char *range, struct err *err);
void tree_commit_patches_free(struct tree_commit_patch *p, size_t nr);


void tree_oid_hex(char out[41], const struct tree_oid *oid);
/* Parse 40 hex digits; -1 when they are not. */
int tree_oid_parse(struct tree_oid *oid, const char *hex);
bool tree_oid_is_zero(const struct tree_oid *oid);

/* What tree_pickaxe looks for. */
struct tree_pickaxe_query {
	const char *rev;
	const char *word;
	const char *const *paths; /* NULL: anywhere */
	size_t nr_paths;
	size_t max; /* the most commits looked at; 0: all */
};

/* What tree_pickaxe found: found false when none. */
struct tree_pickaxe_hit {
	struct tree_oid commit;
	char *subject; /* the commit's title (the caller frees it) */
	bool found;
};

/*
 * git log -S, done with libgit2: the oldest commit reachable from q->rev
 * (newest first, at most q->max commits looked at) whose change to a file
 * under q->paths makes q->word appear in it where it was not (as a word:
 * not inside a longer name).
 */
int tree_pickaxe(struct tree_pickaxe_hit *hit, struct tree_repo *r,
		 const struct tree_pickaxe_query *q, struct err *err);

/* The unified diff (git form, a/ and b/ prefixes) of path from old to new. */
int tree_diff_unified(struct buf *out, const char *path, struct span old,
		      struct span new, struct err *err);

/* Create a bare repository at path (or open it if it exists). */
int tree_init_bare(struct tree_repo **out, const char *path, struct err *err);
/* Commit id a ref or revision names ("v6.1", "HEAD", "refs/heads/x"). */
int tree_resolve(struct tree_oid *commit, struct tree_repo *r,
		 const char *rev, struct err *err);
/* Tree id of a commit. */
int tree_commit_tree(struct tree_oid *tree, struct tree_repo *r,
		     const struct tree_oid *commit, struct err *err);

/*
 * Read the files at paths of tree ahead, in a thread, for tree_read_file
 * (which gives the same bytes with or without it).  Stopped by
 * tree_prefetch_stop or tree_close; nothing happens where libgit2 has no
 * threads.
 */
void tree_prefetch_start(struct tree_repo *r, const struct tree_oid *tree,
			 const char *const *paths, size_t nr);
void tree_prefetch_stop(struct tree_repo *r);
/* Until the thread has read every file it can (for tests). */
void tree_prefetch_wait(struct tree_repo *r);
/*
 * Content of path in tree; *exists false (and 0 returned) when the tree
 * has no such file; *mode gets its git mode (0100644, 0100755, 0120000).
 */
int tree_read_file(struct buf *out, bool *exists, unsigned *mode,
		   struct tree_repo *r, const struct tree_oid *tree,
		   const char *path, struct err *err);
/*
 * Paths of the blobs under dir ("" for the whole tree) of tree whose
 * names end with one of exts (NULL-terminated; NULL: every blob), sorted.
 * A missing dir gives none.
 */
int tree_list_files(char ***paths, size_t *nr, struct tree_repo *r,
		    const struct tree_oid *tree, const char *dir,
		    const char *const *exts, struct err *err);

/* A blob of a tree listing: its path and id. */
struct tree_blob {
	char *path;
	struct tree_oid id;
};

/* Which blobs tree_list_blobs lists. */
struct tree_list_opts {
	const char *dir;          /* "" for the whole tree */
	bool recursive;           /* false: only those right in dir */
	const char *const *exts;  /* name endings, NULL-terminated; NULL: all */
	const char *prefix;       /* and a name's start; NULL: any */
};

/*
 * The blobs under o->dir of tree whose names end with one of o->exts
 * (and start with o->prefix), sorted by path.  A missing dir gives none.
 */
int tree_list_blobs(struct tree_blob **out, size_t *nr, struct tree_repo *r,
		    const struct tree_oid *tree,
		    const struct tree_list_opts *o, struct err *err);
void tree_blobs_free(struct tree_blob *b, size_t nr);
/* The names of the folders right in dir of tree, sorted. */
int tree_list_dirs(char ***names, size_t *nr, struct tree_repo *r,
		   const struct tree_oid *tree, const char *dir,
		   struct err *err);
/* The id of the folder dir of tree; *exists false when there is none. */
int tree_dir_id(struct tree_oid *out, bool *exists, struct tree_repo *r,
		const struct tree_oid *tree, const char *dir, struct err *err);
/* The content of a blob named by its id. */
int tree_read_blob_oid(struct buf *out, struct tree_repo *r,
		       const struct tree_oid *blob, struct err *err);

/* Blob id of path in tree as hex; *exists false when absent. */
int tree_file_id(char hex[41], bool *exists, struct tree_repo *r,
		 const struct tree_oid *tree, const char *path,
		 struct err *err);
/* SHA-1 of bytes as hex (a fingerprint, not an object id). */
void tree_hash(char hex[41], const void *data, size_t len);

int tree_write_blob(struct tree_oid *oid, struct tree_repo *r,
		    const void *data, size_t len, struct err *err);

struct tree_change {
	const char *path;
	bool remove;
	struct tree_oid blob;
	unsigned mode; /* 0: 0100644 */
};

/* A new tree: base with changes applied. */
int tree_update(struct tree_oid *out, struct tree_repo *r,
		const struct tree_oid *base, const struct tree_change *ch,
		size_t nr, struct err *err);

struct tree_person {
	const char *name, *email;
	long long when; /* seconds since the epoch; 0: now */
	int tz;         /* minutes east of UTC */
};

int tree_commit(struct tree_oid *out, struct tree_repo *r,
		const struct tree_oid *tree, const struct tree_oid *parent,
		const struct tree_person *author,
		const struct tree_person *committer, const char *message,
		struct err *err);
/* Point refname at commit (created or moved). */
int tree_set_ref(struct tree_repo *r, const char *refname,
		 const struct tree_oid *commit, const char *log,
		 struct err *err);
/* ERR_NOTFOUND when refname does not exist. */
int tree_get_ref(struct tree_oid *commit, struct tree_repo *r,
		 const char *refname, struct err *err);

struct tree_import_progress {
	void (*fn)(void *ctx, unsigned long files, unsigned long long bytes);
	void *ctx;
};

/*
 * Limits of a tarball import, so that a compression bomb (600 KB of xz
 * that inflates to 4 GB) stops early: the uncompressed bytes of all
 * members, and the number of entries of any type.  0: no limit.
 */
struct tree_tarball_limits {
	unsigned long long max_bytes; /* default 3 GiB (Linux 6.12: 1.4 GB) */
	unsigned long max_entries;    /* default 500,000 (Linux 6.12: 90,000) */
};
#define TREE_TARBALL_MAX_BYTES (3ULL << 30)
#define TREE_TARBALL_MAX_ENTRIES 500000UL

/* What tree_import_tarball imports, and how. */
struct tree_tarball_import {
	const char *tarball; /* its path */
	const char *refname; /* set on the commit */
	const char *message; /* the commit's */
	const struct tree_tarball_limits *limits;     /* NULL: the defaults */
	const struct tree_import_progress *progress; /* or NULL */
};

/*
 * Import a tarball (any compression libarchive reads) as one commit:
 * the first path component is dropped (linux-6.1.170/...), every regular
 * file and symlink becomes a blob, read straight from the stream.  The
 * commit is set on in->refname.  Beyond a limit the import fails with
 * ERR_PARSE before reading further.
 */
int tree_import_tarball(struct tree_oid *commit, struct tree_repo *r,
			const struct tree_tarball_import *in, struct err *err);
/*
 * Whether path is a tar archive libarchive can read (any compression):
 * its first header parses.  Used on a download before it is cached.
 */
int tree_check_tarball(const char *path, struct err *err);

/* Clone url (bare, all refs) into path. */
int tree_clone_bare(struct tree_repo **out, const char *url,
		    const char *path, struct err *err);
/* Fetch every ref of origin again. */
int tree_fetch(struct tree_repo *r, struct err *err);

/* ---- for export (a carried branch read back, written elsewhere) ------ */

/*
 * Paths whose blobs or modes differ between two commits (both sides of a
 * rename), sorted.  Identical subtrees are skipped by id, so the cost is
 * what changed, not the size of the tree.
 */
int tree_changed_paths(char ***paths, size_t *nr, struct tree_repo *r,
		       const struct tree_oid *old_commit,
		       const struct tree_oid *new_commit, struct err *err);

/*
 * user.name and user.email as git reads them for r (the repository's
 * configuration, then the global and system files); either comes back
 * NULL when unset.  New strings.
 */
int tree_user(char **name, char **email, struct tree_repo *r,
	      struct err *err);

/*
 * The first mainline release tag of r (vX.Y or vX.Y-rcN, the tags Linus
 * makes) whose commit contains the commit hex (40 digits), as "v6.12-rc3";
 * *tag is NULL when r lacks the commit or no such tag contains it.
 */
int tree_release_containing(char **tag, struct tree_repo *r, const char *hex,
			    struct err *err);

/* True when name is a valid local branch name (git check-ref-format
 * --branch: refs/heads/NAME a valid ref, not "HEAD", no leading '-'). */
bool tree_branch_name_valid(const char *name);

/* True when r holds the commit hex (40 digits). */
bool tree_has_commit(struct tree_repo *r, const char *hex);

/*
 * The blobs r holds in memory, in front of its object store: those it
 * wrote and, unless told otherwise, those tree_read_file read, so that
 * a refresh of the carry diffs them without inflating them again.
 * tree_keep_read_blobs(r, false) (apply --no-refresh: nothing will diff
 * them) keeps only the written ones from now on; tree_held_bytes is
 * the bytes held.
 */
void tree_keep_read_blobs(struct tree_repo *r, bool keep);
size_t tree_held_bytes(const struct tree_repo *r);

/*
 * From now on until tree_close(r), count in *out every object read from
 * r's storage through r: the ones libgit2's cache does not hold, each
 * inflated (bytes: their sizes summed); not what tree_prefetch_start's
 * thread reads on a handle of its own.  A deterministic measure of the
 * work of reading trees and blobs, for tests; *out must outlive r.
 */
struct tree_reads {
	size_t objects, bytes;
};
int tree_count_reads(struct tree_repo *r, struct tree_reads *out,
		     struct err *err);

/*
 * Every blob of a tree (recursively) with its id and mode, sorted by path
 * (strcmp order).  Submodules are left out.  Used by build.c to bring a
 * source folder to a tree by rewriting only what differs.
 */
struct tree_entry_info {
	char *path;
	char hex[41];
	unsigned mode; /* 0100644, 0100755, 0120000 */
};
int tree_walk_blobs(struct tree_entry_info **out, size_t *nr,
		    struct tree_repo *r, const struct tree_oid *tree,
		    struct err *err);
void tree_entries_free(struct tree_entry_info *e, size_t nr);

/*
 * The changed line ranges between two texts (a diff without context),
 * in order.  A pure insertion has old_lines 0 and old_start the line it
 * follows; a pure deletion has new_lines 0 and new_start the line it
 * follows.
 */
struct tree_line_hunk {
	unsigned long old_start, old_lines, new_start, new_lines;
};
int tree_diff_lines(struct tree_line_hunk **out, size_t *nr, struct span old,
		    struct span new_text, struct err *err);

#endif
