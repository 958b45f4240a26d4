/*
 * fetch: every HTTP(S) download kcarry does (mail threads, search
 * results, tarballs, Debian files), through libcurl.  It owns the rules
 * they share: http and https only (redirects included, never from https
 * down to http), certificate checks, proxies from the environment, a
 * connect timeout, a low-speed limit and a total timeout, a size cap
 * checked against Content-Length and while the body streams, retries with
 * backoff on 429 and 5xx (Retry-After honoured within a limit), and the
 * cache: a body is verified by the caller's check before it is kept,
 * never kept on failure, and revalidated with ETag / If-Modified-Since.
 * The only module that includes <curl/curl.h>.
 */
#ifndef KCARRY_FETCH_H
#define KCARRY_FETCH_H

#include "err.h"

struct fetch_progress {
	/*
	 * Bytes of what (a file name) so far and in total (0: unknown),
	 * now and then; once more with done at the end of a transfer.
	 */
	void (*bytes)(void *ctx, const char *what, unsigned long long now,
		      unsigned long long total, bool done);
	/* A retry after wait_ms; why says what went wrong ("HTTP 503"). */
	void (*retry)(void *ctx, const char *url, const char *why, long wait_ms,
		      unsigned attempt, unsigned retries);
	void *ctx;
};

/* Limits of every download; 0 turns a limit off (see fetch_opts_init). */
struct fetch_limits {
	long connect_timeout_ms;
	long timeout_ms;	     /* one attempt, from start to end */
	long low_speed_limit;	     /* bytes per second ... */
	long low_speed_time;	     /* ... for this many seconds: abort */
	unsigned long long max_size; /* bytes of one body */
	unsigned retries;	     /* after the first attempt */
	long retry_wait_ms;	     /* first backoff, doubled each time */
	long retry_max_wait_ms;	     /* longest wait, Retry-After included */
	long max_redirects;
};

struct fetch_opts {
	struct fetch_limits limits;
	bool offline;	    /* use the cache only */
	const char *cainfo; /* CA bundle in place of the system's, or NULL */
	const struct fetch_progress *progress;
};

/* The defaults: 30 s to connect, 1 KiB/s for 60 s, 1 h in all, 2 GiB,
 * 3 retries from 1 s up to 60 s, 5 redirects. */
void fetch_opts_init(struct fetch_opts *o);

/* libcurl's global state: once, in main, before any thread starts. */
int fetch_global_init(struct err *err);
void fetch_global_shutdown(void);

/* The cache folder: $KCARRY_CACHE, $XDG_CACHE_HOME/kcarry, ~/.cache/kcarry. */
char *fetch_cache_dir(void);
/*
 * Where a download of url is kept: <cache>/<area>/HOST[_PORT]/PATH, each
 * segment of the URL's path made safe as a file name; a query string
 * becomes a hash.  A new string.
 */
char *fetch_cache_path(const char *area, const char *url);

struct fetch_request {
	const char *url;
	const char *path; /* where the verified body is kept */
	bool post;	  /* POST with an empty body (public-inbox search) */
	unsigned long long max_size; /* a tighter cap than the limits, or 0 */
	/*
	 * Checks the downloaded body (the file tmp) before it replaces
	 * path; a failure keeps nothing.  NULL: any body is fine.
	 */
	int (*verify)(const char *tmp, void *ctx, struct err *err);
	void *verify_ctx;
};

enum fetch_source {
	FETCH_DOWNLOADED,   /* a new body is at path */
	FETCH_NOT_MODIFIED, /* the server said 304: the cached copy stands */
	FETCH_OFFLINE,	    /* offline: the cached copy, unchecked */
};

struct fetch_result {
	enum fetch_source source;
	long status;	       /* the last HTTP status, 0 when none */
	struct buf error_body; /* the first KiB of an error response */
};

void fetch_result_release(struct fetch_result *r);

/*
 * Download req->url into req->path.  A cached copy whose record names the
 * same URL is revalidated (If-None-Match, If-Modified-Since); offline it
 * is used as it is, and its absence is an error.  Errors (ERR_IO unless
 * said otherwise) name the URL and the HTTP status or the limit hit;
 * ERR_USAGE for a URL that is not http or https.
 */
int fetch_url(struct fetch_result *res, const struct fetch_request *req,
	      const struct fetch_opts *o, struct err *err);

/*
 * url without its user part ("https://user:pass@host/x" ->
 * "https://host/x"): what is stored, cached and shown of a URL, while the
 * request itself still uses the credentials.  A new string.
 */
char *fetch_url_public(const char *url);

/* "RFC 3986 pchar" escaping of one path segment ('/' escaped). */
void fetch_escape_segment(struct buf *out, const char *s);
/* Form escaping of a query value (space as '+'), as b4 sends it. */
void fetch_escape_query(struct buf *out, const char *s);

#endif
