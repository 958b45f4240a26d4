/*
 * audit: what a carried series does to the API of the watched files on
 * one target.  From the watched files (watch.file of the series, default
 * fs/btrfs/async-thread.c and .h) it takes the exported symbols in the
 * target and in the series' result, and the references to them within the
 * scope (the watched files' folders plus watch.scope) with watch.c; it
 * reports the symbols the series removes or changes, the sites in the
 * target that still use them after the series (unconverted callers), the
 * callers the series converts that the target does not have, and which
 * patches touch a watched file or a caller.
 *
 * The API the series means to change comes from the series itself too:
 * the declarations its hunks of the watched files remove, add and change
 * (the code its author saw), whether or not those hunks land.  Every
 * caller of such a symbol in the target is then classified: converted by
 * a hunk that landed, meant to be converted by a hunk that did not, or
 * only in the target (the series never converts it); and a target that
 * lacks the API altogether says so, with what its watched files define.
 */
#ifndef KCARRY_AUDIT_H
#define KCARRY_AUDIT_H

#include "carry.h"
#include "watch.h"

#define AUDIT_DEFAULT_WATCH_C "fs/btrfs/async-thread.c"
#define AUDIT_DEFAULT_WATCH_H "fs/btrfs/async-thread.h"

struct audit_opts {
	char **watch;  /* watched files; none: the defaults above */
	size_t nr_watch;
	char **scope;  /* extra folders to scan for callers */
	size_t nr_scope;
};

/* A place in a tree that references a watched symbol. */
struct audit_site {
	char *path;
	size_t line;
	char *func;   /* enclosing function, or NULL at file scope */
	char *symbol;
	enum watch_ref_kind kind;
	char *text;   /* the source line, trimmed */
	size_t base_line; /* unconverted: its line in the target before
			   * the series; 0 elsewhere */
};

struct audit_change {
	char *name;
	enum watch_kind kind;
	enum watch_change change; /* removed, added, changed */
	char *old_sig, *new_sig;  /* NULL where absent */
};

/* A hunk that changes a watched file or a statement using an export. */
struct audit_hunk {
	size_t file, hunk; /* 0-based, in the patch */
	char *path;
	bool watched;      /* of a watched file */
	char *symbol;      /* caller hunks: the first export it touches */
};

/* A symbol the series' own hunks change, and what the target has of it. */
enum audit_target_state {
	AUDIT_TARGET_PRESENT, /* the target has it as the series found it */
	AUDIT_TARGET_OTHER,   /* the target has it, with another signature */
	AUDIT_TARGET_ALREADY, /* the target has it as the series leaves it */
	AUDIT_TARGET_ABSENT,  /* the target's watched files do not have it */
};

struct audit_intent {
	char *name;
	enum watch_kind kind;
	enum watch_change change; /* removed, added, changed */
	char *old_sig, *new_sig;  /* the series' view; NULL where absent */
	size_t patch;             /* 1-based: the first patch changing it */
	enum audit_target_state target;
	char *target_sig;         /* the target's, when it has it */
};

/* How a caller of a symbol the series changes fares on the target. */
enum audit_caller_class {
	AUDIT_CONVERTED,   /* a hunk of the series converts it, and landed
			    * (or was already in the target), or the call
			    * is already in the new form */
	AUDIT_CONFLICTED,  /* a hunk meant to convert it did not land */
	AUDIT_TARGET_ONLY, /* the series never converts it */
};

struct audit_caller {
	struct audit_site site;  /* in the target's base tree */
	enum audit_caller_class class;
	size_t patch;            /* 1-based, the converting hunk's; 0: none */
	char *file;              /* the converting hunk's file, or NULL */
	size_t hunk;             /* 1-based in that file, 0: none */
};

struct audit_patch {
	bool touches_watched; /* a hunk changes a watched file */
	bool touches_caller;  /* a hunk changes a line using an export */
	struct audit_hunk *hunks; /* those hunks, in patch order */
	size_t nr_hunks;
};

struct audit_result {
	char **watched;        /* watched files the target has */
	size_t nr_watched;
	struct audit_change *changes; /* exports removed/changed/added */
	size_t nr_changes;
	/* sites in the result tree that still use a removed or changed
	 * symbol, on lines the series left as the target had them, and
	 * not already in the new form: a statement the series' hunks write,
	 * or a call with a changed function's new number of arguments.  A
	 * struct, union or enum whose member list changes is listed in
	 * changes but its uses are not sites: what breaks is the use of a
	 * member, which the lexer cannot tell from the type's other uses. */
	struct audit_site *unconverted;
	size_t nr_unconverted;
	/* sites the series converts (its hunks change a use of a changed
	 * symbol) in files or functions the target does not have */
	struct audit_site *absent;
	size_t nr_absent;
	struct audit_patch *patches; /* one per patch of the version */
	size_t nr_patches;
	size_t nr_files_scanned;
	/* the series' own API change (removed, changed, added symbols) */
	struct audit_intent *intents;
	size_t nr_intents;
	/* the series removes or changes symbols and the target has none
	 * of them: target_api is what its watched files export instead */
	bool api_absent;
	struct watch_symbol *target_api; /* functions and types; owned */
	size_t nr_target_api;
	/* every caller, in the target, of a symbol the series removes or
	 * changes and the target has; a call already in the new form (see
	 * unconverted) only when a hunk of the series converts it */
	struct audit_caller *callers;
	size_t nr_callers;
	size_t nr_conflicted, nr_target_only; /* callers of those classes */
};

/*
 * How the series converts the calls of one symbol, learned from its own
 * converted callers (the Spinfer idea): a callee renamed, an argument
 * dropped, or one added with the same text every time.
 */
struct audit_rule {
	char *symbol;	/* the callee as the series found it */
	char *new_name; /* its new name, or NULL */
	/* bit k: argument k (0-based) may be the one dropped, or the place
	 * one is added at; several when the examples cannot tell (two
	 * NULLs side by side) */
	uint32_t drops, adds;
	char *add_text;	 /* the argument added */
	size_t arity;	 /* arguments before */
	size_t examples; /* converted calls it agrees with */
};

/* One call the series never converts, or one whose converting hunk
 * conflicted, and the call the rule makes (or, for a call left as it is,
 * why: new_call NULL). */
struct audit_fix {
	struct audit_site site; /* in the carried result */
	char *old_call, *new_call;
	char *why;
	/* the converting hunk that conflicted: 1-based patch, its file and
	 * 1-based hunk in it; 0 and NULL for a call the series never
	 * touches */
	size_t patch;
	char *file;
	size_t hunk;
};

struct audit_suggestions {
	struct audit_rule *rules;
	size_t nr_rules;
	struct audit_fix *fixes;
	size_t nr_fixes;
	struct audit_fix *left; /* unconverted calls no rule rewrites */
	size_t nr_left;
	struct buf patch; /* the fixes as a unified diff against the result */
	struct buf cocci; /* the rules as a Coccinelle semantic patch */
};

void audit_opts_release(struct audit_opts *o);
/* Add a watched file or a scope folder ("./fs/btrfs/" is "fs/btrfs"). */
void audit_opts_add_watch(struct audit_opts *o, const char *path);
void audit_opts_add_scope(struct audit_opts *o, const char *dir);
/* watch.file and watch.scope of series/NAME.conf (defaults when unset). */
int audit_opts_load(struct audit_opts *o, const char *root, const char *name,
		    struct err *err);

void audit_result_release(struct audit_result *r);
/*
 * Audit the carried series cr (its base and head commits in repo) of
 * version v.
 */
int audit_run(struct audit_result *out, struct tree_repo *repo,
	      const struct series_version *v, const struct carry_result *cr,
	      const struct audit_opts *opts, struct err *err);

/*
 * Learn the rules from the series' converted callers and apply them to
 * the unconverted callers of the carried result (a of cr, both of v),
 * and to the calls of callers not converted in the result (their hunk
 * conflicted, or the series never converts them and its API change did
 * not land), found in the result by their function and line.
 * Nothing is written anywhere: the caller decides where the patch goes.
 */
int audit_suggest(struct audit_suggestions *out, struct tree_repo *repo,
		  const struct series_version *v, const struct carry_result *cr,
		  const struct audit_result *a, const struct audit_opts *opts,
		  struct err *err);
void audit_suggestions_release(struct audit_suggestions *s);

/*
 * The rules audit_suggest learns, from the series alone (its hunks of the
 * watched files for the API it changes, its converted calls for how):
 * no tree is read.  *rules is new (audit_rules_free); none when the
 * series changes no watched declaration.
 */
int audit_learn(struct audit_rule **rules, size_t *nr,
		const struct series_version *v, const struct audit_opts *opts,
		struct err *err);
void audit_rules_free(struct audit_rule *rules, size_t nr);
/* The first call "name(...)" at or after from in text: its first byte,
 * one past its ')' and how many arguments it has. */
bool audit_find_call(size_t *start, size_t *end, size_t *nargs,
		     struct span text, size_t from, const char *name);
/*
 * Every call of r->symbol in text rewritten as audit_suggest rewrites
 * it, the other bytes as they are: *out the text, *n how many calls.
 * False, with *why (new), when a call cannot be: it has another number
 * of arguments, or the examples cannot tell which argument goes.
 */
bool audit_rule_rewrite(struct buf *out, size_t *n, char **why,
			const struct audit_rule *r, struct span text);
/* "btrfs_init_work() argument 2 of 5 dropped (learned from 17 ...)" */
void audit_rule_text(struct buf *out, const struct audit_rule *r);

/*
 * The reference map of commit: every reference to symbols (or, when
 * nr_symbols is 0, to the exports of the watched files) within the scope,
 * calls and uses (declarations left out), by path then in text order.
 * ERR_NOTFOUND when no symbol is named and no watched file is there.
 */
int audit_callers(struct audit_site **sites, size_t *nr,
		  struct tree_repo *repo, const struct tree_oid *commit,
		  const char *const *symbols, size_t nr_symbols,
		  const struct audit_opts *opts, struct err *err);
void audit_sites_free(struct audit_site *sites, size_t nr);
const char *audit_target_state_name(enum audit_target_state s);
/* "converted", "conflicted", "target-only" */
const char *audit_caller_class_name(enum audit_caller_class c);

#endif
