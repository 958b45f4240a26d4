/*
 * ident: what a tree defines, so that a name a patch uses can be told
 * present or missing without a compiler.  For one file of one tree it
 * knows the names its folder uses or declares, the names the headers it
 * includes with quotes declare, and the names the shared headers declare
 * (include/ and arch/<arch>/include/), with the names their macros build
 * by pasting ("trace_" ## name).  Everything comes from watch.c's scanner
 * and is built once: files per blob id, the shared headers once per index
 * (from the first tree it is asked about: a series changes them through
 * its own patches, which the caller accounts for).
 */
#ifndef KCARRY_IDENT_H
#define KCARRY_IDENT_H

#include "tree.h"
#include "watch.h"

struct ident_index; /* one per repository; not shared between threads */

/*
 * An index of repo's trees; what the shared headers declare is kept in
 * the folder cache (made when needed; NULL: not kept), named by the ids
 * of include/ and arch/.
 */
int ident_index_new(struct ident_index **out, struct tree_repo *repo,
		    const char *cache);
void ident_index_free(struct ident_index *x);

struct kconfig_set;
/*
 * Into s, the Kconfig symbols tree declares (kconfig_tree_decls), kept
 * in the folder cache as <tree id>.kconfig, like the lists of headers.
 */
int ident_kconfig_decls(struct kconfig_set *s, struct ident_index *x,
			const struct tree_oid *tree, struct err *err);

struct ident_blob;

/* The least coverage (percent) at which a name can be said missing. */
#define IDENT_COVERAGE 70

/* What one file of one tree sees; read as far as lookups need. */
struct ident_view {
	struct ident_index *x;
	struct tree_oid tree;
	char *path;
	bool loaded;        /* the headers it includes read */
	bool folder_loaded; /* the other files of its folder read */
	bool measured;      /* coverage known */
	bool file_scanned;  /* file holds all its names, not its includes
			     * alone */
	/*
	 * Every #include of the file names a header of the tree (with the
	 * kernel's include paths): a name found nowhere is then missing.
	 * False when the file includes a generated or system header, whose
	 * names cannot be known.  Set once loaded.
	 */
	bool complete;
	/*
	 * Of the names the file uses, the share (percent) that something
	 * reachable declares.  Below IDENT_COVERAGE the tree is not what
	 * the file is built from (a partial extract, made-up code) and
	 * nothing is said missing either.  Measured on the first name found
	 * nowhere.
	 */
	unsigned coverage;
	struct buf text;             /* the file's own text */
	/* its words, made once it has been scanned for 16 names: a hunk
	 * of thousands of names against a long file scanned it for each */
	struct watch_set words;
	bool words_built;
	unsigned scans;
	struct ident_blob *file;     /* its names, once loaded */
	struct ident_blob **folder;  /* the other files of its folder */
	size_t nr_folder;
	struct ident_blob **headers; /* reached through quoted includes */
	size_t nr_headers, alloc_headers;
	/*
	 * Names the caller knows from elsewhere (the patch, its series): a
	 * stem that a macro the view reaches pastes onto ("trace_" ## name)
	 * counts as declared when this says so.  NULL: none.
	 */
	bool (*known)(void *ctx, const char *name, size_t len);
	void *known_ctx;
	/* the macros the makefiles of its folder and the folders above
	 * define with -D (kconfig_make_defines), read after the folder */
	struct kconfig_set *kbuild;
	/* includes a patch adds, followed when the headers are read */
	char **added;                /* "<path" or "\"path" */
	size_t nr_added, alloc_added;
};

/*
 * Open the view of path in tree, whose content there is text (the caller
 * has it; a file the tree lacks has none).  The text is copied; the
 * rest is read when a name is not a word of it.
 */
void ident_view_open(struct ident_view *v, struct ident_index *x,
		     const struct tree_oid *tree, const char *path,
		     struct span text);
void ident_view_release(struct ident_view *v);
/*
 * An #include a patch adds to the file: its header is read as the file's
 * own are, and one the tree does not have makes the view not complete.
 */
int ident_view_include(struct ident_view *v, const char *inc, bool angle,
		       struct err *err);
/*
 * Whether name is used or declared in the file or its folder, declared by
 * a header the file includes with quotes or by the shared headers (read
 * the first time a name is not found nearer), or built by a macro of
 * those from a name that is.  Also true when the file is not complete or
 * its coverage is too low: nothing can be said missing then.
 */
int ident_view_find(bool *found, struct ident_view *v, const char *name,
		    size_t len, struct err *err);
/*
 * Whether a macro of the file, of a header it includes with quotes or of
 * its folder pastes onto stem to make a name that is declared: with
 * "#define key_off(f) static_key_disable(&sk_##f)" and sk_lazy declared,
 * key_off(lazy) hands lazy to be pasted, and lazy need not exist.  (Not
 * the thousand patterns of the shared headers: some would make a
 * declared name of almost any stem.)  Call after ident_view_find() of
 * stem (which reads what the view reaches); true when the view was not
 * read (nothing is known).
 */
bool ident_view_pastes_onto(struct ident_view *v, const char *stem,
			    size_t len);

#endif
