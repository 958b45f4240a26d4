#include "conf.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fs.h"

struct conf {
	git_config *cfg;
	char *path;
	char *tmp; /* between conf_begin and conf_commit: the copy written */
};

/* For conf_bytes_written(); one per thread, as apply_comparisons(). */
static _Thread_local size_t written;

size_t conf_bytes_written(void)
{
	return written;
}

/* libgit2 rewrote the file being changed: count its whole size. */
static void count_rewrite(const struct conf *c)
{
	struct stat st;

	if (stat(c->tmp ? c->tmp : c->path, &st) == 0)
		written += (size_t)st.st_size;
}

static const char *git_text(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown libgit2 error";
}

int conf_open(struct conf **out, const char *path, bool create,
	      struct err *err)
{
	struct conf *c;

	*out = NULL;
	if (!fs_is_file(path)) {
		if (!create)
			return err_set(err, ERR_NOTFOUND, "'%s' does not exist",
				       path);
		if (fs_write_atomic(path, "", 0, err) < 0)
			return err->code;
	}
	c = xcalloc(1, sizeof(*c));
	c->path = xstrdup(path);
	if (git_config_open_ondisk(&c->cfg, path) < 0) {
		err_set(err, ERR_PARSE, "cannot read '%s': %s", path,
			git_text());
		conf_free(c);
		return ERR_PARSE;
	}
	*out = c;
	return 0;
}

/*
 * libgit2 rewrites the whole file (through NAME.lock) on every change,
 * and its locked transactions keep only some of several changes; so a
 * batch of changes goes to a private copy, renamed over the file at the
 * end: one step for readers, and nothing left locked if kcarry dies.
 */
int conf_begin(struct conf *c, struct err *err)
{
	struct buf data = BUF_INIT;
	git_config *cfg = NULL;
	int error;

	if (c->tmp)
		BUG("conf_begin twice on '%s'", c->path);
	c->tmp = xstrfmt("%s.tmp-%ld", c->path, (long)getpid());
	if ((error = fs_read_file(&data, c->path, 0, err)) < 0 ||
	    (error = fs_write_atomic(c->tmp, data.ptr, data.len, err)) < 0)
		goto fail;
	if (git_config_open_ondisk(&cfg, c->tmp) < 0) {
		error = err_set(err, ERR_PARSE, "cannot read '%s': %s", c->tmp,
				git_text());
		goto fail;
	}
	written += data.len;
	git_config_free(c->cfg);
	c->cfg = cfg;
	buf_release(&data);
	return 0;
fail:
	buf_release(&data);
	unlink(c->tmp);
	free(c->tmp);
	c->tmp = NULL;
	return error;
}

int conf_commit(struct conf *c, struct err *err)
{
	int error = 0;

	if (!c->tmp)
		BUG("conf_commit without conf_begin on '%s'", c->path);
	if (rename(c->tmp, c->path) < 0) {
		error = err_set(err, ERR_IO, "cannot write '%s': %s", c->path,
				strerror(errno));
		unlink(c->tmp);
	}
	free(c->tmp);
	c->tmp = NULL;
	/* read on from the file itself */
	git_config_free(c->cfg);
	c->cfg = NULL;
	if (git_config_open_ondisk(&c->cfg, c->path) < 0 && !error)
		error = err_set(err, ERR_PARSE, "cannot read '%s': %s",
				c->path, git_text());
	return error;
}

void conf_free(struct conf *c)
{
	if (!c)
		return;
	git_config_free(c->cfg);
	/* an open batch is dropped: the file keeps its old text */
	if (c->tmp)
		unlink(c->tmp);
	free(c->tmp);
	free(c->path);
	free(c);
}

const char *conf_path(const struct conf *c)
{
	return c->path;
}

int conf_get(const struct conf *c, const char *key, char **out,
	     struct err *err)
{
	git_config_entry *e = NULL;
	int rc = git_config_get_entry(&e, c->cfg, key);

	*out = NULL;
	if (rc == GIT_ENOTFOUND)
		return err_set(err, ERR_NOTFOUND, "%s: no '%s'", c->path, key);
	if (rc < 0)
		return err_set(err, ERR_PARSE, "%s: cannot read '%s': %s",
			       c->path, key, git_text());
	*out = xstrdup(e->value ? e->value : "");
	git_config_entry_free(e);
	return 0;
}

char *conf_get_or(const struct conf *c, const char *key, const char *def)
{
	struct err err = ERR_INIT;
	char *v;

	if (conf_get(c, key, &v, &err) < 0)
		v = def ? xstrdup(def) : NULL;
	err_release(&err);
	return v;
}

int conf_get_all(const struct conf *c, const char *key, char ***vals,
		 size_t *nr, struct err *err)
{
	git_config_iterator *it = NULL;
	git_config_entry *e;
	size_t alloc = 0;
	int rc;

	*vals = NULL;
	*nr = 0;
	if (git_config_multivar_iterator_new(&it, c->cfg, key, NULL) < 0)
		return err_set(err, ERR_PARSE, "%s: cannot read '%s': %s",
			       c->path, key, git_text());
	while ((rc = git_config_next(&e, it)) == 0) {
		ALLOC_GROW(*vals, *nr + 1, alloc);
		(*vals)[(*nr)++] = xstrdup(e->value ? e->value : "");
	}
	git_config_iterator_free(it);
	if (rc != GIT_ITEROVER) {
		conf_free_list(*vals, *nr);
		*vals = NULL;
		*nr = 0;
		return err_set(err, ERR_PARSE, "%s: cannot read '%s': %s",
			       c->path, key, git_text());
	}
	return 0;
}

int conf_set(struct conf *c, const char *key, const char *value,
	     struct err *err)
{
	if (git_config_set_string(c->cfg, key, value) < 0)
		return err_set(err, ERR_IO, "cannot write '%s' in '%s': %s",
			       key, c->path, git_text());
	count_rewrite(c);
	return 0;
}

int conf_set_all(struct conf *c, const char *key, char *const *vals,
		 size_t nr, struct err *err)
{
	int rc = git_config_delete_multivar(c->cfg, key, ".*");

	if (rc < 0 && rc != GIT_ENOTFOUND)
		return err_set(err, ERR_IO, "cannot write '%s' in '%s': %s",
			       key, c->path, git_text());
	for (size_t i = 0; i < nr; i++) {
		/* "a^" matches no value at all: every call appends */
		if (git_config_set_multivar(c->cfg, key, "a^", vals[i]) < 0)
			return err_set(err, ERR_IO,
				       "cannot write '%s' in '%s': %s", key,
				       c->path, git_text());
		count_rewrite(c);
	}
	return 0;
}

/* keys[]: the names of section.subsection's keys, as libgit2 gives them */
static int section_keys(const struct conf *c, const char *section,
			const char *subsection, char ***keys, size_t *nr,
			struct err *err)
{
	struct buf re = BUF_INIT;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	size_t alloc = 0;

	*keys = NULL;
	*nr = 0;
	if (subsection)
		buf_addf(&re, "%s.%s.", section, subsection);
	else
		buf_addf(&re, "%s.", section);
	for (size_t i = 0; i < strlen(section); i++)
		re.ptr[i] = (char)tolower((unsigned char)re.ptr[i]);
	if (git_config_iterator_new(&it, c->cfg) < 0) {
		buf_release(&re);
		return err_set(err, ERR_IO, "cannot read '%s': %s", c->path,
			       git_text());
	}
	while (git_config_next(&e, it) == 0) {
		/* libgit2 gives names as section(lower).subsection.key */
		if (strncmp(e->name, re.ptr, re.len) ||
		    strchr(e->name + re.len, '.'))
			continue;
		ALLOC_GROW(*keys, *nr + 1, alloc);
		(*keys)[(*nr)++] = xstrdup(e->name);
	}
	git_config_iterator_free(it);
	buf_release(&re);
	return 0;
}

/* A key git config accepts: a letter, then letters, digits and '-'. */
static bool valid_key(const char *k)
{
	if (!isalpha((unsigned char)*k))
		return false;
	for (; *k; k++)
		if (!isalnum((unsigned char)*k) && *k != '-')
			return false;
	return true;
}

/*
 * value as git config writes it: '\\', '"', newline, tab and backspace
 * escaped; in double quotes when it has '#' or ';' (a comment otherwise)
 * or a blank at either end (trimmed otherwise).  false for another
 * control character, which no escape keeps.
 */
static bool add_value(struct buf *b, const char *v)
{
	static const char from[] = "\\\"\n\t\b", to[] = "\\\"ntb";
	size_t n = strlen(v);
	bool quote = n && (isspace((unsigned char)v[0]) ||
			   isspace((unsigned char)v[n - 1]) || strpbrk(v, "#;"));

	if (quote)
		buf_addc(b, '"');
	for (; *v; v++) {
		const char *e = strchr(from, *v);

		if (e) {
			buf_addc(b, '\\');
			buf_addc(b, to[e - from]);
		} else if ((unsigned char)*v < 0x20 || *v == 0x7f) {
			return false;
		} else {
			buf_addc(b, *v);
		}
	}
	if (quote)
		buf_addc(b, '"');
	return true;
}

/* The section's text, "[section \"sub\"]" and a line per pair. */
static int section_text(struct buf *b, const char *section,
			const char *subsection, const struct conf_pair *pairs,
			size_t nr, struct err *err)
{
	if (!valid_key(section))
		return err_set(err, ERR_PARSE, "'%s' is no section name",
			       section);
	buf_addf(b, "[%s", section);
	if (subsection) {
		buf_adds(b, " \"");
		for (const char *s = subsection; *s; s++) {
			if (*s == '\n')
				return err_set(err, ERR_PARSE,
					       "'%s' is no subsection name",
					       subsection);
			if (*s == '"' || *s == '\\')
				buf_addc(b, '\\');
			buf_addc(b, *s);
		}
		buf_addc(b, '"');
	}
	buf_adds(b, "]\n");
	for (size_t i = 0; i < nr; i++) {
		if (!pairs[i].value)
			continue;
		if (!valid_key(pairs[i].key))
			return err_set(err, ERR_PARSE, "'%s' is no key name",
				       pairs[i].key);
		buf_addf(b, "\t%s = ", pairs[i].key);
		if (!add_value(b, pairs[i].value))
			return err_set(err, ERR_PARSE,
				       "the value of '%s' has a control "
				       "character git config cannot write",
				       pairs[i].key);
		buf_addc(b, '\n');
	}
	return 0;
}

/* Append text to path in one write; on a short write, cut it off again. */
static int append_file(const char *path, const struct buf *section,
		       struct err *err)
{
	struct buf text = BUF_INIT;
	int fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
	struct stat st;
	char last = '\n';
	ssize_t n = -1;
	int error = 0;

	if (fd < 0 || fstat(fd, &st) < 0)
		goto fail;
	if (st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) != 1)
		goto fail;
	if (last != '\n')
		buf_addc(&text, '\n');
	buf_add(&text, section->ptr, section->len);
	n = write(fd, text.ptr, text.len);
	if (n != (ssize_t)text.len) {
		if (ftruncate(fd, st.st_size) < 0)
			n = -1;
		if (n >= 0)
			errno = ENOSPC;
		goto fail;
	}
	written += text.len;
	buf_release(&text);
	if (close(fd) < 0)
		return err_set(err, ERR_IO, "cannot write '%s': %s", path,
			       strerror(errno));
	return 0;
fail:
	error = err_set(err, ERR_IO, "cannot write '%s': %s", path,
			strerror(errno));
	if (fd >= 0)
		close(fd);
	buf_release(&text);
	return error;
}

int conf_append_section(struct conf *c, const char *section,
			const char *subsection, const struct conf_pair *pairs,
			size_t nr, struct err *err)
{
	struct buf text = BUF_INIT;
	char **keys;
	size_t nkeys;
	int error;

	if (c->tmp)
		BUG("conf_append_section inside a batch on '%s'", c->path);
	if ((error = section_keys(c, section, subsection, &keys, &nkeys,
				  err)) < 0)
		return error;
	conf_free_list(keys, nkeys);
	if (nkeys)
		return err_set(err, ERR_EXISTS, "'%s' has [%s \"%s\"] already",
			       c->path, section, subsection ? subsection : "");
	if ((error = section_text(&text, section, subsection, pairs, nr,
				  err)) < 0 ||
	    (error = append_file(c->path, &text, err)) < 0)
		goto out;
	/* no reopen: libgit2 reads the file again at the next lookup, as
	 * its size changed (a parse per version was most of the rest) */
out:
	buf_release(&text);
	return error;
}

int conf_remove_section(struct conf *c, const char *section,
			const char *subsection, struct err *err)
{
	char **keys;
	size_t nr;
	int error = section_keys(c, section, subsection, &keys, &nr, err);

	for (size_t i = 0; i < nr && !error; i++) {
		int rc = git_config_delete_multivar(c->cfg, keys[i], ".*");
		if (rc < 0 && rc != GIT_ENOTFOUND)
			error = err_set(err, ERR_IO, "cannot write '%s': %s",
					c->path, git_text());
		count_rewrite(c);
	}
	conf_free_list(keys, nr);
	return error;
}

int conf_subsections(const struct conf *c, const char *section,
		     char ***names, size_t *nr, struct err *err)
{
	git_config_iterator *it = NULL;
	git_config_entry *e;
	size_t alloc = 0, slen = strlen(section);

	*names = NULL;
	*nr = 0;
	if (git_config_iterator_new(&it, c->cfg) < 0)
		return err_set(err, ERR_IO, "cannot read '%s': %s", c->path,
			       git_text());
	while (git_config_next(&e, it) == 0) {
		const char *sub, *last;
		bool seen = false;

		if (strncasecmp(e->name, section, slen) || e->name[slen] != '.')
			continue;
		sub = e->name + slen + 1;
		last = strrchr(sub, '.');
		if (!last)
			continue;
		for (size_t i = 0; i < *nr && !seen; i++)
			seen = strlen((*names)[i]) == (size_t)(last - sub) &&
			       !strncmp((*names)[i], sub, (size_t)(last - sub));
		if (seen)
			continue;
		ALLOC_GROW(*names, *nr + 1, alloc);
		(*names)[(*nr)++] = xstrndup(sub, (size_t)(last - sub));
	}
	git_config_iterator_free(it);
	return 0;
}

int conf_each(const struct conf *c, const char *section,
	      int (*fn)(const char *subsection, const char *key,
			const char *value, void *data),
	      void *data, struct err *err)
{
	git_config_iterator *it = NULL;
	git_config_entry *e;
	struct buf sub = BUF_INIT;
	size_t slen = strlen(section);
	int rc = 0;

	if (git_config_iterator_new(&it, c->cfg) < 0)
		return err_set(err, ERR_IO, "cannot read '%s': %s", c->path,
			       git_text());
	while (!rc && git_config_next(&e, it) == 0) {
		const char *rest, *key;

		if (strncasecmp(e->name, section, slen) || e->name[slen] != '.')
			continue;
		rest = e->name + slen + 1;
		/* the subsection may hold dots: the key follows the last */
		key = strrchr(rest, '.');
		buf_reset(&sub);
		if (key)
			buf_add(&sub, rest, (size_t)(key - rest));
		rc = fn(key ? sub.ptr : NULL, key ? key + 1 : rest,
			e->value ? e->value : "", data);
	}
	git_config_iterator_free(it);
	buf_release(&sub);
	return rc;
}

void conf_free_list(char **vals, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(vals[i]);
	free(vals);
}
