#include "conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
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
	}
	return 0;
}

int conf_remove_section(struct conf *c, const char *section,
			const char *subsection, struct err *err)
{
	struct buf re = BUF_INIT;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	char **keys = NULL;
	size_t nr = 0, alloc = 0;
	int error = 0;

	buf_addf(&re, "%s.%s.", section, subsection);
	for (size_t i = 0; i < strlen(section); i++)
		re.ptr[i] = (char)tolower((unsigned char)re.ptr[i]);
	if (git_config_iterator_new(&it, c->cfg) < 0) {
		error = err_set(err, ERR_IO, "cannot read '%s': %s", c->path,
				git_text());
		goto out;
	}
	while (git_config_next(&e, it) == 0) {
		/* libgit2 gives names as section(lower).subsection.key */
		if (strncmp(e->name, re.ptr, re.len) ||
		    strchr(e->name + re.len, '.'))
			continue;
		ALLOC_GROW(keys, nr + 1, alloc);
		keys[nr++] = xstrdup(e->name);
	}
	git_config_iterator_free(it);
	for (size_t i = 0; i < nr && !error; i++) {
		int rc = git_config_delete_multivar(c->cfg, keys[i], ".*");
		if (rc < 0 && rc != GIT_ENOTFOUND)
			error = err_set(err, ERR_IO, "cannot write '%s': %s",
					c->path, git_text());
	}
out:
	conf_free_list(keys, nr);
	buf_release(&re);
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

void conf_free_list(char **vals, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(vals[i]);
	free(vals);
}
