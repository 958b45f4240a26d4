/*
 * export: the backport of a carried series in the forms packagers and
 * stable maintainers consume: Debian quilt patches with DEP-3 headers,
 * RPM spec lines, SUSE kernel-source patches, a quilt directory, a
 * stable-style mbox for git send-email, a git branch.  One model of
 * per-patch metadata (author and date, upstream commit, lore link, bugs
 * and links, the backporter, what the backport adjusted) feeds every
 * format.  Writes only files of its own and the marked blocks of the
 * files it shares with the user (series, series.conf, spec); carrying
 * the series is carry.c's job.
 */
#ifndef KCARRY_EXPORT_H
#define KCARRY_EXPORT_H

#include "carry.h"

enum export_format {
	EXPORT_DEBIAN,
	EXPORT_RPM,
	EXPORT_SUSE,
	EXPORT_QUILT,
	EXPORT_MBOX,
	EXPORT_GIT,
};

/* "debian" -> EXPORT_DEBIAN; ERR_USAGE for an unknown name. */
int export_format_parse(enum export_format *f, const char *name,
			struct err *err);
const char *export_format_name(enum export_format f);

/* Where the upstream commit id of a patch came from. */
enum export_upstream {
	UPSTREAM_NONE,
	UPSTREAM_LINE,   /* "commit X upstream." or "[ Upstream commit X ]" */
	UPSTREAM_CHERRY, /* "(cherry picked from commit X)" */
	UPSTREAM_DEP3,   /* a DEP-3 Origin naming a commit */
	UPSTREAM_MAIL,   /* the commit a stable FAILED report embeds */
	UPSTREAM_GIT,    /* the commit 'import --git' read it from */
};

struct export_patch {
	size_t number;     /* 1-based position in the version */
	const struct carry_patch *cp; /* borrowed from the carry result */
	const char *file;  /* stored name "0003-btrfs-foo.patch" (borrowed) */
	char *slug;        /* "btrfs-foo" (Debian, SUSE), unique in the series */
	bool included;     /* committed on the branch with a change */
	char *why;         /* why not included: "conflict in 6.1", ... */

	char *subject;
	char *author_name, *author_email; /* NULL when unknown */
	char *date;        /* RFC 2822 as given, or NULL */
	char upstream[41]; /* upstream commit id, "" when unknown */
	enum export_upstream upstream_from;
	char *release;     /* first mainline release with it ("v6.12-rc3") */
	char *msgid;       /* Message-ID of the posted patch, or NULL */
	char *link;        /* https://lore.kernel.org/r/MSGID, or NULL */
	char **bugs;       /* Bug:, Closes: trailers and --bug values */
	size_t nr_bugs;
	char **links;      /* Link: trailers */
	size_t nr_links;
	char **reviewed;   /* "Reviewed-by\tName <email>" / "Acked-by\t..." */
	size_t nr_reviewed;
	/* DEP-3 fields the patch came with (a quilt or Debian import):
	 * "Key\tvalue" for Origin, Bug, Bug-*, Forwarded, Applied-Upstream */
	char **dep3;
	size_t nr_dep3;
	struct buf message; /* commit message body, trailers included */
	bool has_trailers;  /* the message ends in a trailer block */

	struct tree_oid parent, commit; /* on the branch (included only) */
	struct patch diff;  /* the diff the commit makes, parsed */
	bool adjusted;      /* anything but exact: offset, fuzz, 3-way, ... */
};

struct export_series {
	char *name, *version, *target;
	char *kernel;      /* "6.1.170" from the tree's Makefile, or NULL */
	char *stable;      /* "6.1.y", or NULL when the tree is no kernel */
	char *backporter_name, *backporter_email; /* NULL when unknown */
	char *branch;      /* refs/heads/kcarry/NAME/VERSION/TARGET */
	const char *cover_title; /* borrowed; NULL when none */
	char *cover_link;  /* lore link of the cover letter, or NULL */
	struct tree_oid base, head;
	long long now;     /* SOURCE_DATE_EPOCH, or the time of the export */
	struct export_patch *patches;
	size_t nr;
	size_t nr_included, nr_failed, nr_already, nr_risk, nr_adapted;
};

struct export_model_opts {
	const char *kind;  /* provenance of the version: mbox, git, quilt, apt */
	char **cover_msgids; /* msgid values of the version (cover first) */
	size_t nr_cover_msgids;
	const char *cover_title;
	const char *backporter_name, *backporter_email;
	long long now;
	const char *const *bugs; /* --bug values, for every patch */
	size_t nr_bugs;
	const char *mainline; /* release of the upstream commits, or NULL */
};

/*
 * The model of res (carried on repo; res and its version must outlive
 * s): per patch its metadata, and for each committed one the diff its
 * commit makes on the branch.  The target's kernel version is read from
 * the Makefile of the base tree.
 */
int export_model(struct export_series *s, struct tree_repo *repo,
		 const struct carry_result *res,
		 const struct export_model_opts *o, struct err *err);
void export_series_release(struct export_series *s);

/*
 * Refuse (ERR_CONFLICT, naming the patches) a series that did not carry
 * completely (conflict, partial, not tried) unless EXPORT_ALLOW_PARTIAL,
 * that has placement risks unless EXPORT_ALLOW_RISK, or adapted hunks no
 * person accepted unless EXPORT_ACCEPT_ADAPTED.
 */
enum export_allow {
	EXPORT_ALLOW_PARTIAL = 1 << 0,
	EXPORT_ALLOW_RISK = 1 << 1,
	EXPORT_ACCEPT_ADAPTED = 1 << 2,
};
int export_check_complete(const struct export_series *s, unsigned allow,
			  struct err *err);

/* ---- pieces every format uses (unit-tested) ---------------------------- */

/*
 * The upstream commit a patch names: "commit X upstream.",
 * "[ Upstream commit X ]", "(cherry picked from commit X)" in its message,
 * or a DEP-3 Origin with a commit id.  hex gets 40 digits, or "".
 */
enum export_upstream export_find_upstream(char hex[41],
					  const struct patch *p);

/*
 * A patch file name as distributions make them from a subject:
 * lower-case, dash-separated, whole words up to 72 characters
 * ("btrfs-fix-error-propagation-of-split-bios").  A new string.
 */
char *export_slug(const char *subject);

/* "6.1.170" from a kernel's top Makefile; NULL when it is none. */
char *export_kernel_version(const char *makefile, size_t len);

/*
 * What the backport adjusted, as one line: "fs/a.c: hunk 1 offset +5
 * lines, hunk 2 fuzz 1; fs/b.c: hunk 1 3-way merge".  Empty when every
 * hunk applied exactly.
 */
void export_adjustments(struct buf *out, const struct export_patch *p);

/*
 * The backporter's note, wrapped at 72 columns:
 * "[ Name: backported to 6.1.y: <adjustments> ]\n"; nothing when the
 * patch applied exactly.  With RHEL's note form (refresh.note = rhel):
 * lines of the Conflicts paragraph, "Conflicts: fs/a.c: hunk 1 offset
 * +5 lines\n" (or "  fs/a.c: ..." continuing the one of the adapted
 * notes, whose hunks it leaves out), unwrapped as those notes are.
 */
void export_note(struct buf *out, const struct export_series *s,
		 const struct export_patch *p);

enum export_upstream_style { UPSTREAM_STYLE_COMMIT, UPSTREAM_STYLE_BRACKET };

struct export_text_opts {
	bool signoff; /* add the backporter's Signed-off-by (Acked-by: SUSE) */
	enum export_upstream_style upstream_style; /* mbox */
	const char *const *to, *const *cc; /* mbox */
	size_t nr_to, nr_cc;
	/* mbox: the Message-ID (with or without <>) the first message
	 * answers; NULL: the stable FAILED report every exported patch
	 * came from, if there is one; "": none */
	const char *in_reply_to;
	/* mbox: the tag in [...] before n/m (default "PATCH 6.1.y") */
	const char *subject_prefix;
	size_t index, total; /* mbox: n/m of the exported patches */
};

/* A Debian patch: DEP-3 header (only fields DEP-3 defines), diff. */
void export_debian_patch(struct buf *out, const struct export_series *s,
			 const struct export_patch *p,
			 const struct export_text_opts *o);
/* A SUSE kernel-source patch: Patch-mainline, Git-commit, References. */
void export_suse_patch(struct buf *out, const struct export_series *s,
		       const struct export_patch *p,
		       const struct export_text_opts *o);
/* A stable-style message: [PATCH 6.1.y n/m], the upstream line first. */
void export_mbox_patch(struct buf *out, const struct export_series *s,
		       const struct export_patch *p,
		       const struct export_text_opts *o);
/*
 * The Message-ID of the stable FAILED report that every exported patch of
 * s was imported from (one report), or NULL: what a backport answers.
 */
const char *export_failed_report(const struct export_series *s);
/* The cover letter [PATCH 6.1.y 0/m] of an mbox export. */
void export_mbox_cover(struct buf *out, const struct export_series *s,
		       const struct export_text_opts *o);
/* Commit message in git form: (cherry picked from commit X), the note. */
void export_git_message(struct buf *out, const struct export_series *s,
			const struct export_patch *p,
			const struct export_text_opts *o);
/* git format-patch form of the git message (RPM patches). */
void export_git_patch(struct buf *out, const struct export_series *s,
		      const struct export_patch *p,
		      const struct export_text_opts *o);
/* What 'refresh' writes: the stored message, the adjustments after ---. */
void export_quilt_patch(struct buf *out, const struct export_series *s,
			const struct export_patch *p);

/*
 * Replace the block "# kcarry export begin: KEY" .. "# kcarry export end:
 * KEY" of text by body (lines, each ending in LF), or insert it at byte
 * offset at (SIZE_MAX: at the end) when text has none.  *old gets the
 * lines the old block held (NULL when none).  A begin without its end
 * fails with ERR_PARSE.
 */
int export_block_update(struct buf *text, const char *key,
			const char *body, size_t at, struct buf *old,
			struct err *err);

/* ---- writing a format ------------------------------------------------- */

struct export_opts {
	enum export_format format;
	const char *out;    /* -o DIR (default "."), patch files for rpm */
	const char *into;   /* --into: a Debian source package, a spec, a
			       kernel-source checkout */
	const char *subdir; /* debian/patches/SUBDIR (default kcarry/NAME) */
	unsigned start;     /* rpm: first PatchN number */
	bool autopatch;     /* rpm: %autopatch -m/-M instead of %patch */
	const char *branch; /* git: the branch to write */
	const char *git_dir; /* git: another repository to write into */
	const char *onto;   /* git: its commit to build on */
	struct export_text_opts text;
};

/*
 * Refuse (ERR_USAGE) options that would write something other than meant:
 * a line break or another control character in --to, --cc,
 * --in-reply-to or --subject-prefix (it would start a header of its
 * own); a --subdir that is not a plain relative folder of names quilt
 * reads as one word ([A-Za-z0-9._+~-], none starting with '.') or that
 * is 'series'; a --branch that is no valid local branch name (git
 * check-ref-format --branch; "refs/heads/" may lead).
 */
int export_check_opts(const struct export_opts *o, struct err *err);

/* What export_write did, for the command to print. */
struct export_written {
	char **lines; /* "path" written, or "path (block 'NAME')" */
	size_t nr, alloc;
	char *where;  /* the folder, spec or branch */
	/* what the user should know of the result: "PATCH changes the
	 * symlink 'path': dpkg-source refuses such a patch" */
	char **notes;
	size_t nr_notes, alloc_notes;
};

void export_written_release(struct export_written *w);

/*
 * Write s in format o->format.  Files are written only where kcarry
 * wrote them before (named in its marked block) or where nothing is;
 * anything else in the way fails with ERR_EXISTS before a file is
 * written.  All or nothing: every file goes to a temporary beside it
 * first, renamed into place once all are written; the folder written in
 * (--into's, else -o's) is locked (flock) meanwhile.  repo is the
 * repository s was carried on.
 */
int export_write(struct export_written *w, const struct export_series *s,
		 struct tree_repo *repo, const struct export_opts *o,
		 struct err *err);

#endif
