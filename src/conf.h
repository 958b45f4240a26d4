/*
 * conf: series/NAME.conf and kernels/TARGET.conf, read and written in
 * git-config syntax through libgit2's config API (no INI parser of our
 * own).  Keys are "section.key" or "section.subsection.key".
 */
#ifndef KCARRY_CONF_H
#define KCARRY_CONF_H

#include "err.h"

struct conf;

/* Open path; with create, a missing file is created empty. */
int conf_open(struct conf **out, const char *path, bool create,
	      struct err *err);
/* Freeing a conf with an open transaction drops its changes. */
void conf_free(struct conf *c);
/*
 * Changes between conf_begin and conf_commit are written to the file in
 * one step (lock file, then rename): a reader sees all of them or none,
 * and many changes cost one write.
 */
int conf_begin(struct conf *c, struct err *err);
int conf_commit(struct conf *c, struct err *err);
const char *conf_path(const struct conf *c);

/* ERR_NOTFOUND when the key is absent; *out is a new string. */
int conf_get(const struct conf *c, const char *key, char **out,
	     struct err *err);
/* The value or def (a new string either way, NULL when def is NULL). */
char *conf_get_or(const struct conf *c, const char *key, const char *def);
/* Every value of a multivar, in file order. */
int conf_get_all(const struct conf *c, const char *key, char ***vals,
		 size_t *nr, struct err *err);
int conf_set(struct conf *c, const char *key, const char *value,
	     struct err *err);
/* Replace every value of a multivar by vals. */
int conf_set_all(struct conf *c, const char *key, char *const *vals,
		 size_t nr, struct err *err);
/* A key of a section and its value (NULL: the key is left out). */
struct conf_pair {
	const char *key;
	const char *value;
};
/*
 * Add [section "subsection"] (subsection NULL: [section]) with pairs at
 * the end of the file in one write (libgit2 reads the file again at the
 * next lookup, as it does after any change of the file): the cost
 * is the section's size, not the file's (libgit2 rewrites the whole file
 * per key).  ERR_EXISTS when the section has a key already (replace it
 * with conf_remove_section and conf_set); ERR_PARSE for a key that is no
 * config name or a value with a control character git config cannot
 * escape (other than newline, tab, backspace): nothing written then.
 * The append is one write(2), not a rename: a concurrent reader may see
 * part of it, and a failed write is cut off again.
 * Not between conf_begin and conf_commit.
 */
int conf_append_section(struct conf *c, const char *section,
			const char *subsection, const struct conf_pair *pairs,
			size_t nr, struct err *err);
/* Remove a whole "section.subsection" (no error when absent). */
int conf_remove_section(struct conf *c, const char *section,
			const char *subsection, struct err *err);
/*
 * Call fn for every entry of section, in file order, with its subsection
 * (NULL under a bare [section]), its key (lower case: git config folds
 * it) and its value ("" for a key without '=').  A value fn returns that
 * is not 0 stops the walk and is returned.  One pass over the file's
 * entries, as conf_subsections.
 */
int conf_each(const struct conf *c, const char *section,
	      int (*fn)(const char *subsection, const char *key,
			const char *value, void *data),
	      void *data, struct err *err);
/* Names of the subsections of section, in file order. */
int conf_subsections(const struct conf *c, const char *section,
		     char ***names, size_t *nr, struct err *err);
void conf_free_list(char **vals, size_t nr);

/*
 * Bytes the conf layer wrote in this thread: batch copies, libgit2's
 * rewrites of the file, appended sections.  A measure for tests (how
 * storing a version grows with the file), not state anything reads.
 */
size_t conf_bytes_written(void);

#endif
