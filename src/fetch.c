#include "fetch.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sink {
	struct buf *mem;
	FILE *file;
	unsigned long long got, limit;
	bool over;
	const struct fetch_progress *progress;
};

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ctx)
{
	struct sink *s = ctx;
	size_t n = size * nmemb;

	if (s->limit && s->got + n > s->limit) {
		s->over = true;
		return 0;
	}
	s->got += n;
	if (s->mem)
		buf_add(s->mem, ptr, n);
	else if (fwrite(ptr, 1, n, s->file) != n)
		return 0;
	return n;
}

static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow,
		       curl_off_t ultotal, curl_off_t ulnow)
{
	struct sink *s = ctx;

	if (s->progress && s->progress->fn)
		s->progress->fn(s->progress->ctx, (unsigned long long)dlnow,
				(unsigned long long)dltotal);
	return 0;
}

static int run(struct sink *s, const char *url, struct err *err)
{
	CURL *h = curl_easy_init();
	char errbuf[CURL_ERROR_SIZE] = "";
	long status = 0;
	CURLcode rc;
	int error = 0;

	if (!h)
		return err_set(err, ERR_IO, "cannot start libcurl");
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kcarry/" KCARRY_VERSION);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");
	if (s->progress) {
		curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
		curl_easy_setopt(h, CURLOPT_XFERINFODATA, s);
	}
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (s->over)
		error = err_set(err, ERR_IO,
				"'%s': larger than the %llu-byte limit", url,
				s->limit);
	else if (rc != CURLE_OK)
		error = err_set(err, ERR_IO, "cannot fetch '%s': %s", url,
				errbuf[0] ? errbuf : curl_easy_strerror(rc));
	else if (status >= 400)
		error = err_set(err, status == 404 ? ERR_NOTFOUND : ERR_IO,
				"cannot fetch '%s': HTTP %ld", url, status);
	curl_easy_cleanup(h);
	return error;
}

int fetch_to_buf(struct buf *out, const char *url, size_t limit,
		 const struct fetch_progress *progress, struct err *err)
{
	struct sink s = { out, NULL, 0, limit, false, progress };

	buf_reset(out);
	return run(&s, url, err);
}

int fetch_to_file(const char *path, const char *url,
		  unsigned long long limit,
		  const struct fetch_progress *progress, struct err *err)
{
	char *tmp = xstrfmt("%s.part.%ld", path, (long)getpid());
	struct sink s = { NULL, NULL, 0, limit, false, progress };
	int error;

	s.file = fopen(tmp, "wb");
	if (!s.file) {
		error = err_set(err, ERR_IO, "cannot create '%s': %s", tmp,
				strerror(errno));
		free(tmp);
		return error;
	}
	error = run(&s, url, err);
	if (fclose(s.file) != 0 && !error)
		error = err_set(err, ERR_IO, "cannot write '%s': %s", tmp,
				strerror(errno));
	if (!error && rename(tmp, path) < 0)
		error = err_set(err, ERR_IO, "cannot write '%s': %s", path,
				strerror(errno));
	if (error)
		unlink(tmp);
	free(tmp);
	return error;
}
