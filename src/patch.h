/*
 * patch: the patch model (a commit's metadata, files, hunks, lines) and its
 * text forms.  Parses git format-patch files, mail bodies handed over by
 * mail.c, quilt patches with DEP-3 headers or no header at all, and plain
 * diff -u; writes patches back in git format-patch form.  Placing hunks in
 * a tree is apply.c's job.
 */
#ifndef KCARRY_PATCH_H
#define KCARRY_PATCH_H

#include "err.h"

#define PATCH_MAX_HUNK_LINES 1000000UL
#define PATCH_MAX_LINE (1024 * 1024) /* bytes in one line, LF excluded */

enum patch_op {
	PATCH_MODIFY,
	PATCH_ADD,
	PATCH_DELETE,
	PATCH_RENAME,
	PATCH_COPY,
};

struct patch_line {
	char kind;       /* ' ', '-' or '+' */
	bool no_eol;     /* followed by "\ No newline at end of file" */
	struct span text; /* without the kind character and the LF */
};

struct patch_hunk {
	unsigned long old_start, old_count;
	unsigned long new_start, new_count;
	struct span section; /* after the second "@@", trimmed; may be empty */
	struct patch_line *lines;
	size_t nr_lines;
	size_t lineno; /* line of the "@@" in the patch text */
};

struct patch_file {
	char *old_path; /* after -pN; NULL for /dev/null (a new file) */
	char *new_path; /* after -pN; NULL for /dev/null (a deletion) */
	enum patch_op op;
	unsigned old_mode, new_mode; /* 0 when not given */
	unsigned similarity;         /* rename/copy similarity, percent */
	char *old_oid, *new_oid;     /* hex from "index a..b", NULL if none */
	bool binary;                 /* "GIT binary patch"/"Binary files" */
	struct patch_hunk *hunks;
	size_t nr_hunks;
	size_t lineno; /* first header line of this file in the patch text */
};

struct patch_field {
	char *key;   /* "Reviewed-by", "Description", ... */
	char *value; /* multi-line DEP-3 values joined with LF */
};

struct patch {
	struct buf raw; /* the bytes parsed; spans point into them */
	char *name;     /* names the patch in errors (file name) */

	char *author_name;  /* NULL when unknown */
	char *author_email; /* NULL when unknown */
	char *date;         /* RFC 2822 date as given, or NULL */
	char *subject;      /* title, "[PATCH ...]" tags removed, or NULL */
	char *commit;       /* "From <sha> Mon Sep 17 ..." or NULL */
	char *message_id;   /* Message-ID header without <>, or NULL */
	/* The body of the commit message (after the subject, before "---"
	 * or the diff), trailers included, ending in one LF (or empty). */
	struct buf message;
	struct patch_field *trailers; /* Signed-off-by: etc. from message */
	size_t nr_trailers;
	struct patch_field *dep3; /* DEP-3 header fields, in order */
	size_t nr_dep3;

	struct patch_file *files;
	size_t nr_files;
	/* The diff exactly as given: from the first file header to the end
	 * of the last hunk (a trailing "-- \n" signature excluded). */
	struct span diff;
};

struct patch_parse_opts {
	const char *name; /* for error messages; default "patch" */
	int strip;        /* -pN as for patch(1); default 1 */
	bool strip_set;   /* strip was given (else 1) */
};

void patch_init(struct patch *p);
void patch_release(struct patch *p);
/*
 * Parse a patch file: format-patch output (its header block read by
 * mail_parse), DEP-3 headers, or any text followed by a unified diff.
 * Paths that are absolute or contain a ".." component are rejected
 * (ERR_PARSE).  A hunk whose line counts do not match its body, a
 * truncated hunk, or a NUL byte fail with "name:line: ..." errors.
 * Text without any diff fails with ERR_PARSE, unless it is a pure header
 * change (mode, rename) which is fine.
 *
 * p must have been initialised; whatever it held is released first.  On
 * failure p is left empty (initialised), so releasing it is optional.
 * Text before the diff that is neither a mail header nor DEP-3 becomes
 * the message, with subject and author left NULL.  Binary file patches
 * parse (binary set, no hunks); patch_check_text refuses them.
 */
int patch_parse(struct patch *p, const char *text, size_t len,
		const struct patch_parse_opts *opts, struct err *err);

/* Add trailers (e.g. from review replies) that are not present yet. */
void patch_add_trailer(struct patch *p, const char *key, const char *value);

struct patch_format_opts {
	unsigned index, total; /* "[PATCH 3/17]" when total > 1 */
	const char *prefix;    /* "PATCH" by default */
};

/*
 * Write the patch in git format-patch form: "From <commit or 0*40> Mon Sep
 * 17 00:00:00 2001", From:, Date:, Subject: (RFC 2047 encoded when not
 * ASCII), blank line, message, "---", a diffstat, blank line, the diff
 * exactly as parsed (p->diff), and a "-- " signature line naming kcarry.
 * From: and Date: are left out when unknown (git am then needs an
 * author from elsewhere); a NULL subject is replaced by the patch name
 * without directory and .patch/.diff suffix.  Appends to out.
 */
void patch_format(struct buf *out, const struct patch *p,
		  const struct patch_format_opts *opts);
/* " fs/btrfs/x.c | 12 ++++--\n 1 file changed, ..." */
void patch_diffstat(struct buf *out, const struct patch *p);
/* File-name slug as git format-patch makes it: "btrfs-fix-the-thing". */
char *patch_slug(const char *subject);
/*
 * Why git's verify_path (core.protectHFS and protectNTFS on) would refuse
 * path as an entry of a tree with that mode ("is inside .git", "escapes
 * the tree", "is a .gitmodules symlink", ...), or NULL when it is fine.
 * A symlink git fsck flags (.gitattributes, .gitignore, .mailmap in any
 * HFS or NTFS spelling) is refused too.
 */
const char *patch_path_refused(const char *path, unsigned mode);
/* The path a file patch reads (old) or writes (new), whichever exists. */
const char *patch_file_path(const struct patch_file *f);
/*
 * Fail (ERR_PARSE) when a file patch is binary: kcarry cannot apply
 * those.  "name: 'path' is a binary patch, which kcarry cannot apply".
 */
int patch_check_text(const struct patch *p, struct err *err);

#endif
