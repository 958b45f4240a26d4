#include "fetch.h"

#include <curl/curl.h>
#include <ctype.h>
#include <errno.h>
#include <dirent.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "fs.h"

#define ERROR_BODY_MAX 1024

void fetch_opts_init(struct fetch_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->limits.connect_timeout_ms = 30 * 1000;
	o->limits.timeout_ms = 3600 * 1000;
	o->limits.low_speed_limit = 1024;
	o->limits.low_speed_time = 60;
	o->limits.max_size = 2ULL << 30;
	o->limits.retries = 3;
	o->limits.retry_wait_ms = 1000;
	o->limits.retry_max_wait_ms = 60 * 1000;
	o->limits.max_redirects = 5;
}

int fetch_global_init(struct err *err)
{
	CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);

	if (rc != CURLE_OK)
		return err_set(err, ERR_IO, "cannot start libcurl: %s",
			       curl_easy_strerror(rc));
	return 0;
}

void fetch_global_shutdown(void)
{
	curl_global_cleanup();
}

void fetch_result_release(struct fetch_result *r)
{
	buf_release(&r->error_body);
	memset(r, 0, sizeof(*r));
	r->error_body = (struct buf)BUF_INIT;
}

char *fetch_cache_dir(void)
{
	const char *e = getenv("KCARRY_CACHE");
	if (e && *e)
		return xstrdup(e);
	e = getenv("XDG_CACHE_HOME");
	if (e && *e)
		return fs_join(e, "kcarry");
	e = getenv("HOME");
	return xstrfmt("%s/.cache/kcarry", e && *e ? e : "/tmp");
}

static void sha256_hex(char hex[65], const void *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	hex[0] = '\0';
	if (EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) != 1)
		return;
	for (unsigned i = 0; i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* One segment of a URL as a file name: no '/', no leading '.', short. */
static void add_safe_segment(struct buf *out, const char *s, size_t len)
{
	if (len > 120) {
		char hex[65];
		sha256_hex(hex, s, len);
		buf_adds(out, hex);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (isalnum(c) || strchr("-_.~+@%,=:", c))
			buf_addc(out, (char)((i == 0 && c == '.') ? '_' : c));
		else
			buf_addc(out, '_');
	}
	if (!len)
		buf_addc(out, '_');
}

char *fetch_cache_path(const char *area, const char *url)
{
	char *cache = fetch_cache_dir();
	struct buf p = BUF_INIT;
	const char *s = strstr(url, "://"), *end, *q;

	buf_addf(&p, "%s/%s", cache, area);
	free(cache);
	s = s ? s + 3 : url;
	/* host (and port; never user:password@), then each path segment */
	end = s + strcspn(s, "/?#");
	for (const char *at = s; at < end; at++)
		if (*at == '@')
			s = at + 1;
	buf_addc(&p, '/');
	add_safe_segment(&p, s, (size_t)(end - s));
	s = end;
	q = s + strcspn(s, "?#");
	while (s < q) {
		const char *seg, *next;
		s++; /* the '/' */
		seg = s;
		next = memchr(seg, '/', (size_t)(q - seg));
		if (!next)
			next = q;
		if (next > seg) {
			buf_addc(&p, '/');
			add_safe_segment(&p, seg, (size_t)(next - seg));
		}
		s = next;
	}
	if (*q == '?') {
		size_t qlen = strcspn(q, "#");
		char hex[65];
		sha256_hex(hex, q, qlen);
		buf_addf(&p, "/query-%.16s", hex);
	}
	return buf_detach(&p, NULL);
}

static bool pchar(unsigned char c)
{
	return isalnum(c) || strchr("-._~!$&'()*+,;=:@", c);
}

void fetch_escape_segment(struct buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (pchar(c) && c < 0x80)
			buf_addc(out, (char)c);
		else
			buf_addf(out, "%%%02X", c);
	}
}

void fetch_escape_query(struct buf *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x80 && (isalnum(c) || strchr("-._~", c)))
			buf_addc(out, (char)c);
		else if (c == ' ')
			buf_addc(out, '+');
		else
			buf_addf(out, "%%%02X", c);
	}
}

/* What is known of the cached copy: the URL it came from, its validators. */
struct cache_record {
	char *url, *etag, *last_modified;
};

static void record_release(struct cache_record *r)
{
	free(r->url);
	free(r->etag);
	free(r->last_modified);
	memset(r, 0, sizeof(*r));
}

/* dir/.NAME.http beside dir/NAME: no download is named so (see above). */
static char *record_path(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrfmt(".%s.http", path);
	return xstrfmt("%.*s/.%s.http", (int)(slash - path), path, slash + 1);
}

static void record_read(struct cache_record *r, const char *path)
{
	char *rp = record_path(path);
	struct conf *c = NULL;
	struct err err = ERR_INIT;

	memset(r, 0, sizeof(*r));
	if (fs_is_file(rp) && conf_open(&c, rp, false, &err) == 0) {
		r->url = conf_get_or(c, "http.url", NULL);
		r->etag = conf_get_or(c, "http.etag", NULL);
		r->last_modified = conf_get_or(c, "http.last-modified", NULL);
		conf_free(c);
	}
	err_release(&err);
	free(rp);
}

/* Written aside and renamed: a record is whole or absent. */
static int record_write(const char *path, const struct cache_record *r,
			struct err *err)
{
	char *rp = record_path(path);
	char *tmp = xstrfmt("%s.tmp.%ld", rp, (long)getpid());
	struct conf *c = NULL;
	int error;

	unlink(tmp);
	if ((error = conf_open(&c, tmp, true, err)) < 0)
		goto out;
	if ((error = conf_set(c, "http.url", r->url, err)) < 0 ||
	    (r->etag && (error = conf_set(c, "http.etag", r->etag, err)) < 0) ||
	    (r->last_modified && (error = conf_set(c, "http.last-modified",
						   r->last_modified, err)) < 0))
		goto out;
	if (rename(tmp, rp) < 0)
		error = err_set(err, ERR_IO, "cannot write '%s': %s", rp,
				strerror(errno));
out:
	conf_free(c);
	if (error)
		unlink(tmp);
	free(tmp);
	free(rp);
	return error;
}

/* One transfer: what the callbacks learn. */
struct xfer {
	CURL *h;
	FILE *file;
	const char *what;
	const char *request_url; /* with its credentials, if any */
	unsigned long long got, limit;
	bool over;
	long status;
	struct buf reason;
	struct buf content_type;
	struct buf etag, last_modified;
	long long content_length; /* -1: not announced */
	struct buf *error_body;
	bool cut; /* the rest of an error response was not read */
	size_t header_bytes; /* of the response being read */
	bool header_over;    /* more than FETCH_MAX_HEADER */
	const struct fetch_progress *progress;
	struct timespec last_report;
	bool reported;
};

/* Bytes of one response's header: libcurl's own cap on one line is
 * larger (100 KiB and up), this one counts all the lines. */
#define FETCH_MAX_HEADER (64 * 1024)

static bool is_error_status(long status)
{
	return status >= 400;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct xfer *x = ctx;
	size_t n = size * nmemb;
	long status = 0;

	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
	if (is_error_status(status) || status == 304) {
		/* an error page is kept (a little of it), never cached */
		size_t room = ERROR_BODY_MAX - x->error_body->len;
		buf_add(x->error_body, ptr, n < room ? n : room);
		if (n >= room) {
			x->cut = true;
			return 0;
		}
		return n;
	}
	if (x->limit && x->got + n > x->limit) {
		x->over = true;
		return 0;
	}
	x->got += n;
	if (fwrite(ptr, 1, n, x->file) != n)
		return 0;
	return n;
}

static void set_header(struct buf *dst, const char *v, size_t len)
{
	buf_reset(dst);
	buf_add(dst, v, len);
	buf_rtrim(dst);
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct xfer *x = ctx;
	size_t n = size * nmemb;
	struct span line = { ptr, n }, v;

	line = span_trim(line);
	if (span_starts_with(line, "HTTP/"))
		x->header_bytes = 0;
	x->header_bytes += n;
	if (x->header_bytes > FETCH_MAX_HEADER) {
		x->header_over = true;
		return 0; /* ends the transfer */
	}
	if (span_starts_with(line, "HTTP/")) {
		/* a new response (after a redirect, or 100 Continue) */
		const char *sp = memchr(line.ptr, ' ', line.len);
		buf_reset(&x->reason);
		buf_reset(&x->content_type);
		buf_reset(&x->etag);
		buf_reset(&x->last_modified);
		x->content_length = -1;
		if (sp) {
			const char *end = line.ptr + line.len;
			x->status = strtol(sp + 1, NULL, 10);
			sp = memchr(sp + 1, ' ', (size_t)(end - sp - 1));
			if (sp)
				set_header(&x->reason, sp + 1,
					   (size_t)(end - sp - 1));
		}
		return n;
	}
	v = line;
	if (span_starts_with_ci(line, "content-type:")) {
		v.ptr += 13, v.len -= 13;
		v = span_trim(v);
		set_header(&x->content_type, v.ptr, v.len);
	} else if (span_starts_with_ci(line, "etag:")) {
		v.ptr += 5, v.len -= 5;
		v = span_trim(v);
		set_header(&x->etag, v.ptr, v.len);
	} else if (span_starts_with_ci(line, "content-length:")) {
		char *t = span_dup(line);
		x->content_length = strtoll(t + 15, NULL, 10);
		free(t);
	} else if (span_starts_with_ci(line, "last-modified:")) {
		v.ptr += 14, v.len -= 14;
		v = span_trim(v);
		set_header(&x->last_modified, v.ptr, v.len);
	}
	return n;
}

static long elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 +
	       (b->tv_nsec - a->tv_nsec) / 1000000;
}

static int on_xfer(void *ctx, curl_off_t dltotal, curl_off_t dlnow,
		   curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = ctx;
	struct timespec now;
	long status = 0;

	if (!x->progress || !x->progress->bytes || dlnow <= 0)
		return 0;
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &status);
	if (is_error_status(status) || status == 304)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (x->reported && elapsed_ms(&x->last_report, &now) < 200)
		return 0;
	x->last_report = now;
	x->reported = true;
	x->progress->bytes(x->progress->ctx, x->what, (unsigned long long)dlnow,
			   (unsigned long long)dltotal, false);
	return 0;
}

static void human_size(char *out, size_t len, unsigned long long n)
{
	if (n >= 1ULL << 30)
		snprintf(out, len, "%.1f GiB", (double)n / (1ULL << 30));
	else if (n >= 1ULL << 20)
		snprintf(out, len, "%.1f MiB", (double)n / (1ULL << 20));
	else if (n >= 1ULL << 10)
		snprintf(out, len, "%.1f KiB", (double)n / (1ULL << 10));
	else
		snprintf(out, len, "%llu bytes", n);
}

static void human_ms(char *out, size_t len, long ms)
{
	if (ms % 1000)
		snprintf(out, len, "%.1f s", (double)ms / 1000);
	else
		snprintf(out, len, "%ld s", ms / 1000);
}

/* "HTTP 404 Not Found": the status and its reason phrase. */
static void describe_status(struct buf *out, long status, const char *reason)
{
	static const struct {
		long code;
		const char *text;
	} known[] = {
		{ 400, "Bad Request" },
		{ 401, "Unauthorized" },
		{ 403, "Forbidden" },
		{ 404, "Not Found" },
		{ 408, "Request Timeout" },
		{ 410, "Gone" },
		{ 429, "Too Many Requests" },
		{ 500, "Internal Server Error" },
		{ 501, "Not Implemented" },
		{ 502, "Bad Gateway" },
		{ 503, "Service Unavailable" },
		{ 504, "Gateway Timeout" },
	};

	buf_addf(out, "HTTP %ld", status);
	if (reason && *reason) {
		buf_addf(out, " %s", reason);
		return;
	}
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].code == status)
			buf_addf(out, " %s", known[i].text);
}

static bool retry_status(long status)
{
	return status == 408 || status == 429 ||
	       (status >= 500 && status <= 599 && status != 501 &&
		status != 505);
}

static bool retry_curl(CURLcode rc)
{
	return rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR ||
	       rc == CURLE_PARTIAL_FILE || rc == CURLE_GOT_NOTHING ||
	       rc == CURLE_HTTP2 || rc == CURLE_HTTP2_STREAM;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

char *fetch_url_public(const char *url)
{
	const char *s = strstr(url, "://"), *end, *at = NULL;

	if (!s)
		return xstrdup(url);
	s += 3;
	end = s + strcspn(s, "/?#");
	for (const char *p = s; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return xstrdup(url);
	return xstrfmt("%.*s%s", (int)(s - url), url, at + 1);
}

static bool is_http_url(const char *url)
{
	return !strncasecmp(url, "http://", 7) ||
	       !strncasecmp(url, "https://", 8);
}

/* The file name a URL ends in, for progress lines. */
static const char *url_name(const char *url)
{
	const char *end = url + strcspn(url, "?#"), *p = end;

	while (p > url && p[-1] == '/')
		p--;
	while (p > url && p[-1] != '/')
		p--;
	return *p ? p : url;
}

static void set_options(CURL *h, const struct fetch_request *req,
			const struct fetch_opts *o, struct xfer *x,
			char *errbuf, struct curl_slist *headers)
{
	const struct fetch_limits *l = &o->limits;

	curl_easy_setopt(h, CURLOPT_URL, x->request_url);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	/* never to another protocol, and never from https down to http */
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR,
			 strncasecmp(req->url, "https:", 6) ? "http,https"
							    : "https");
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, l->max_redirects ? 1L : 0L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, l->max_redirects);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (o->cainfo && *o->cainfo)
		curl_easy_setopt(h, CURLOPT_CAINFO, o->cainfo);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kcarry/" KCARRY_VERSION);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, l->connect_timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, l->timeout_ms);
	if (l->low_speed_limit > 0 && l->low_speed_time > 0) {
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT,
				 l->low_speed_limit);
		curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, l->low_speed_time);
	}
	if (x->limit)
		curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE,
				 (curl_off_t)x->limit);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_xfer);
	curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
	if (req->post) {
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, 0L);
	}
	if (headers)
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
}

/* The words for a failed transfer; retry says whether to try again. */
static int transfer_error(struct err *err, const struct xfer *x, CURLcode rc,
			  const char *errbuf, const struct fetch_request *req,
			  const struct fetch_opts *o)
{
	const struct fetch_limits *l = &o->limits;
	char a[32], b[32];
	int error;

	if (x->over || rc == CURLE_FILESIZE_EXCEEDED) {
		long long cl = x->content_length;
		human_size(b, sizeof(b), x->limit);
		if (cl > 0 && (unsigned long long)cl > x->limit) {
			human_size(a, sizeof(a), (unsigned long long)cl);
			error = err_set(
				err, ERR_IO,
				"cannot fetch '%s': the server announces "
				"%s, more than the %s limit",
				req->url, a, b);
		} else
			error = err_set(err, ERR_IO,
					"cannot fetch '%s': more than the %s "
					"limit arrived",
					req->url, b);
		if (!req->max_size || req->max_size > l->max_size)
			err_hint(err, "http.max-size in kcarry.conf or "
				      "KCARRY_HTTP_MAX_SIZE raises the limit");
		return error;
	}
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		/* libcurl's words tell which of the three limits it was */
		if (strstr(errbuf, "too slow")) {
			human_size(a, sizeof(a),
				   (unsigned long long)l->low_speed_limit);
			error = err_set(
				err, ERR_IO,
				"cannot fetch '%s': slower than %s/s for "
				"%ld s (http.low-speed-limit, "
				"http.low-speed-time)",
				req->url, a, l->low_speed_time);
		} else if (strstr(errbuf, "onnection timed out") ||
			   strstr(errbuf, "esolving timed out")) {
			human_ms(a, sizeof(a), l->connect_timeout_ms);
			error = err_set(
				err, ERR_IO,
				"cannot fetch '%s': no connection after "
				"%s (http.connect-timeout)",
				req->url, a);
		} else {
			human_ms(a, sizeof(a), l->timeout_ms);
			error = err_set(err, ERR_IO,
					"cannot fetch '%s': not done after %s "
					"(http.timeout)",
					req->url, a);
		}
		err_hint(err, "the limits are set in kcarry.conf [http] or "
			      "KCARRY_HTTP_* (kcarry(1), NETWORK)");
		return error;
	}
	/* libcurl ends a header line longer than its own cap (100 KiB or
	 * more, never below ours) with "Out of memory" */
	if (x->header_over || (rc == CURLE_OUT_OF_MEMORY && !x->got)) {
		human_size(b, sizeof(b), FETCH_MAX_HEADER);
		return err_set(err, ERR_IO,
			       "cannot fetch '%s': the server's response "
			       "header is larger than the %s limit",
			       req->url, b);
	}
	if (x->status >= 100 && x->status < 200)
		return err_set(err, ERR_IO,
			       "cannot fetch '%s': the server sent an "
			       "unexpected response (HTTP %ld, then no final "
			       "status)",
			       req->url, x->status);
	/* libcurl's words for a status line that is no HTTP */
	if (rc == CURLE_UNSUPPORTED_PROTOCOL && errbuf &&
	    strstr(errbuf, "HTTP/0.9"))
		return err_set(err, ERR_IO,
			       "cannot fetch '%s': the server sent a "
			       "malformed response (no HTTP status line)",
			       req->url);
	if (rc == CURLE_UNSUPPORTED_PROTOCOL) {
		char *to = NULL;
		curl_easy_getinfo(x->h, CURLINFO_REDIRECT_URL, &to);
		if (!to)
			curl_easy_getinfo(x->h, CURLINFO_EFFECTIVE_URL, &to);
		return err_set(err, ERR_IO,
			       "cannot fetch '%s': refusing the redirect to "
			       "'%s' (only http and https are followed, and "
			       "https only to https)",
			       req->url, to ? to : "?");
	}
	if (rc == CURLE_TOO_MANY_REDIRECTS)
		return err_set(err, ERR_IO,
			       "cannot fetch '%s': more than %ld redirects",
			       req->url, l->max_redirects);
	error = err_set(err, ERR_IO, "cannot fetch '%s': %s", req->url,
			errbuf && errbuf[0] ? errbuf : curl_easy_strerror(rc));
	if (rc == CURLE_PEER_FAILED_VERIFICATION ||
	    rc == CURLE_SSL_CACERT_BADFILE || rc == CURLE_SSL_CONNECT_ERROR)
		err_hint(err, "the server's certificate is checked against the "
			      "system's CAs (http.cainfo or KCARRY_HTTP_CAINFO "
			      "names another bundle)");
	else if (rc == CURLE_COULDNT_RESOLVE_HOST ||
		 rc == CURLE_COULDNT_CONNECT)
		err_hint(err, "--offline uses what the cache holds");
	return error;
}

/* libcurl's handle for one attempt, with its headers; 0 or error. */
static int attempt(struct xfer *x, CURLcode *rc, const char *tmp,
		   const struct fetch_request *req, const struct fetch_opts *o,
		   const struct cache_record *rec, char *errbuf,
		   struct err *err)
{
	struct curl_slist *headers = NULL;

	x->file = fopen(tmp, "wb");
	if (!x->file)
		return err_set(err, ERR_IO, "cannot create '%s': %s", tmp,
			       strerror(errno));
	if (rec && rec->etag) {
		char *h = xstrfmt("If-None-Match: %s", rec->etag);
		headers = curl_slist_append(headers, h);
		free(h);
	}
	if (rec && rec->last_modified) {
		char *h = xstrfmt("If-Modified-Since: %s", rec->last_modified);
		headers = curl_slist_append(headers, h);
		free(h);
	}
	x->h = curl_easy_init();
	if (!x->h) {
		fclose(x->file);
		curl_slist_free_all(headers);
		return err_set(err, ERR_IO, "cannot start libcurl");
	}
	set_options(x->h, req, o, x, errbuf, headers);
	*rc = curl_easy_perform(x->h);
	curl_easy_getinfo(x->h, CURLINFO_RESPONSE_CODE, &x->status);
	curl_slist_free_all(headers);
	if (fclose(x->file) != 0 && *rc == CURLE_OK)
		*rc = CURLE_WRITE_ERROR;
	x->file = NULL;
	return 0;
}

static void xfer_release(struct xfer *x)
{
	if (x->h)
		curl_easy_cleanup(x->h);
	x->h = NULL;
	buf_release(&x->reason);
	buf_release(&x->content_type);
	buf_release(&x->etag);
	buf_release(&x->last_modified);
}

/* PATH.part.PID files of downloads whose process is gone (killed). */
static void remove_stale_parts(const char *dir, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *prefix = xstrfmt("%s.part.", base);
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *end;
		long pid;
		if (strncmp(e->d_name, prefix, plen))
			continue;
		pid = strtol(e->d_name + plen, &end, 10);
		if (pid > 0 && !*end && kill((pid_t)pid, 0) < 0 &&
		    errno == ESRCH) {
			char *p = fs_join(dir, e->d_name);
			unlink(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(prefix);
}

/* A kept body replaces the cached copy: record gone first, then body. */
static int keep(const char *tmp, const struct fetch_request *req,
		const struct xfer *x, struct err *err)
{
	struct cache_record rec = { 0 };
	char *rp = record_path(req->path);
	int error = 0;

	unlink(rp);
	free(rp);
	if (rename(tmp, req->path) < 0)
		return err_set(err, ERR_IO, "cannot write '%s': %s", req->path,
			       strerror(errno));
	rec.url = (char *)req->url;
	rec.etag = x->etag.len ? x->etag.ptr : NULL;
	rec.last_modified = x->last_modified.len ? x->last_modified.ptr : NULL;
	error = record_write(req->path, &rec, err);
	return error;
}

int fetch_url(struct fetch_result *res, const struct fetch_request *in,
	      const struct fetch_opts *o, struct err *err)
{
	const struct fetch_limits *l = &o->limits;
	/* errors, progress and the cache record see the URL without its
	 * user part; only libcurl gets the credentials */
	struct fetch_request pub = *in;
	const struct fetch_request *req = &pub;
	char *shown = fetch_url_public(in->url);
	struct cache_record rec = { 0 };
	char *dir = NULL, *tmp = NULL;
	bool cached;
	int error = 0;

	pub.url = shown;
	memset(res, 0, sizeof(*res));
	res->error_body = (struct buf)BUF_INIT;
	if (!is_http_url(req->url)) {
		error = err_set(err, ERR_USAGE,
				"'%s': only http:// and https:// URLs are "
				"fetched",
				req->url);
		free(shown);
		return error;
	}
	record_read(&rec, req->path);
	cached = fs_is_file(req->path) && rec.url && !strcmp(rec.url, req->url);
	if (o->offline) {
		if (cached)
			res->source = FETCH_OFFLINE;
		else {
			error = err_set(err, ERR_IO,
					"cannot fetch '%s' offline: the cache "
					"has no copy",
					req->url);
			err_hint(err, "run once without --offline "
				      "(or KCARRY_OFFLINE) to fill the cache");
		}
		goto out;
	}
	{
		const char *slash = strrchr(req->path, '/');
		dir = slash ? xstrndup(req->path, (size_t)(slash - req->path))
			    : xstrdup(".");
	}
	if ((error = fs_mkdirs(dir, err)) < 0)
		goto out;
	remove_stale_parts(dir, req->path);
	tmp = xstrfmt("%s.part.%ld", req->path, (long)getpid());
	for (unsigned n = 0;; n++) {
		struct xfer x = { 0 };
		char errbuf[CURL_ERROR_SIZE] = "";
		CURLcode rc = CURLE_OK;
		long wait_ms;
		struct buf why = BUF_INIT;

		x.what = url_name(req->url);
		x.request_url = in->url;
		x.content_length = -1;
		x.limit = l->max_size;
		if (req->max_size && (!x.limit || req->max_size < x.limit))
			x.limit = req->max_size;
		x.reason = x.content_type = x.etag = x.last_modified =
			(struct buf)BUF_INIT;
		x.error_body = &res->error_body;
		x.progress = o->progress;
		buf_reset(&res->error_body);
		error = attempt(&x, &rc, tmp, req, o, cached ? &rec : NULL,
				errbuf, err);
		if (error) {
			xfer_release(&x);
			break;
		}
		res->status = x.status;
		if (rc == CURLE_WRITE_ERROR && x.cut)
			rc = CURLE_OK;
		if (o->progress && o->progress->bytes &&
		    (x.reported || (x.got && x.status < 300)))
			o->progress->bytes(o->progress->ctx, x.what, x.got,
					   x.got, true);
		if (rc == CURLE_OK && x.status == 304 && cached) {
			res->source = FETCH_NOT_MODIFIED;
			unlink(tmp);
			xfer_release(&x);
			break;
		}
		if (rc == CURLE_OK && x.status >= 200 && x.status < 300) {
			res->source = FETCH_DOWNLOADED;
			if (req->verify &&
			    (error = req->verify(tmp, req->verify_ctx, err)) <
				    0) {
				err_prefix(err, "'%s' (HTTP %ld%s%s)", req->url,
					   x.status,
					   x.content_type.len ? ", " : "",
					   x.content_type.ptr);
				err_hint(err, "nothing was cached; is the URL "
					      "right?");
				/* the server's fault, not the user's input */
				error = err->code = ERR_IO;
			} else
				error = keep(tmp, req, &x, err);
			xfer_release(&x);
			break;
		}
		/* a failure: retried when it may pass, else reported */
		if (rc == CURLE_OK) {
			describe_status(&why, x.status, x.reason.ptr);
			if (x.status < 400)
				buf_addf(&why, " (unexpected)");
		} else
			buf_adds(&why,
				 errbuf[0] ? errbuf : curl_easy_strerror(rc));
		wait_ms = l->retry_wait_ms;
		for (unsigned k = 0; k < n && wait_ms < l->retry_max_wait_ms;
		     k++)
			wait_ms *= 2;
		if (wait_ms > l->retry_max_wait_ms)
			wait_ms = l->retry_max_wait_ms;
		if (rc == CURLE_OK && retry_status(x.status) &&
		    n < l->retries) {
			curl_off_t after = 0;
			curl_easy_getinfo(x.h, CURLINFO_RETRY_AFTER, &after);
			if (after > 0 && after * 1000 > l->retry_max_wait_ms) {
				char ra[32];
				human_ms(ra, sizeof(ra), l->retry_max_wait_ms);
				error = err_set(
					err, ERR_IO,
					"cannot fetch '%s': %s, and the "
					"server asks to wait %lld s "
					"(more than http.retry-max-wait, "
					"%s)",
					req->url, why.ptr, (long long)after,
					ra);
				buf_release(&why);
				xfer_release(&x);
				break;
			}
			if (after > 0)
				wait_ms = (long)after * 1000;
		} else if (!(rc != CURLE_OK && retry_curl(rc) &&
			     n < l->retries)) {
			if (rc == CURLE_OK) {
				error = err_set(err, ERR_IO,
						"cannot fetch '%s': %s",
						req->url, why.ptr);
				if (n)
					err_hint(err, "tried %u times", n + 1);
			} else
				error = transfer_error(err, &x, rc, errbuf, req,
						       o);
			buf_release(&why);
			xfer_release(&x);
			break;
		}
		if (o->progress && o->progress->retry)
			o->progress->retry(o->progress->ctx, req->url, why.ptr,
					   wait_ms, n + 1, l->retries);
		buf_release(&why);
		xfer_release(&x);
		sleep_ms(wait_ms);
	}
	if (error || res->source != FETCH_DOWNLOADED)
		unlink(tmp);
out:
	record_release(&rec);
	free(tmp);
	free(dir);
	free(shown);
	return error;
}
