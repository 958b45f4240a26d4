/*
 * cause: why a hunk fails or is a risk, and what it needs.  The function
 * its header names that the target lacks (and the target's function most
 * like it, by body), the names its lines use that the target defines
 * nowhere (a member, a function, a type, a macro), and where such a name
 * comes from: an earlier patch of the series that failed, a patch of
 * another series, an upstream commit.  The same check of names makes a
 * patch that applies, but adds code using what the tree does not have, a
 * placement risk.  Lexer only (watch.c), names looked up in ident.c.
 */
#ifndef KCARRY_CAUSE_H
#define KCARRY_CAUSE_H

#include "ident.h"
#include "patch.h"
#include "strmap.h"
#include "tree.h"

enum cause_kind {
	CAUSE_CONTEXT,      /* the context differs, nothing more is known */
	CAUSE_FUNCTION,     /* the function its header names is not there */
	CAUSE_NAMES,        /* it uses names the target defines nowhere */
	CAUSE_FAILED_PATCH, /* it meets lines of an earlier patch that failed */
	CAUSE_PRESENT,      /* its change stands there already */
	CAUSE_PLACEMENT,    /* it landed, but another reading is plausible */
	CAUSE_FILE,         /* the file is missing, or not what it deletes */
	CAUSE_BUILD,        /* adapted, but a build pins a diagnostic on it */
};

/* Where a missing name comes from. */
enum cause_source_kind {
	SOURCE_NONE,
	SOURCE_SERIES,   /* an earlier patch of this series, which failed */
	SOURCE_OTHER,    /* a patch of another series of the workspace */
	SOURCE_UPSTREAM, /* a commit of the target's kernel.history */
};

struct cause_source {
	enum cause_source_kind kind;
	size_t patch;         /* 1-based, SERIES and OTHER */
	char *series, *version, *file; /* OTHER */
	char *commit, *subject;        /* UPSTREAM: full id, title */
};

/* What a missing name is used as. */
enum cause_use {
	USE_NAME,
	USE_FUNCTION,
	USE_MEMBER,
	USE_TYPE,   /* struct/union/enum tag */
	USE_MACRO,  /* an upper-case name */
	USE_KCONFIG, /* a Kconfig symbol (kconfig.c) */
};

struct cause_name {
	char *name;  /* "bdev_file", "__btrfs_workqueue" */
	char *tag;   /* "struct" for a tag, else NULL */
	enum cause_use use;
	struct cause_source source;
	/* a second candidate that adds it (another series of the
	 * workspace): kind SOURCE_NONE unless where it comes from is not
	 * known for sure, and then no prerequisite is proposed */
	struct cause_source also;
};

struct cause {
	enum cause_kind kind;
	char *text;      /* one line for people */
	char *function;  /* CAUSE_FUNCTION: the name the header gives */
	char *similar;   /* the target's function most like it, or NULL */
	unsigned similarity; /* percent of the hunk's lines found in it */
	struct cause_name *names;
	size_t nr_names;
	size_t *patches; /* CAUSE_FAILED_PATCH: 1-based failed patches */
	size_t nr_patches;
	char *stacks_on; /* a series the missing names come from */
	/* CAUSE_BUILD: the id of the adapted hunk the build refused
	 * (carry_adaptation_id), or NULL */
	char *adapted;
};

void cause_free(struct cause *c);
const char *cause_kind_name(enum cause_kind k); /* "function", ... */
const char *cause_use_name(enum cause_use u);   /* "member", ... */
/* "bdev_file: no such member in this tree" */
void cause_name_text(struct buf *out, const struct cause_name *n);
/* Whether names[0..nr) holds the len bytes at p. */
bool cause_names_has(const struct cause_name *names, size_t nr,
		     const char *p, size_t len);
void cause_source_release(struct cause_source *s);

/*
 * The function of text (a file, path) whose body holds the most of hunk
 * h's preimage lines, when the file does not define func: *name gets it
 * (new string) and *percent how much of the hunk it holds; NULL when the
 * file defines func or nothing is alike (under half, or under two
 * lines).
 */
void cause_similar_function(char **name, unsigned *percent, struct span text,
			    const char *path, const struct patch_hunk *h,
			    const char *func);
/* Whether text (of path) defines or declares function func. */
bool cause_defines_function(struct span text, const char *path,
			    const char *func);

/* ---- names a series declares, patch by patch ---- */

struct cause_defs {
	char **name;            /* per entry: the name */
	size_t *patch;          /* per entry: 1-based patch */
	bool *applied;          /* per entry: that patch applied */
	size_t nr, alloc, alloc_patch, alloc_applied;
	struct strmap index;    /* name -> entry: each name once */
};

void cause_defs_init(struct cause_defs *d);
void cause_defs_release(struct cause_defs *d);
/* Note what patch number n (1-based) declares (cause_patch_decls). */
void cause_defs_add(struct cause_defs *d, const struct watch_set *decls,
		    size_t n, bool applied);
/*
 * The names patch p declares in its added lines (a set); with added_only,
 * not those its removed lines declare too (a changed signature).
 */
void cause_patch_decls(struct watch_set *out, const struct patch *p,
		       bool added_only);
/* Both at once, each side of each hunk read once: all (the names p's
 * added lines declare) and added (those its removed lines do not). */
void cause_patch_decls_both(struct watch_set *all, struct watch_set *added,
			    const struct patch *p);
/* The entry of the len bytes of name in d, or (size_t)-1. */
size_t cause_defs_find(const struct cause_defs *d, const char *name,
		       size_t len);

/* ---- checking names ---- */

/* Finds where a missing name comes from: *out, and *also a second
 * candidate when two series of the workspace add it (else kind NONE). */
struct cause_lookup {
	int (*fn)(void *ctx, const char *name, const char *path,
		  struct cause_source *out, struct cause_source *also,
		  struct err *err);
	void *ctx;
};

/*
 * The lookup of a workspace and a target: the patches of every other
 * series and version stored in the workspace (what their added lines
 * declare; a name two series add has two candidates), then the target's
 * kernel.history (tree_pickaxe under the file's folder and include/: the
 * oldest commit that makes the word appear).  Both are read on the
 * first lookup.
 */
struct cause_finder {
	const char *root;            /* the workspace */
	const char *series, *version; /* the one being carried: not looked in */
	const char *history;         /* kernel.history, or NULL */
	size_t max_commits;          /* of history looked at (0: all) */
	bool loaded;
	struct watch_set names;      /* what the other series declare */
	struct cause_source *sources; /* per name, in the order added */
	char **source_names;
	size_t nr, alloc, alloc_names;
	struct tree_repo *hist;
	bool hist_tried;
};

void cause_finder_init(struct cause_finder *f, const char *root,
		       const char *series, const char *version,
		       const char *history);
void cause_finder_release(struct cause_finder *f);
/* The cause_lookup function of a finder (ctx: the finder). */
int cause_finder_find(void *ctx, const char *name, const char *path,
		      struct cause_source *out, struct cause_source *also,
		      struct err *err);

struct cause_check {
	struct ident_view *view;        /* the file in the target */
	const struct patch *patch;      /* the patch (the files it adds) */
	const struct watch_set *own;    /* what the patch itself declares */
	const struct cause_defs *series; /* earlier patches of the series */
	const struct cause_lookup *lookup; /* or NULL */
	/* what every patch of the series declares, each name with the last
	 * patch declaring it, and which patch this is (1-based): a name a
	 * later patch declares is the series' own (RT's generic code uses
	 * what an arch patch after it defines); or NULL */
	const struct cause_defs *ahead;
	size_t patch_no;
};

/*
 * The names hunk h uses on its lines of the given kinds ("+" for added
 * lines, " -" for what a conflicting hunk meets) that nothing declares:
 * not the hunk itself, not the patch, not an applied earlier patch, not
 * the target (ident_view_find).  Appended to *names (deduplicated);
 * nothing is missing when the view is not complete (the file includes
 * headers the tree does not have).
 */
int cause_missing_names(struct cause_name **names, size_t *nr,
			const struct cause_check *chk,
			const struct patch_hunk *h, const char *kinds,
			struct err *err);
/* The same for the whole content of a new file. */
int cause_missing_in_text(struct cause_name **names, size_t *nr,
			  const struct cause_check *chk, const char *path,
			  struct span text, struct err *err);
/* The strings and sources of one name (not the name itself). */
void cause_name_release(struct cause_name *n);
void cause_names_free(struct cause_name *names, size_t nr);

/* "needs struct x, which this tree defines nowhere (added by ...)" */
void cause_names_text(struct buf *out, const struct cause_name *names,
		      size_t nr);

/* ---- prerequisites (adaptation rule 6: proposed, never applied) ---- */

/*
 * One prerequisite of a hunk: the patch or commit that adds names it
 * needs.  Borrowed from the cause's names: source and names point into
 * them.  also: a second candidate (kind SOURCE_NONE but when the names'
 * origin is ambiguous: nothing is then proposed).
 */
struct cause_prereq {
	const struct cause_source *source, *also;
	const char **names;
	size_t nr_names;
};

/* The prerequisites of c, one per distinct source (and candidate), in
 * the order of its names; *out is new (cause_prereqs_free). */
void cause_prereqs(struct cause_prereq **out, size_t *nr,
		   const struct cause *c);
void cause_prereqs_free(struct cause_prereq *p, size_t nr);
/* "prerequisite: 0003 of this series" / "upstream commit 0123456789ab"
 * / "port@v1 0001", or for an ambiguous one "prerequisite not known:
 * x is added by both a@v1 0001 and b@v1 0002"; appended with "; " to
 * out (nothing when c has none). */
void cause_prereqs_text(struct buf *out, const struct cause *c);

#endif
