/*
 * cmd_callers: the reference map of a target on its own: every call and
 * use of the watched files' exports (or of the symbols named) within the
 * scope, with file, line and enclosing function.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "cmds.h"
#include "job.h"

struct callers_cli {
	const char *target;
	const char **symbols;
	size_t nr_symbols;
	struct audit_opts audit;
	bool json;
};

static void on_target(void *vctx, const char *target, const char *what)
{
	const struct options *opts = vctx;
	note(opts, "%s: %s", target, what);
}

static int parse_args(struct callers_cli *c, int argc, char **argv,
		      struct err *err)
{
	c->symbols = xcalloc((size_t)argc, sizeof(char *));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--json")) {
			c->json = true;
		} else if (!strcmp(a, "--watch") || !strcmp(a, "--scope")) {
			if (++i >= argc || !argv[i][0])
				return err_set(err, ERR_USAGE,
					       "%s needs a %s", a,
					       a[2] == 'w' ? "file" : "folder");
			if (a[2] == 'w')
				audit_opts_add_watch(&c->audit, argv[i]);
			else
				audit_opts_add_scope(&c->audit, argv[i]);
		} else if (a[0] == '-' && a[1]) {
			return err_set(err, ERR_USAGE, "unknown option '%s'",
				       a);
		} else if (!c->target) {
			c->target = a;
		} else {
			c->symbols[c->nr_symbols++] = a;
		}
	}
	if (!c->target)
		return err_set(err, ERR_USAGE, "no target named");
	return 0;
}

static void print_json(const char *target, const struct tree_oid *commit,
		       const struct audit_site *s, size_t nr)
{
	json_t *root = json_object(), *refs = json_array();
	char hex[41];
	char *text;

	tree_oid_hex(hex, commit);
	json_object_set_new(root, "schema", json_string("kcarry-callers/1"));
	json_object_set_new(root, "target", json_string(target));
	json_object_set_new(root, "commit", json_string(hex));
	for (size_t i = 0; i < nr; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "path", json_string(s[i].path));
		json_object_set_new(o, "line",
				    json_integer((json_int_t)s[i].line));
		json_object_set_new(o, "function", s[i].func
				    ? json_string(s[i].func) : json_null());
		json_object_set_new(
			o, "kind", json_string(watch_ref_kind_name(s[i].kind)));
		json_object_set_new(o, "symbol", json_string(s[i].symbol));
		json_object_set_new(o, "text", json_string(s[i].text));
		json_array_append_new(refs, o);
	}
	json_object_set_new(root, "references", refs);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	printf("%s\n", text);
	free(text);
	json_decref(root);
}

int cmd_callers(int argc, char **argv, const struct options *opts)
{
	struct callers_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct audit_site *sites = NULL;
	size_t nr = 0, calls = 0, files = 0;
	struct job j;
	bool opened = false;
	char *root = NULL;
	int rc = EXIT_DONE;

	if (parse_args(&cli, argc, argv, &err) < 0) {
		rc = usage_error("callers", opts, "%s", err.msg.ptr);
		goto out;
	}
	if (workspace_find(&root, opts, &err) < 0)
		goto fail;
	{
		struct target_progress tp = { on_target, (void *)opts };
		opened = true;
		if (job_open(&j, root, cli.target, &tp, &err) < 0)
			goto fail;
	}
	if (audit_callers(&sites, &nr, j.repo, &j.base, cli.symbols,
			  cli.nr_symbols, &cli.audit, &err) < 0)
		goto fail;
	for (size_t i = 0; i < nr; i++) {
		calls += sites[i].kind == WATCH_REF_CALL;
		files += !i || strcmp(sites[i].path, sites[i - 1].path);
	}
	if (cli.json) {
		print_json(cli.target, &j.base, sites, nr);
	} else {
		for (size_t i = 0; i < nr; i++)
			printf("%s:%zu: %s: %s %s\n", sites[i].path,
			       sites[i].line,
			       sites[i].func ? sites[i].func : "-",
			       watch_ref_kind_name(sites[i].kind),
			       sites[i].symbol);
	}
	note(opts, "%s: %zu reference%s (%zu call%s, %zu use%s) in %zu file%s",
	     cli.target, nr, nr == 1 ? "" : "s", calls, calls == 1 ? "" : "s",
	     nr - calls, nr - calls == 1 ? "" : "s", files,
	     files == 1 ? "" : "s");
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	if (opened)
		job_close(&j);
	audit_sites_free(sites, nr);
	free(cli.symbols);
	audit_opts_release(&cli.audit);
	free(root);
	err_release(&err);
	return rc;
}
