#include "resolve.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf.h"
#include "cursor.h"
#include "fs.h"
#include "mail.h"

#define MAX_FILE (256UL * 1024 * 1024)

void resolve_state_release(struct resolve_state *s)
{
	free(s->dir);
	free(s->patch_file);
	free(s->fingerprint);
	memset(s, 0, sizeof(*s));
}

void resolve_summary_release(struct resolve_summary *s)
{
	for (size_t i = 0; i < s->nr_paths; i++)
		free(s->paths[i]);
	free(s->paths);
	memset(s, 0, sizeof(*s));
}

char *resolve_dir(const char *root, const char *name, const char *version,
		  const char *target)
{
	return xstrfmt("%s/.kcarry/resolve/%s/%s/%s", root, name, version,
		       target);
}

int resolve_discard(const char *dir, struct err *err)
{
	char *state = fs_join(dir, "state");
	int error = 0;

	if (unlink(state) < 0 && errno != ENOENT)
		error = err_set(err, ERR_IO, "cannot remove '%s': %s", state,
				strerror(errno));
	free(state);
	return error ? error : fs_remove_tree(dir, err);
}

static int write_file(const char *dir, const char *rel, const char *suffix,
		      const struct buf *data, struct err *err)
{
	char *path = xstrfmt("%s/files/%s%s", dir, rel, suffix);
	char *slash = strrchr(path, '/');
	int error;

	*slash = '\0';
	error = fs_mkdirs(path, err);
	*slash = '/';
	if (!error)
		error = fs_write_atomic(path, data->ptr, data->len, err);
	free(path);
	return error;
}

static bool has_markers(struct span text, size_t *lineno)
{
	struct cursor c;
	struct span line;

	cursor_init(&c, text.ptr, text.len);
	while (cursor_next(&c, &line, NULL))
		if (span_starts_with(line, "<<<<<<< ") ||
		    span_starts_with(line, ">>>>>>> ") ||
		    span_eq(line, "=======") || span_starts_with(line, "||||||| ")) {
			*lineno = c.lineno - 1;
			return true;
		}
	return false;
}

int resolve_prepare(struct resolve_summary *summary, const char *dir,
		    struct tree_repo *repo, const struct tree_oid *base,
		    const struct series_item *item, size_t index,
		    const struct apply_opts *opts, struct err *err)
{
	const struct patch *p = &item->patch;
	struct apply_opts ao = *opts;
	struct tree_oid tree;
	struct buf old = BUF_INIT;
	struct conf *c = NULL;
	char hex[41], fp[41], num[32];
	char *state = NULL, *fresh = NULL;
	size_t alloc = 0;
	int error;

	memset(summary, 0, sizeof(*summary));
	summary->outcome = OUTCOME_CLEAN;
	ao.markers = true;
	ao.no_adapt = true; /* resolve shows no proposal yet (issue 18) */
	if ((error = tree_commit_tree(&tree, repo, base, err)) < 0 ||
	    (error = carry_fingerprint(fp, repo, &tree, p, err)) < 0 ||
	    (error = resolve_discard(dir, err)) < 0 ||
	    (error = fs_mkdirs(dir, err)) < 0)
		goto out;
	for (size_t f = 0; f < p->nr_files && !error; f++) {
		const struct patch_file *pf = &p->files[f];
		const char *src = pf->old_path ? pf->old_path : pf->new_path;
		const char *dst = patch_file_path(pf);
		struct apply_file_result ar;
		struct err ferr = ERR_INIT;
		bool exists;
		size_t line;

		if ((error = tree_read_file(&old, &exists, NULL, repo, &tree,
					    src, err)) < 0)
			break;
		apply_file_result_init(&ar);
		if (apply_file(&ar, pf, (struct span){ old.ptr, old.len },
			       exists, &ao, &ferr) < 0) {
			/* binary and the like: the person gets the old file */
			ar.outcome = OUTCOME_CONFLICT;
			buf_reset(&ar.out);
			buf_add(&ar.out, old.ptr, old.len);
			buf_addf(&ar.rej, "%s\n", ferr.msg.ptr);
		}
		err_release(&ferr);
		if (ar.outcome > summary->outcome)
			summary->outcome = ar.outcome;
		summary->nr_files++;
		if (!ar.deleted || ar.outcome >= OUTCOME_ALREADY)
			error = write_file(dir, dst, "", &ar.out, err);
		if (!error && ar.rej.len) {
			summary->nr_rej++;
			error = write_file(dir, dst, ".rej", &ar.rej, err);
		}
		if (!error && (ar.outcome == OUTCOME_CONFLICT ||
			       ar.outcome == OUTCOME_PARTIAL ||
			       has_markers((struct span){ ar.out.ptr, ar.out.len },
					   &line))) {
			summary->nr_conflicts++;
			ALLOC_GROW(summary->paths, summary->nr_paths + 1, alloc);
			summary->paths[summary->nr_paths++] =
				xstrfmt("%s/files/%s", dir, dst);
		}
		apply_file_result_release(&ar);
	}
	if (error)
		goto out;
	/* the state, written whole and then renamed in, makes the folder a
	 * pending resolution only once every file of it is there */
	state = fs_join(dir, "state");
	fresh = fs_join(dir, "state.new");
	tree_oid_hex(hex, base);
	snprintf(num, sizeof(num), "%zu", index);
	if ((error = conf_open(&c, fresh, true, err)) < 0 ||
	    (error = conf_set(c, "resolve.patch", item->file, err)) < 0 ||
	    (error = conf_set(c, "resolve.index", num, err)) < 0 ||
	    (error = conf_set(c, "resolve.fingerprint", fp, err)) < 0 ||
	    (error = conf_set(c, "resolve.base", hex, err)) < 0)
		goto out;
	if (rename(fresh, state) < 0)
		error = err_set(err, ERR_IO, "cannot rename '%s': %s", fresh,
				strerror(errno));
out:
	conf_free(c);
	free(state);
	free(fresh);
	buf_release(&old);
	return error;
}

int resolve_load(struct resolve_state *s, const char *dir, struct err *err)
{
	char *state = fs_join(dir, "state");
	struct conf *c = NULL;
	char *base = NULL, *index = NULL;
	int error = 0;

	memset(s, 0, sizeof(*s));
	if (!fs_is_file(state)) {
		free(state);
		return ERR_NOTFOUND;
	}
	if ((error = conf_open(&c, state, false, err)) < 0 ||
	    (error = conf_get(c, "resolve.patch", &s->patch_file, err)) < 0 ||
	    (error = conf_get(c, "resolve.index", &index, err)) < 0 ||
	    (error = conf_get(c, "resolve.fingerprint", &s->fingerprint,
			      err)) < 0 ||
	    (error = conf_get(c, "resolve.base", &base, err)) < 0)
		goto out;
	s->index = strtoul(index, NULL, 10);
	for (size_t i = 0; i < 20; i++) {
		unsigned v;
		if (sscanf(base + 2 * i, "%2x", &v) != 1) {
			error = err_set(err, ERR_PARSE, "%s: bad resolve.base",
					state);
			goto out;
		}
		s->base.id[i] = (unsigned char)v;
	}
	s->dir = xstrdup(dir);
out:
	conf_free(c);
	free(base);
	free(index);
	free(state);
	return error;
}

static void list_files(char ***out, size_t *nr, size_t *alloc,
		       const char *dir, const char *rel)
{
	char *path = rel ? fs_join(dir, rel) : xstrdup(dir);
	char **names = NULL;
	size_t n = 0;
	struct err e = ERR_INIT;

	if (fs_list_dir(path, &names, &n, &e) == 0)
		for (size_t i = 0; i < n; i++) {
			char *r = rel ? fs_join(rel, names[i])
				      : xstrdup(names[i]);
			char *full = fs_join(dir, r);
			if (fs_is_dir(full)) {
				list_files(out, nr, alloc, dir, r);
				free(r);
			} else if (ends_with(r, ".rej")) {
				free(r);
			} else {
				ALLOC_GROW(*out, *nr + 1, *alloc);
				(*out)[(*nr)++] = r;
			}
			free(full);
		}
	fs_free_list(names, n);
	err_release(&e);
	free(path);
}

void resolve_pending_files(char ***paths, size_t *nr, const char *dir)
{
	char *files = fs_join(dir, "files");
	size_t alloc = 0;

	*paths = NULL;
	*nr = 0;
	list_files(paths, nr, &alloc, files, NULL);
	free(files);
}

int resolve_collect(struct buf *text, const struct resolve_state *s,
		    struct tree_repo *repo, const struct series_item *item,
		    struct err *err)
{
	const struct patch *p = &item->patch;
	struct tree_change *ch = xcalloc(p->nr_files * 2 + 1, sizeof(*ch));
	struct buf data = BUF_INIT, msg = BUF_INIT;
	struct tree_oid tree, commit;
	struct tree_person author = { p->author_name, p->author_email, 0, 0 };
	struct tree_person committer = { "kcarry", "kcarry@localhost", 0, 0 };
	char **paths = xcalloc(p->nr_files + 1, sizeof(char *));
	size_t nch = 0;
	int error;

	if ((error = tree_commit_tree(&tree, repo, &s->base, err)) < 0)
		goto out;
	for (size_t f = 0; f < p->nr_files && !error; f++) {
		const struct patch_file *pf = &p->files[f];
		const char *dst = patch_file_path(pf);
		size_t line;

		paths[f] = xstrfmt("%s/files/%s", s->dir, dst);
		if (!fs_is_file(paths[f])) {
			/* a file the person removed is deleted, or, when the
			 * tree never had it (a new file), not created */
			bool had = false;
			unsigned mode;
			if ((error = tree_read_file(&data, &had, &mode, repo,
						    &tree, dst, err)) < 0)
				break;
			if (had) {
				ch[nch].path = dst;
				ch[nch++].remove = true;
			}
			continue;
		}
		if ((error = fs_read_file(&data, paths[f], MAX_FILE, err)) < 0)
			break;
		if (has_markers((struct span){ data.ptr, data.len }, &line)) {
			error = err_set(err, ERR_CONFLICT,
					"%s:%zu: conflict markers remain",
					paths[f], line);
			err_hint(err, "edit the file until no <<<<<<<, |||||||, "
				      "======= or >>>>>>> line is left");
			break;
		}
		if ((error = tree_write_blob(&ch[nch].blob, repo, data.ptr,
					     data.len, err)) < 0)
			break;
		ch[nch].path = dst;
		ch[nch].mode = pf->new_mode;
		nch++;
		if (pf->op == PATCH_RENAME && pf->old_path) {
			ch[nch].path = pf->old_path;
			ch[nch++].remove = true;
		}
	}
	if (error)
		goto out;
	{
		struct tree_oid before = tree;
		if ((error = tree_update(&tree, repo, &tree, ch, nch, err)) < 0)
			goto out;
		if (!memcmp(&before, &tree, sizeof(tree))) {
			/* the person left every file as the tree has it: the
			 * target needs nothing of this patch */
			buf_addf(text, "Subject: %s\n%s\n\nResolved by leaving "
				       "the tree as it is.\n",
				 p->subject && *p->subject ? p->subject
							   : item->file,
				 SERIES_NOTHING_TO_APPLY);
			goto out;
		}
	}
	{
		long long epoch = 0;
		int tz = 0;
		if (p->date && mail_parse_date(p->date, &epoch, &tz)) {
			author.when = committer.when = epoch;
			author.tz = committer.tz = tz;
		}
	}
	buf_adds(&msg, p->subject && *p->subject ? p->subject : item->file);
	buf_adds(&msg, "\n");
	if (p->message.len) {
		buf_addc(&msg, '\n');
		buf_add(&msg, p->message.ptr, p->message.len);
	}
	if ((error = tree_commit(&commit, repo, &tree, &s->base, &author,
				 &committer, msg.ptr, err)) < 0)
		goto out;
	error = tree_format_commit(text, repo, &commit, err);
out:
	for (size_t f = 0; f < p->nr_files; f++)
		free(paths[f]);
	free(paths);
	free(ch);
	buf_release(&data);
	buf_release(&msg);
	return error;
}
