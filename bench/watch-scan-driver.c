/*
 * watch-scan-driver: times the watch scanner over a kernel tree's fs/btrfs
 * for the exports of fs/btrfs/async-thread.[ch].  Used by bench/watch-scan.
 *
 *   watch-scan-driver [--exports] [--refs] [--calls] [--repeat N]
 *                     [--watch PATH]... TREE
 *
 * --exports prints the exported symbols, --refs every reference
 * ("path:line:col kind name in func"), --calls "path:line name" for calls
 * only.  --watch replaces the watched files (paths relative to TREE).
 * Timings go to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fs.h"
#include "watch.h"

struct file {
	char *path; /* relative to the tree */
	struct buf text;
};

struct files {
	struct file *v;
	size_t nr, alloc;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int read_tree(struct files *fl, const char *root, const char *rel,
		     struct err *err)
{
	char *dir = fs_join(root, rel);
	char **names;
	size_t nr;
	int error;

	if ((error = fs_list_dir(dir, &names, &nr, err)) < 0)
		goto out;
	for (size_t i = 0; i < nr && !error; i++) {
		char *sub = fs_join(rel, names[i]);
		char *full = fs_join(root, sub);

		if (fs_is_dir(full)) {
			error = read_tree(fl, root, sub, err);
		} else if (ends_with(sub, ".c") || ends_with(sub, ".h")) {
			ALLOC_GROW(fl->v, fl->nr + 1, fl->alloc);
			fl->v[fl->nr].path = sub;
			buf_init(&fl->v[fl->nr].text, 0);
			error = fs_read_file(&fl->v[fl->nr++].text, full, 0,
					     err);
			sub = NULL;
		}
		free(sub);
		free(full);
	}
	fs_free_list(names, nr);
out:
	free(dir);
	return error;
}

static const struct file *find_file(const struct files *fl, const char *path)
{
	for (size_t i = 0; i < fl->nr; i++)
		if (!strcmp(fl->v[i].path, path))
			return &fl->v[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct err err = ERR_INIT;
	struct files fl = { NULL, 0, 0 };
	struct watch_exports ex;
	struct watch_set set;
	struct watch_refs refs;
	struct watch_source *src = NULL;
	const char *watched[256] = { "fs/btrfs/async-thread.h",
				     "fs/btrfs/async-thread.c" };
	size_t nwatched = 2;
	bool custom = false;
	const char *tree = NULL;
	bool show_exports = false, show_refs = false, show_calls = false;
	int repeat = 1, rc = 0;
	double t0, t1, t2, best = 1e9;
	size_t bytes = 0, lines = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--exports"))
			show_exports = true;
		else if (!strcmp(argv[i], "--refs"))
			show_refs = true;
		else if (!strcmp(argv[i], "--calls"))
			show_calls = true;
		else if (!strcmp(argv[i], "--watch") && i + 1 < argc &&
			 (!custom || nwatched < 256)) {
			if (!custom)
				nwatched = 0;
			custom = true;
			watched[nwatched++] = argv[++i];
		} else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
			repeat = atoi(argv[++i]);
		else
			tree = argv[i];
	}
	if (!tree) {
		fprintf(stderr, "usage: %s [--exports] [--refs] [--calls] "
				"[--repeat N] TREE\n", argv[0]);
		return 2;
	}
	watch_exports_init(&ex);
	watch_set_init(&set);
	watch_refs_init(&refs);

	t0 = now();
	if (read_tree(&fl, tree, "fs/btrfs", &err) < 0)
		goto fail;
	t1 = now();
	src = xcalloc(nwatched, sizeof(*src));
	for (size_t i = 0; i < nwatched; i++) {
		const struct file *f = find_file(&fl, watched[i]);

		src[i].path = watched[i];
		if (!f) {
			err_set(&err, ERR_NOTFOUND, "%s: not in the tree",
				src[i].path);
			goto fail;
		}
		src[i].text = f->text.ptr;
		src[i].len = f->text.len;
	}
	for (size_t i = 0; i < fl.nr; i++) {
		bytes += fl.v[i].text.len;
		for (size_t k = 0; k < fl.v[i].text.len; k++)
			lines += fl.v[i].text.ptr[k] == '\n';
	}
	for (int r = 0; r < repeat; r++) {
		double a = now();

		watch_exports_release(&ex);
		watch_set_release(&set);
		watch_refs_release(&refs);
		if (watch_exports(&ex, src, nwatched, &err) < 0)
			goto fail;
		watch_set_add_exports(&set, &ex);
		for (size_t i = 0; i < fl.nr; i++)
			if (watch_scan_refs(&refs, &set, fl.v[i].path,
					    fl.v[i].text.ptr, fl.v[i].text.len,
					    &err) < 0)
				goto fail;
		if (now() - a < best)
			best = now() - a;
	}
	t2 = now();

	if (show_exports)
		for (size_t i = 0; i < ex.nr; i++)
			printf("%s:%zu: %s %s%s%s\n", ex.v[i].path,
			       ex.v[i].line, watch_kind_name(ex.v[i].kind),
			       ex.v[i].name, ex.v[i].signature ? " = " : "",
			       ex.v[i].signature ? ex.v[i].signature : "");
	for (size_t i = 0; i < refs.nr; i++) {
		const struct watch_ref *r = &refs.v[i];

		if (show_refs)
			printf("%s:%zu:%zu %s %s in %s%s%s\n", r->path,
			       r->line, r->col, watch_ref_kind_name(r->kind),
			       r->name, r->func ? r->func : "-",
			       r->macro ? " macro " : "",
			       r->macro ? r->macro : "");
		if (show_calls && r->kind == WATCH_REF_CALL)
			printf("%s:%zu %s\n", r->path, r->line, r->name);
	}
	fprintf(stderr,
		"watch: %zu files, %zu lines, %zu bytes; %zu symbols, "
		"%zu refs; read %.1f ms, exports+scan %.1f ms (best of %d)\n",
		fl.nr, lines, bytes, ex.nr, refs.nr, (t1 - t0) * 1e3,
		best * 1e3, repeat);
	(void)t2;
	goto out;
fail:
	fprintf(stderr, "error: %s\n", err.msg.ptr);
	rc = 1;
out:
	for (size_t i = 0; i < fl.nr; i++) {
		free(fl.v[i].path);
		buf_release(&fl.v[i].text);
	}
	free(fl.v);
	free(src);
	watch_exports_release(&ex);
	watch_set_release(&set);
	watch_refs_release(&refs);
	err_release(&err);
	return rc;
}
