/*
 * lore: mail threads by Message-ID from a public-inbox server
 * (lore.kernel.org and its like).  Which server a series uses, what a
 * message-id or an archive URL on the command line names, downloading a
 * thread as public-inbox serves it (/INBOX/MSGID/t.mbox.gz, gzip) into the
 * cache and importing it exactly as a local mbox, and asking the server's
 * search for later revisions of a series, as b4 am -c does.  HTTP is
 * fetch.c's job, reading mail is mail.c's.
 */
#ifndef KCARRY_LORE_H
#define KCARRY_LORE_H

#include "fetch.h"
#include "import.h"
#include "mail.h"

struct settings;

/* A thread named on the command line. */
struct lore_ref {
	char *base;  /* "https://lore.kernel.org/linux-btrfs/", or NULL */
	char *msgid; /* without <> */
};

/*
 * What arg names: 1 a thread (a message-id, <message-id>, mid:ID, or an
 * http(s) URL of an archive whose path holds the message-id, as in
 * https://lore.kernel.org/all/ID/ or .../ID/T/#u), filling out; 0 not a
 * thread (a file name); ERR_USAGE for a URL that names no message.
 */
int lore_parse_ref(struct lore_ref *out, const char *arg, struct err *err);
void lore_ref_release(struct lore_ref *r);
/* A message-id kcarry accepts: printable, no space, no <>, one '@'. */
bool lore_valid_msgid(const char *s);

/*
 * The server of series NAME: series.list-url of series/NAME.conf, else
 * the archive its newest stored version was fetched from, else the
 * workspace's (kcarry.lore in kcarry.conf, KCARRY_LORE, default
 * https://lore.kernel.org/all/).  A new string ending in '/'.
 */
char *lore_server(const char *root, const char *name,
		  const struct settings *set);

/* BASE + escaped MSGID + "/": the thread's page. */
char *lore_thread_url(const char *base, const char *msgid);

struct lore_thread {
	char *url;  /* the thread's page */
	char *mbox; /* the thread as an mbox file in the cache */
	enum fetch_source source;
};

/*
 * Download the thread of msgid from base (BASE/MSGID/t.mbox.gz) into
 * <cache>/lore/HOST/INBOX/MSGID/: the gzip body, checked to be a gzip'd
 * mbox before it is kept, and t.mbox, the thread inflated.
 */
int lore_fetch_thread(struct lore_thread *t, const char *base,
		      const char *msgid, const struct fetch_opts *o,
		      struct err *err);
void lore_thread_release(struct lore_thread *t);

/*
 * Fetch the thread and read it as import reads a local mbox; every
 * candidate's source is the thread's URL.
 */
int lore_import_thread(struct import_set *set, struct lore_thread *t,
		       const char *base, const char *msgid,
		       const struct import_opts *io, struct err *err);
/*
 * The candidate of set that holds msgid, else the one named version,
 * else the only one unless version is a vN it is not; -1 when none fits.
 */
long lore_pick(const struct import_set *set, const char *msgid,
	       const char *version);

/* Inflate gzip data (members one after another); beyond limit fails. */
int lore_gunzip(struct buf *out, const char *data, size_t len, size_t limit,
		const char *what, struct err *err);

/* What identifies a series across its revisions (b4's rules). */
struct lore_series_id {
	char *title; /* cover letter's (or first patch's) subject, untagged */
	char *email; /* who posted it */
	bool has_cover;	 /* email is the cover's sender, not an author */
	char *change_id; /* b4's "change-id:" of the cover, or NULL */
	unsigned version;
	long long date; /* posted, seconds since the epoch (0: unknown) */
};

void lore_series_id_release(struct lore_series_id *id);
/*
 * From a stored version: its cover letter (or first patch) and its name,
 * vN.  ERR_USAGE when the version is not a mail version (no vN name).
 */
int lore_series_id_from_version(struct lore_series_id *id,
				const struct series_version *v,
				struct err *err);
/*
 * The public-inbox search b4 sends for later revisions:
 * (s:"TITLE" AND f:"EMAIL") [OR nq:"change-id: ID"] AND d:YYYYMMDD..
 * (f: only when the sender is known).  A new string.
 */
char *lore_newer_query(const struct lore_series_id *id);
/* Subjects as the same title: case and runs of blanks ignored. */
bool lore_title_eq(const char *a, const char *b);

struct lore_revision {
	unsigned version;
	char *msgid;   /* its cover letter's, else its first patch's */
	char *subject; /* as posted */
	char *date;
	long long epoch;
	unsigned total; /* patches its tags announce */
	unsigned index; /* 0: a cover letter or a lone patch; 1: patch 1/N */
};

struct lore_revisions {
	struct lore_revision *items; /* by version, oldest first */
	size_t nr, alloc;
};

void lore_revisions_release(struct lore_revisions *r);
/*
 * The revisions above id->version among messages l: not replies, a patch
 * tag with a higher vN, the same title and author (or the same change-id).
 */
void lore_match_newer(struct lore_revisions *out, const struct mail_list *l,
		      const struct lore_series_id *id);
/* Ask base's search (POST ?x=m&q=...) and match the answer. */
int lore_find_newer(struct lore_revisions *out, const char *base,
		    const struct lore_series_id *id, const struct fetch_opts *o,
		    struct err *err);

#endif
