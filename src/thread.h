/*
 * thread: what a set of parsed messages says as patch mail, as b4 and git
 * am read it: the tags of a subject ("[PATCH v3 07/17]"), the author of
 * a patch (in-body From:), threads assembled by Message-ID/In-Reply-To/
 * References, the series posted in them (cover letter, patches in order,
 * versions), the trailers given in replies and the base-commit.  Reading
 * and decoding a message is mail.c's job; parsing the diff inside a
 * patch is patch.c's.  Its names are those it had as part of mail.h
 * (subject_parse, mail_find_series, mail_author): its callers did not
 * change.
 */
#ifndef KCARRY_THREAD_H
#define KCARRY_THREAD_H

#include "mail.h"

/* What a subject line says: "[RFC PATCH v3 07/17] btrfs: foo". */
struct subject_info {
	bool is_reply;  /* Re:, Fwd:, AW:, Sv:, 回复:, ... before the tags */
	bool has_patch_tag;
	bool rfc;
	bool resend;
	unsigned version; /* 1 when the tag has no vN */
	unsigned index;   /* 7 in 07/17; 0 for a cover letter or no number */
	unsigned total;   /* 17; 0 when not numbered */
	char *title;      /* "btrfs: foo": tags and reply prefixes removed */
};

void subject_parse(struct subject_info *si, const char *subject);
void subject_info_release(struct subject_info *si);

/* One patch found in a set of messages. */
struct mail_patch {
	const struct mail *msg; /* the message it came from (borrowed) */
	struct subject_info subj;
	/*
	 * A self-contained patch file in git format-patch form, UTF-8:
	 * "From: Name <email>\nDate: ...\nSubject: [PATCH] title\n
	 *  Message-ID: <...>\n\n" + commit message (with in-body From:/
	 * Subject:/Date: applied, trailers collected from replies appended
	 * after the message's own trailers) + "---" + diff.  For a stable
	 * "FAILED: ... failed to apply" report, the embedded upstream
	 * commit's own header, message and diff.  patch_parse reads this.
	 */
	struct buf text;
	char **extra_trailers; /* trailers collected from replies */
	size_t nr_extra_trailers;
	/* What text says, for callers that list patches: the author after
	 * in-body From: (NULL when unknown), the date as written (or NULL)
	 * and the upstream sha of a "From <sha>" line (or NULL). */
	char *author_name;
	char *author_email;
	char *date;
	char *commit_id;
};

/* One posted version of a series: cover letter and patches in order. */
struct mail_series {
	unsigned version;
	unsigned total;             /* N of the 0/N or n/N tags, or nr_patches */
	const struct mail *cover;   /* NULL when there is none */
	char *cover_title;          /* subject title of the cover, or NULL */
	char *base_commit;          /* "base-commit:" from the cover, or NULL */
	struct mail_patch *patches; /* ordered by index */
	size_t nr_patches;
	char **msgids; /* message-ids of the cover and patches */
	size_t nr_msgids;
	/* Trailer lines of replies not taken, as b4 does not take them:
	 * not the plain address of the reply's sender ("TRAILER (reply
	 * from ADDRESS)"). */
	char **skipped_trailers;
	size_t nr_skipped_trailers;
};

struct mail_series_list {
	struct mail_series *items; /* ordered by version, oldest first */
	size_t nr, alloc;
};

/*
 * Find the series in a set of messages: assemble threads, tell patches
 * from review mail (a reply that quotes a patch is not a patch), group
 * patches by version, collect trailers from replies onto the patch they
 * answer (trailers given to the cover letter go to every patch, as b4
 * does).  Messages that carry no patch are ignored.  Fails with
 * ERR_NOTFOUND when there is no patch at all.
 */
int mail_find_series(struct mail_series_list *out, const struct mail_list *l,
		     struct err *err);
void mail_series_list_release(struct mail_series_list *l);

/*
 * The author of a message: the in-body "From:" when its body opens with
 * one (a patch sent on someone's behalf), else its From: header.  New
 * strings, NULL when absent.
 */
void mail_author(const struct mail *m, char **name, char **email);

#endif
