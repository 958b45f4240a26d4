/*
 * fetch: HTTP(S) through libcurl: downloads with a byte limit, written
 * atomically to a file or kept in memory.  The only module that includes
 * <curl/curl.h>.
 */
#ifndef KCARRY_FETCH_H
#define KCARRY_FETCH_H

#include "err.h"

struct fetch_progress {
	/* called now and then with bytes so far and total (0 if unknown) */
	void (*fn)(void *ctx, unsigned long long now, unsigned long long total);
	void *ctx;
};

/* Download url into memory; more than limit bytes fails. */
int fetch_to_buf(struct buf *out, const char *url, size_t limit,
		 const struct fetch_progress *progress, struct err *err);
/* Download url into path (atomically); more than limit bytes fails. */
int fetch_to_file(const char *path, const char *url,
		  unsigned long long limit,
		  const struct fetch_progress *progress, struct err *err);

#endif
