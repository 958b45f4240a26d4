/*
 * watch: the API that watched files (fs/btrfs/async-thread.[ch] by default)
 * export, how it differs between two versions, and where a source file uses
 * it.  Works on C source text in memory at the lexer level: no preprocessor,
 * no type checking.  Reading files from trees is the caller's job; every
 * name a text uses and declares is cnames.c's, the token-level pieces
 * both scanners share are ctok.c's.
 *
 * What the scanner does with the preprocessor:
 *  - comments, string and character literals are skipped; backslash-newline
 *    continues a line everywhere;
 *  - both branches of #if/#ifdef/#else are scanned (any configuration may be
 *    built), except the dead branches of a literal '#if 0' or '#if 1': that
 *    code is never compiled, so it cannot break the build;
 *  - #define bodies and #if expressions are scanned for references (a macro
 *    that calls an API function is a caller too);
 *  - a function-like macro defined in the watched files is expanded (with
 *    # and ##) where its call starts a file-scope declaration, so helper
 *    macros such as BTRFS_WORK_HELPER_PROTO(name) declare their functions;
 *    other macros are not expanded.
 */
#ifndef KCARRY_WATCH_H
#define KCARRY_WATCH_H

#include <stdint.h>

#include "err.h"

enum watch_kind {
	WATCH_FUNCTION,
	WATCH_MACRO,
	WATCH_TYPE,       /* typedef, or a struct/union/enum tag */
	WATCH_ENUM_CONST,
	WATCH_VARIABLE,
	WATCH_ANY,        /* a name added by hand, kind unknown */
};

/*
 * One exported symbol.  Tags keep their keyword in the name ("struct
 * btrfs_work") because they live in their own name space.  The signature
 * is normalised so that two versions compare with strcmp: parameter names,
 * comments, attributes and storage classes dropped, whitespace folded.
 *   function:        "void (struct btrfs_work *, btrfs_func_t)"
 *   typedef:         "void (*)(struct btrfs_work *)"
 *   struct/union:    the member list, "btrfs_func_t func; ..."
 *   enum:            the constant list
 *   function macro:  the parameter list, "(name)"
 *   variable:        its type
 * It is NULL for object-like macros and enum constants.
 */
struct watch_symbol {
	char *name;
	enum watch_kind kind;
	char *path;       /* the first file declaring it: headers come first */
	size_t line;
	char *signature;
	bool partial;     /* a fragment cut its body: the signature is not
			   * all of it */
};

struct watch_exports {
	struct watch_symbol *v;
	size_t nr;
	size_t alloc;
};

/* One file's text; the bytes need not be NUL-terminated. */
struct watch_source {
	const char *path; /* ".h" at the end marks a header */
	const char *text;
	size_t len;
	/*
	 * The text is the lines of a hunk, not a whole file: a declaration
	 * starts at a name in the first column, what comes before the
	 * first one is left out, and braces a fragment leaves open are
	 * closed (a struct whose body is cut has a partial signature).
	 */
	bool fragment;
};

void watch_exports_init(struct watch_exports *ex);
void watch_exports_release(struct watch_exports *ex);
/*
 * Fill ex with what the watched files export, headers first, then in the
 * given order.  A header exports everything it declares at file scope
 * (prototypes, static inline functions, macros other than its include
 * guard, tags it defines, typedefs, enum constants, variables); a .c file
 * exports its non-static function and variable definitions and the tags
 * it defines that a header declares ("struct btrfs_workqueue;").  A name is
 * listed once, where it is first seen.  Fails with ERR_PARSE on NUL bytes,
 * conflict markers and unbalanced braces.
 */
int watch_exports(struct watch_exports *ex, const struct watch_source *files,
		  size_t nr, struct err *err);
/* The symbol called name, or NULL. */
const struct watch_symbol *watch_exports_find(const struct watch_exports *ex,
					      const char *name);
const char *watch_kind_name(enum watch_kind kind);

enum watch_change {
	WATCH_REMOVED,
	WATCH_ADDED,
	WATCH_CHANGED, /* signature or kind differs */
};

/* Borrows from both export lists: release the diff first. */
struct watch_delta {
	enum watch_change change;
	const struct watch_symbol *old; /* NULL when added */
	const struct watch_symbol *new; /* NULL when removed */
};

struct watch_diff {
	struct watch_delta *v;
	size_t nr;
	size_t alloc;
};

void watch_diff_init(struct watch_diff *d);
void watch_diff_release(struct watch_diff *d);
/*
 * What changes from old (the target's watched files) to new (the series'
 * result): removed and changed symbols in old's order, then added ones in
 * new's order.
 */
void watch_diff_exports(struct watch_diff *out, const struct watch_exports *old,
			const struct watch_exports *new);
const char *watch_change_name(enum watch_change change);

/* A hash set of symbol names to look for, with their kinds. */
struct watch_set_entry {
	char *name;
	size_t len;
	uint32_t hash;
	enum watch_kind kind;
};

/* Its fields are the set's own: read it with the functions below. */
struct watch_set {
	struct watch_set_entry *slots; /* open addressing, power of two */
	size_t cap;
	size_t nr;
	uint64_t lens;    /* bit n: some name is n bytes long (n < 64) */
};

void watch_set_init(struct watch_set *set);
void watch_set_release(struct watch_set *set);
/* Adding a name twice keeps the first kind. */
void watch_set_add(struct watch_set *set, const char *name,
		   enum watch_kind kind);
/* The same for the len bytes at name (no NUL needed). */
void watch_set_add_n(struct watch_set *set, const char *name, size_t len,
		     enum watch_kind kind);
void watch_set_add_exports(struct watch_set *set,
			   const struct watch_exports *ex);
/* The entry for the len bytes at name, or NULL. */
const struct watch_set_entry *watch_set_find(const struct watch_set *set,
					     const char *name, size_t len);
/* How many names the set holds. */
size_t watch_set_count(const struct watch_set *set);
/*
 * Walk the entries, in no particular order: *pos starts at 0; NULL after
 * the last.  The set must not change during the walk.
 */
const struct watch_set_entry *watch_set_next(const struct watch_set *set,
					     size_t *pos);

enum watch_ref_kind {
	WATCH_REF_CALL, /* the name followed by '(': a call or macro use */
	WATCH_REF_USE,  /* any other use: callback, value, type, #ifdef */
	WATCH_REF_DECL, /* declares or defines the name itself */
};

/* Strings belong to the watch_refs holding the ref. */
struct watch_ref {
	const char *name;  /* as in the set: "btrfs_init_work", "struct x" */
	const char *path;
	size_t line;       /* 1-based */
	size_t col;        /* 1-based, in bytes (a tab counts one) */
	const char *func;  /* enclosing function definition, or NULL */
	const char *macro; /* the #define whose body holds it, or NULL */
	enum watch_ref_kind kind;
};

struct watch_refs {
	struct watch_ref *v;
	size_t nr;
	size_t alloc;
	char **pool; /* the strings above */
	size_t pool_nr;
	size_t pool_alloc;
};

void watch_refs_init(struct watch_refs *refs);
void watch_refs_release(struct watch_refs *refs);
/*
 * Append to out every reference to a name in set found in one file's
 * text, in text order.  A member access (x.name, x->name, and so the
 * designator in '.func = foo') is not a reference to name.  Fails with
 * ERR_PARSE when the text holds a NUL byte (not C source).
 */
int watch_scan_refs(struct watch_refs *out, const struct watch_set *set,
		    const char *path, const char *text, size_t len,
		    struct err *err);
const char *watch_ref_kind_name(enum watch_ref_kind kind);

#endif
