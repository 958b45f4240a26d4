/*
 * mail: RFC 822/MIME messages and the containers they come in (mbox in
 * mboxo and mboxrd quoting, Maildir, single message files, git format-patch
 * output), decoded to UTF-8 text.  What a set of messages says as patch
 * mail (subject tags, threads, series, trailers in replies) is thread.c's
 * job; parsing the diff inside a patch is patch.c's.
 */
#ifndef KCARRY_MAIL_H
#define KCARRY_MAIL_H

#include "err.h"

/* Limits on untrusted input. */
#define MAIL_MAX_LINE (1024 * 1024)         /* one physical line */
#define MAIL_MAX_SIZE (256UL * 1024 * 1024) /* one container file */

struct mail_header {
	char *name;  /* as written, e.g. "Reviewed-by" or "Subject" */
	char *value; /* unfolded, RFC 2047 decoded, UTF-8 */
};

struct mail {
	/* Where it came from, for messages: "path:line". */
	char *source;
	size_t lineno;

	struct mail_header *headers;
	size_t nr_headers;

	/* Convenience copies of common headers (NULL when absent). */
	char *from_name;  /* decoded display name, or NULL */
	char *from_email; /* address without <> */
	char *subject;    /* decoded, whitespace folded to single spaces */
	char *date;       /* raw Date: value */
	long long date_epoch; /* seconds since the epoch, 0 if unparsable */
	int date_tz;          /* +0200 -> 120 (minutes) */
	char *message_id;     /* without <> */
	char *in_reply_to;    /* without <> */
	char **references;    /* without <>, oldest first */
	size_t nr_references;
	/* The sha of a "From <sha> Mon Sep 17 00:00:00 2001" line that
	 * opened the message (git format-patch output), or NULL. */
	char *commit_id;

	/*
	 * The text a reader sees: the first text/plain part (or the whole
	 * body when not multipart), transfer-decoded (base64, quoted-
	 * printable), with CRLF turned into LF when every line had it,
	 * format=flowed undone, converted to UTF-8 up to the first diff.
	 * A diff keeps its bytes (as git am keeps them).
	 */
	struct buf body;
	/*
	 * Text attachments that hold a diff (text/x-patch, text/x-diff,
	 * text/plain with a filename, application/octet-stream that decodes
	 * to a diff), decoded the same way (never unflowed), in message
	 * order.
	 */
	struct buf *attachments;
	char **attachment_names;
	size_t nr_attachments;
};

void mail_init(struct mail *m);
void mail_release(struct mail *m);
/*
 * Parse one message (headers + body); source names it in errors, whose
 * line numbers count from 1.  A leading "From <sha> ..." line (git
 * format-patch) is skipped and its sha kept in commit_id.  Lenient where
 * the container readers are strict: a line that is no header ends the
 * header, and a message may end inside its header.
 */
int mail_parse(struct mail *m, const char *data, size_t len,
	       const char *source, struct err *err);
/* Value of the first header with this name (case-insensitive), or NULL. */
const char *mail_header(const struct mail *m, const char *name);

struct mail_list {
	struct mail *items;
	size_t nr, alloc;
};

void mail_list_release(struct mail_list *l);
/*
 * Read every message of a path: an mbox file (mboxo or mboxrd quoting,
 * detected), a Maildir (cur/ and new/), a directory of message or
 * format-patch files, or a single message file.  Appends to *l.
 */
int mail_read_path(struct mail_list *l, const char *path, struct err *err);
/*
 * Whether data opens as an mbox: its first line that is not blank is a
 * "From " separator with a time and a year, or git format-patch's
 * "From <sha>" line.  A file that does is mail, and a message in it that
 * does not parse is an error, never a reason to read it as something else.
 */
bool mail_is_mbox(const char *data, size_t len);
/* Split an mbox held in memory; source names it in errors. */
int mail_read_mbox(struct mail_list *l, const char *data, size_t len,
		   const char *source, struct err *err);

/* RFC 2047 decode a header value into out (UTF-8). */
void mail_decode_header(struct buf *out, const char *value, size_t len);
/* Convert text in charset to UTF-8 (invalid bytes become U+FFFD). */
void mail_to_utf8(struct buf *out, const char *data, size_t len,
		  const char *charset);
/*
 * Encode a header value for writing: RFC 2047 Q when not plain ASCII,
 * folded with "\n " between encoded words; a trailing " <address>" stays
 * as it is so that the result still parses as an address.
 */
void mail_encode_header(struct buf *out, const char *value);
/*
 * Split an address header value ("Name <a@b>", "\"Name\" <a@b>", "<a@b>",
 * "a@b (Name)"; the first address of a list) into a decoded display name
 * and an address; either comes back NULL when absent.  Caller frees both.
 */
void mail_parse_address(const char *value, char **name, char **email);
/*
 * Parse an RFC 2822 date ("Tue,  2 Nov 2021 14:49:16 +0200 (CET)") into
 * seconds since the epoch and the zone in minutes east of UTC.  Returns
 * false (leaving both untouched) when it is not a date.
 */
bool mail_parse_date(const char *value, long long *epoch, int *tz);

/*
 * Pieces of message reading that the readers of patch mail share (the
 * series finder, subjects, trailers).
 */
/* Append s with every run of whitespace folded to one space, trimmed. */
void mail_add_folded(struct buf *out, const char *s, size_t n);
/* The same, as a new string. */
char *mail_folded_dup(const char *s, size_t n);
/* "Name: value" (also the obsolete "Name : value"): the name's length in
 * *name_len, where the colon is in *colon; false when l is no header. */
bool mail_header_line(struct span l, size_t *name_len, size_t *colon);
/* Whether a diff ("diff --git ", or "--- " then "+++ " then "@@ ")
 * starts at the line at p. */
bool mail_diff_starts(const char *p, const char *end);
/*
 * Whether s holds an unquoted diff, and where it starts in *off (when off
 * is not NULL); quoted lines start with '>' and never match.
 */
bool mail_find_diff(const char *s, size_t n, size_t *off);
/* "From <40 hex> ...", git format-patch's first line: its sha, lower case,
 * in sha. */
bool mail_commit_line(struct span l, char sha[41]);

#endif
