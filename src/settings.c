#include "settings.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf.h"
#include "fs.h"

int settings_parse_size(unsigned long long *out, const char *s)
{
	char *end;
	double v;
	unsigned long long mult = 1;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || v < 0)
		return -1;
	switch (tolower((unsigned char)*end)) {
	case 'k':
		mult = 1ULL << 10;
		end++;
		break;
	case 'm':
		mult = 1ULL << 20;
		end++;
		break;
	case 'g':
		mult = 1ULL << 30;
		end++;
		break;
	case 't':
		mult = 1ULL << 40;
		end++;
		break;
	}
	if (mult > 1 && *end == 'i')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	while (isspace((unsigned char)*end))
		end++;
	if (*end || v * (double)mult > 1.8e19)
		return -1;
	*out = (unsigned long long)(v * (double)mult + 0.5);
	return 0;
}

int settings_parse_duration(long *ms, const char *s)
{
	char *end;
	double v, mult = 1000;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || v < 0)
		return -1;
	if (!strncmp(end, "ms", 2)) {
		mult = 1;
		end += 2;
	} else if (*end == 's') {
		end++;
	} else if (*end == 'm') {
		mult = 60 * 1000;
		end++;
	} else if (*end == 'h') {
		mult = 3600 * 1000;
		end++;
	}
	while (isspace((unsigned char)*end))
		end++;
	if (*end || v * mult > 1e12)
		return -1;
	*ms = (long)(v * mult + 0.5);
	return 0;
}

/* The value of key: the environment first, then the file, else NULL. */
static char *lookup(const struct conf *c, const char *key, const char *env,
		    const char **from)
{
	const char *e = env ? getenv(env) : NULL;

	if (e && *e) {
		*from = env;
		return xstrdup(e);
	}
	*from = key;
	return c ? conf_get_or(c, key, NULL) : NULL;
}

static int bad(struct err *err, const char *from, const char *v,
	       const char *what)
{
	int error =
		err_set(err, ERR_USAGE, "%s: '%s' is not %s", from, v, what);
	err_hint(err, "see kcarry(1), NETWORK");
	return error;
}

static int get_size(unsigned long long *out, const struct conf *c,
		    const char *key, const char *env, struct err *err)
{
	const char *from;
	char *v = lookup(c, key, env, &from);
	int error = 0;

	if (v && settings_parse_size(out, v) < 0)
		error = bad(err, from, v, "a size (512, 64k, 2M, 3G)");
	free(v);
	return error;
}

static int get_ms(long *out, const struct conf *c, const char *key,
		  const char *env, struct err *err)
{
	const char *from;
	char *v = lookup(c, key, env, &from);
	int error = 0;

	if (v && settings_parse_duration(out, v) < 0)
		error = bad(err, from, v, "a duration (250ms, 30s, 5m, 1h)");
	free(v);
	return error;
}

static int get_count(unsigned long *out, const struct conf *c, const char *key,
		     const char *env, struct err *err)
{
	const char *from;
	char *v = lookup(c, key, env, &from), *end;
	unsigned long n;
	int error = 0;

	if (v) {
		errno = 0;
		n = strtoul(v, &end, 10);
		if (errno || end == v || *end || v[0] == '-')
			error = bad(err, from, v, "a count");
		else
			*out = n;
	}
	free(v);
	return error;
}

static int get_bool(bool *out, const struct conf *c, const char *key,
		    const char *env, struct err *err)
{
	const char *from;
	char *v = lookup(c, key, env, &from);
	int error = 0;

	if (!v)
		return 0;
	if (!strcasecmp(v, "1") || !strcasecmp(v, "true") ||
	    !strcasecmp(v, "yes") || !strcasecmp(v, "on"))
		*out = true;
	else if (!strcasecmp(v, "0") || !strcasecmp(v, "false") ||
		 !strcasecmp(v, "no") || !strcasecmp(v, "off"))
		*out = false;
	else
		error = bad(err, from, v, "true or false");
	free(v);
	return error;
}

void settings_release(struct settings *s)
{
	free(s->lore);
	free(s->cainfo);
	memset(s, 0, sizeof(*s));
}

int settings_load(struct settings *s, const char *root, struct err *err)
{
	struct conf *c = NULL;
	struct fetch_limits *l = &s->fetch.limits;
	unsigned long n = 0;
	const char *from;
	char *path = root ? fs_join(root, SETTINGS_FILE) : NULL;
	int error = 0;

	memset(s, 0, sizeof(*s));
	fetch_opts_init(&s->fetch);
	s->tarball.max_bytes = TREE_TARBALL_MAX_BYTES;
	s->tarball.max_entries = TREE_TARBALL_MAX_ENTRIES;
	if (path && fs_is_file(path) &&
	    (error = conf_open(&c, path, false, err)) < 0)
		goto out;
	s->lore = lookup(c, "kcarry.lore", "KCARRY_LORE", &from);
	if (!s->lore)
		s->lore = xstrdup(SETTINGS_DEFAULT_LORE);
	else if (!ends_with(s->lore, "/")) {
		char *t = xstrfmt("%s/", s->lore);
		free(s->lore);
		s->lore = t;
	}
	s->cainfo = lookup(c, "http.cainfo", "KCARRY_HTTP_CAINFO", &from);
	s->fetch.cainfo = s->cainfo;
	n = l->retries;
	if ((error = get_ms(&l->connect_timeout_ms, c, "http.connect-timeout",
			    "KCARRY_HTTP_CONNECT_TIMEOUT", err)) < 0 ||
	    (error = get_ms(&l->timeout_ms, c, "http.timeout",
			    "KCARRY_HTTP_TIMEOUT", err)) < 0 ||
	    (error = get_size(&s->tarball.max_bytes, c, "tarball.max-size",
			      "KCARRY_TARBALL_MAX_SIZE", err)) < 0 ||
	    (error = get_count(&s->tarball.max_entries, c,
			       "tarball.max-entries",
			       "KCARRY_TARBALL_MAX_ENTRIES", err)) < 0 ||
	    (error = get_size(&l->max_size, c, "http.max-size",
			      "KCARRY_HTTP_MAX_SIZE", err)) < 0 ||
	    (error = get_count(&n, c, "http.retries", "KCARRY_HTTP_RETRIES",
			       err)) < 0 ||
	    (error = get_ms(&l->retry_wait_ms, c, "http.retry-wait",
			    "KCARRY_HTTP_RETRY_WAIT", err)) < 0 ||
	    (error = get_ms(&l->retry_max_wait_ms, c, "http.retry-max-wait",
			    "KCARRY_HTTP_RETRY_MAX_WAIT", err)) < 0 ||
	    (error = get_bool(&s->fetch.offline, c, "http.offline",
			      "KCARRY_OFFLINE", err)) < 0)
		goto out;
	l->retries = n > 100 ? 100 : (unsigned)n;
	{
		unsigned long long speed =
			(unsigned long long)l->low_speed_limit;
		long ms = l->low_speed_time * 1000;
		unsigned long redirs = (unsigned long)l->max_redirects;
		if ((error = get_size(&speed, c, "http.low-speed-limit",
				      "KCARRY_HTTP_LOW_SPEED_LIMIT", err)) <
			    0 ||
		    (error = get_ms(&ms, c, "http.low-speed-time",
				    "KCARRY_HTTP_LOW_SPEED_TIME", err)) < 0 ||
		    (error = get_count(&redirs, c, "http.max-redirects",
				       "KCARRY_HTTP_MAX_REDIRECTS", err)) < 0)
			goto out;
		l->low_speed_limit = speed > 1UL << 30 ? 1L << 30 : (long)speed;
		/* libcurl counts it in whole seconds */
		l->low_speed_time = ms > 0 && ms < 1000 ? 1 : ms / 1000;
		l->max_redirects = redirs > 50 ? 50 : (long)redirs;
	}
out:
	conf_free(c);
	free(path);
	return error;
}

int settings_note_form(enum carry_note_form *f, const char *root,
		       struct err *err)
{
	struct conf *c = NULL;
	char *path = root ? fs_join(root, SETTINGS_FILE) : NULL;
	const char *from;
	char *v = NULL;
	int error = 0;

	*f = CARRY_NOTE_STABLE;
	if (path && fs_is_file(path) &&
	    (error = conf_open(&c, path, false, err)) < 0)
		goto out;
	v = lookup(c, "refresh.note", "KCARRY_REFRESH_NOTE", &from);
	if (v && carry_note_form_parse(f, v) < 0) {
		error = err_set(err, ERR_USAGE, "%s: '%s' is not stable or rhel",
				from, v);
		err_hint(err, "see kcarry(1), WORKSPACE");
	}
out:
	free(v);
	conf_free(c);
	free(path);
	return error;
}
