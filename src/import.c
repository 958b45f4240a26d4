#include "import.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"
#include "debsrc.h"
#include "fs.h"
#include "mail.h"
#include "thread.h"
#include "tree.h"

#define MAX_PATCH_FILE (64UL * 1024 * 1024)

void import_set_release(struct import_set *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		struct import_candidate *c = &s->items[i];
		free(c->version);
		series_version_release(&c->sv);
		free(c->kind);
		free(c->source);
		free(c->base_commit);
		free(c->cover_subject);
		for (size_t j = 0; j < c->nr_msgids; j++)
			free(c->msgids[j]);
		free(c->msgids);
	}
	free(s->items);
	for (size_t i = 0; i < s->nr_notes; i++)
		free(s->notes[i]);
	free(s->notes);
	memset(s, 0, sizeof(*s));
}

void import_provenance(struct series_provenance *p,
		       const struct import_candidate *c)
{
	p->kind = c->kind;
	p->source = c->source;
	p->msgids = c->msgids;
	p->nr_msgids = c->nr_msgids;
	p->base_commit = c->base_commit;
	p->cover_subject = c->cover_subject;
}

static struct import_candidate *new_candidate(struct import_set *s,
					      const char *kind,
					      const char *source)
{
	struct import_candidate *c;

	ALLOC_GROW(s->items, s->nr + 1, s->alloc);
	c = &s->items[s->nr++];
	memset(c, 0, sizeof(*c));
	series_version_init(&c->sv, NULL, NULL);
	c->kind = xstrdup(kind);
	c->source = xstrdup(source);
	return c;
}

/* Parse text as a patch and append it to c; text is consumed. */
static int add_patch(struct import_candidate *c, struct buf *text,
		     const char *name, const char *origin, int strip,
		     struct err *err)
{
	struct patch p;
	struct patch_parse_opts po = { 0 };
	int error;

	po.name = name;
	po.strip = strip;
	po.strip_set = true;
	patch_init(&p);
	if ((error = patch_parse(&p, text->ptr, text->len, &po, err)) < 0) {
		patch_release(&p);
		return error;
	}
	/* stored in format-patch form, which also normalises the header;
	 * the buffer sized up front: grown by doubling, the stored texts of
	 * a 250 MB thread held a third more than their bytes */
	{
		struct buf out;
		size_t hint = text->len + text->len / 16 + 4096;

		buf_release(text); /* the parsed patch has its own copy */
		buf_init(&out, hint);
		patch_format(&out, &p, NULL);
		series_version_add(&c->sv, &p, &out, origin);
		c->sv.items[c->sv.nr - 1].strip = strip;
		buf_release(&out);
	}
	patch_release(&p);
	return 0;
}

static bool holds_msgid(const struct mail_list *l, const char *msgid)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->items[i].message_id &&
		    !strcmp(l->items[i].message_id, msgid))
			return true;
	return false;
}

/*
 * The patches are built: the bodies of the messages are needed no more,
 * but for the cover letters'.  A 250 MB thread took 1 GB with them.
 */
static void drop_bodies(struct mail_list *ml,
			const struct mail_series_list *sl)
{
	bool *cover = xcalloc(ml->nr + 1, sizeof(bool));

	for (size_t k = 0; k < sl->nr; k++)
		if (sl->items[k].cover)
			cover[sl->items[k].cover - ml->items] = true;
	for (size_t i = 0; i < ml->nr; i++) {
		struct mail *m = &ml->items[i];

		if (cover[i])
			continue;
		buf_release(&m->body);
		for (size_t k = 0; k < m->nr_attachments; k++)
			buf_release(&m->attachments[k]);
	}
	free(cover);
}

static int import_mail(struct import_set *out, char *const *paths,
		       size_t nr_paths, const struct import_opts *opts,
		       struct err *err)
{
	struct mail_list ml = { 0 };
	struct mail_series_list sl = { 0 };
	const char *path = paths[0];
	char *abs = fs_absolute(path);
	int error = 0;

	for (size_t i = 0; i < nr_paths && !error; i++)
		error = mail_read_path(&ml, paths[i], err);
	if (error == ERR_PARSE && nr_paths == 1 && fs_is_file(path)) {
		/* not a message: a patch file with no mail header (plain
		 * diff -u, text then a diff), as patch(1) reads it */
		struct import_candidate *c;
		struct buf text = BUF_INIT;
		struct err perr = ERR_INIT;
		struct import_set one = { 0 };

		c = new_candidate(&one, "mbox", abs);
		c->version = xstrdup("v1");
		/* an mbox whose message is cut or malformed stays an error:
		 * read as one patch, its other messages would be lost */
		if (fs_read_file(&text, path, MAX_PATCH_FILE, &perr) == 0 &&
		    !mail_is_mbox(text.ptr, text.len) &&
		    add_patch(c, &text, path, path,
			      opts->strip_set ? opts->strip : 1, &perr) == 0) {
			/* hand the candidate over */
			ALLOC_GROW(out->items, out->nr + 1, out->alloc);
			out->items[out->nr++] = one.items[0];
			free(one.items);
			error = 0;
		} else
			import_set_release(&one);
		buf_release(&text);
		err_release(&perr);
		goto out;
	}
	if (error < 0)
		goto out;
	if (opts->require_msgid && !holds_msgid(&ml, opts->require_msgid)) {
		error = err_set(err, ERR_NOTFOUND,
				"the thread holds no message <%s> (%zu "
				"message%s, none of them it)",
				opts->require_msgid, ml.nr,
				ml.nr == 1 ? "" : "s");
		goto out;
	}
	if ((error = mail_find_series(&sl, &ml, err)) < 0) {
		if (error == ERR_NOTFOUND) {
			err_set(err, ERR_PARSE, "%s: no patch found in %zu "
				"message%s", path, ml.nr, ml.nr == 1 ? "" : "s");
			err_hint(err, "replies that only quote a patch are not "
				      "patches");
			error = ERR_PARSE;
		}
		goto out;
	}
	drop_bodies(&ml, &sl);
	for (size_t i = 0; i < sl.nr; i++) {
		struct mail_series *ms = &sl.items[i];
		struct import_candidate *c = new_candidate(out, "mbox", abs);

		c->version = xstrfmt("v%u", ms->version ? ms->version : 1);
		if (ms->base_commit)
			c->base_commit = xstrdup(ms->base_commit);
		if (ms->cover_title)
			c->cover_subject = xstrdup(ms->cover_title);
		for (size_t j = 0; j < ms->nr_skipped_trailers; j++) {
			ALLOC_GROW(out->notes, out->nr_notes + 1,
				   out->alloc_notes);
			out->notes[out->nr_notes++] = xstrfmt(
				"%s: trailer left out, as b4 leaves it out "
				"(only the sender's own plain address "
				"counts): %s",
				c->version, ms->skipped_trailers[j]);
		}
		c->msgids = xcalloc(ms->nr_msgids + 1, sizeof(char *));
		for (size_t j = 0; j < ms->nr_msgids; j++)
			c->msgids[c->nr_msgids++] = xstrdup(ms->msgids[j]);
		if (ms->cover) {
			const struct mail *m = ms->cover;
			struct buf *cv = &c->sv.cover;
			buf_addf(cv, "From: %s%s<%s>\n",
				 m->from_name ? m->from_name : "",
				 m->from_name ? " " : "",
				 m->from_email ? m->from_email : "");
			if (m->date)
				buf_addf(cv, "Date: %s\n", m->date);
			buf_addf(cv, "Subject: %s\n", m->subject ? m->subject : "");
			if (m->message_id)
				buf_addf(cv, "Message-ID: <%s>\n", m->message_id);
			buf_addc(cv, '\n');
			buf_add(cv, m->body.ptr, m->body.len);
		}
		for (size_t j = 0; j < ms->nr_patches; j++) {
			const struct mail_patch *mp = &ms->patches[j];
			struct buf text = BUF_INIT;
			const char *id = mp->msg && mp->msg->message_id
					       ? mp->msg->message_id
					       : "";
			char *name = xstrfmt("%s (message <%s>)",
					     mp->msg && mp->msg->source
						     ? mp->msg->source
						     : path,
					     id);
			/* taken over: each patch is held once, not twice */
			buf_swap(&text, &ms->patches[j].text);
			error = add_patch(c, &text, name, id,
					  opts->strip_set ? opts->strip : 1, err);
			buf_release(&text);
			free(name);
			if (error < 0)
				goto out;
		}
	}
out:
	mail_series_list_release(&sl);
	mail_list_release(&ml);
	free(abs);
	return error;
}

typedef int (*get_file_fn)(void *ctx, const char *name, struct buf *out,
			   struct err *err);

/* A quilt series file and where the patches it lists are read from. */
struct quilt_source {
	struct span series; /* its text: "NAME [-pN]" lines */
	const char *name;   /* it, in errors */
	get_file_fn get;    /* reads one patch */
	void *ctx;          /* for get */
};

/* The patches of a quilt series, read through src->get. */
static int import_series_text(struct import_candidate *c,
			      const struct quilt_source *src,
			      const struct import_opts *opts, struct err *err)
{
	const char *series_name = src->name;
	struct series_quilt q;
	struct buf text = BUF_INIT;
	int error;

	if ((error = series_quilt_parse(&q, src->series, series_name,
					opts->strip_set ? opts->strip : 1,
					err)) < 0)
		return error;
	for (size_t i = 0; i < q.nr && !error; i++) {
		const struct series_quilt_entry *e = &q.items[i];

		if ((error = src->get(src->ctx, e->file, &text, err)) < 0) {
			err_prefix(err, "%s:%zu", series_name, e->lineno);
			break;
		}
		error = add_patch(c, &text, e->file, e->file, e->strip, err);
	}
	buf_release(&text);
	series_quilt_release(&q);
	if (!error && !c->sv.nr)
		error = err_set(err, ERR_PARSE, "%s: lists no patch",
				series_name);
	return error;
}

struct dir_ctx {
	const char *dir;
};

static int get_from_dir(void *vctx, const char *name, struct buf *out,
			struct err *err)
{
	struct dir_ctx *ctx = vctx;
	char *path = fs_join(ctx->dir, name);
	int error = fs_read_file(out, path, MAX_PATCH_FILE, err);
	free(path);
	return error;
}

/* The folder holding the quilt 'series' file of path, or NULL. */
static char *quilt_dir(const char *path)
{
	static const char *const places[] = { "", "patches", "debian/patches" };

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		char *d = *places[i] ? fs_join(path, places[i]) : xstrdup(path);
		char *s = fs_join(d, "series");
		bool ok = fs_is_file(s);
		free(s);
		if (ok)
			return d;
		free(d);
	}
	return NULL;
}

static int import_quilt(struct import_set *out, const char *dir,
			const struct import_opts *opts, struct err *err)
{
	char *abs = fs_absolute(dir);
	char *series_path = fs_join(dir, "series");
	struct import_candidate *c = new_candidate(out, "quilt", abs);
	struct dir_ctx ctx = { dir };
	struct buf series = BUF_INIT;
	int error;

	if ((error = fs_read_file(&series, series_path, MAX_PATCH_FILE, err)) ==
	    0) {
		struct quilt_source src = { { series.ptr, series.len },
					    series_path, get_from_dir, &ctx };

		error = import_series_text(c, &src, opts, err);
	}
	buf_release(&series);
	free(series_path);
	free(abs);
	return error;
}

struct tar_ctx {
	const struct debsrc_tree *t;
	const char *tarball;
};

static int get_from_tar(void *vctx, const char *name, struct buf *out,
			struct err *err)
{
	struct tar_ctx *ctx = vctx;
	long i = debsrc_tree_find(ctx->t, name);

	if (i < 0)
		return err_set(err, ERR_NOTFOUND, "'%s' is not in '%s'", name,
			       ctx->tarball);
	buf_reset(out);
	buf_add(out, ctx->t->data[i].ptr, ctx->t->data[i].len);
	return 0;
}

/* apt:PKG=VERSION or apt:PKG=VERSION/patches-rt */
static int import_apt(struct import_set *out, const char *source,
		      const struct import_opts *opts, struct err *err)
{
	char *spec = xstrdup(source + 4), *eq, *slash, *tarball = NULL;
	const char *sub = "patches";
	struct debsrc d = { 0 };
	struct debsrc_tree t = { 0 };
	const struct debsrc_file *f;
	char *prefix = NULL;
	long si;
	int error;

	slash = strchr(spec, '/');
	if (slash) {
		*slash = '\0';
		sub = slash + 1;
		if (strcmp(sub, "patches") && strcmp(sub, "patches-rt")) {
			error = err_set(err, ERR_USAGE,
					"'%s': only /patches and /patches-rt "
					"can follow the version",
					source);
			goto out;
		}
	}
	eq = strchr(spec, '=');
	if (!eq || eq == spec || !eq[1]) {
		error = err_set(err, ERR_USAGE,
				"'%s': expected apt:PACKAGE=VERSION", source);
		goto out;
	}
	*eq = '\0';
	if ((error = debsrc_locate(&d, spec, eq + 1, err)) < 0)
		goto out;
	f = debsrc_find(&d, ".debian.tar.xz");
	if (!f) {
		error = err_set(err, ERR_NOTFOUND,
				"%s=%s has no .debian.tar.xz (not a 3.0 "
				"(quilt) source package)",
				spec, eq + 1);
		goto out;
	}
	if ((error = debsrc_fetch(&tarball, f, opts->fetch, err)) < 0)
		goto out;
	prefix = xstrfmt("debian/%s/", sub);
	if ((error = debsrc_read_tar(&t, tarball, prefix, err)) < 0)
		goto out;
	si = debsrc_tree_find(&t, "series");
	if (si < 0) {
		error = err_set(err, ERR_NOTFOUND, "%s has no %sseries",
				f->name, prefix);
		goto out;
	}
	{
		struct import_candidate *c = new_candidate(out, "apt", source);
		struct tar_ctx ctx = { &t, f->name };
		char *label = xstrfmt("%s:%sseries", f->name, prefix);
		struct quilt_source src = { { t.data[si].ptr, t.data[si].len },
					    label, get_from_tar, &ctx };

		c->version = xstrdup(eq + 1);
		error = import_series_text(c, &src, opts, err);
		free(label);
	}
out:
	debsrc_tree_release(&t);
	debsrc_release(&d);
	free(prefix);
	free(tarball);
	free(spec);
	return error;
}

int import_git(struct import_set *out, const struct import_opts *opts,
	       struct err *err)
{
	struct tree_repo *r = NULL;
	struct tree_commit_patch *cp = NULL;
	size_t nr = 0, skipped = 0;
	char *abs = fs_absolute(opts->git_repo);
	char *src = xstrfmt("%s %s", abs, opts->git_range);
	int error;

	if ((error = tree_open(&r, opts->git_repo, err)) < 0 ||
	    (error = tree_range_patches(&cp, &nr, &skipped, r, opts->git_range,
					  err)) < 0)
		goto out;
	{
		struct import_candidate *c = new_candidate(out, "git", src);
		if (skipped) {
			ALLOC_GROW(out->notes, out->nr_notes + 1, out->alloc_notes);
			out->notes[out->nr_notes++] = xstrfmt(
				"left out %zu empty commit%s of %s", skipped,
				skipped == 1 ? "" : "s", opts->git_range);
		}
		for (size_t i = 0; i < nr && !error; i++) {
			char *name = xstrfmt("commit %.12s", cp[i].id);
			error = add_patch(c, &cp[i].text, name, cp[i].id, 1, err);
			free(name);
		}
	}
out:
	tree_commit_patches_free(cp, nr);
	tree_close(r);
	free(src);
	free(abs);
	return error;
}


/* "ftp://x" -> 3: a URL's scheme (letters, digits, + - .) before "://" */
static size_t url_scheme_len(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)s[0]))
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '+' || s[n] == '-' ||
	       s[n] == '.')
		n++;
	return starts_with(s + n, "://") ? n : 0;
}

int import_sources(struct import_set *out, char *const *sources, size_t nr,
		   const struct import_opts *opts, struct err *err)
{
	char *qdir = NULL;
	int error;

	if (!nr)
		return err_set(err, ERR_USAGE, "no source given");
	for (size_t i = 0; i < nr; i++) {
		const char *s = sources[i];
		bool special = starts_with(s, "apt:");

		if (!special && !fs_is_dir(s) && !fs_is_file(s) &&
		    access(s, F_OK) != 0 && url_scheme_len(s))
			return err_set(err, ERR_USAGE,
				       "'%s': only http:// and https:// URLs "
				       "are fetched",
				       s);
		if (!special && !fs_is_dir(s) && !fs_is_file(s))
			return access(s, F_OK) == 0
				       ? err_set(err, ERR_PARSE,
						 "'%s' is neither a file nor "
						 "a folder",
						 s)
				       : err_set(err, ERR_NOTFOUND,
						 "'%s' does not exist", s);
		if (!special && fs_is_dir(s))
			special = (qdir = quilt_dir(s)) != NULL;
		if (special && nr > 1) {
			free(qdir);
			return err_set(err, ERR_USAGE,
				       "'%s' must be imported on its own "
				       "(several sources must all be mail)",
				       s);
		}
	}
	if (starts_with(sources[0], "apt:"))
		return import_apt(out, sources[0], opts, err);
	if (qdir) {
		error = import_quilt(out, qdir, opts, err);
		free(qdir);
		return error;
	}
	return import_mail(out, sources, nr, opts, err);
}
