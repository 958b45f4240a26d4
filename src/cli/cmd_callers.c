/*
 * cmd_callers: the reference map of a target on its own: every call and
 * use of the watched files' exports (or of the symbols named) within the
 * scope, with file, line and enclosing function.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "cmds.h"
#include "job.h"
#include "report.h"

/* kcarry callers --help: usage, text, text after the options */
const char callers_usage[] =
	"kcarry callers [options] TARGET [SYMBOL...]";
const char callers_help[] =
	"Print every reference in TARGET's tree to the symbols that the\n"
	"watched files export (functions, macros, types; default\n"
	"fs/btrfs/async-thread.c and .h), or to the SYMBOLs named, within the\n"
	"scope: the watched files' folders plus --scope folders.  One line per\n"
	"reference, by path then line:\n"
	"\n"
	"  path:line: function: call|use symbol\n"
	"\n"
	"function is '-' at file scope; a function passed as a callback or a\n"
	"type named is a 'use'.  Declarations are left out.  A count goes to\n"
	"stderr.\n";
const char callers_more[] =
	"exit status: 0 done; 2 bad arguments, unknown target, or no watched\n"
	"file in the tree; 3 repository or I/O trouble.\n";

struct callers_cli {
	const char **args; /* the target, then the symbols */
	size_t nr_args;
	struct opt_list watch, scope;
	struct audit_opts audit;
	bool json;
};

const struct opt callers_options[] = {
	{ OPT_LIST, 0, "watch", "FILE",
	  "a watched file (repeatable; replaces the defaults)",
	  offsetof(struct callers_cli, watch) },
	{ OPT_LIST, 0, "scope", "DIR", "another folder to search (repeatable)",
	  offsetof(struct callers_cli, scope) },
	{ OPT_FLAG, 0, "json", NULL, "print the references as JSON",
	  offsetof(struct callers_cli, json) },
	{ OPT_END },
};

/* An empty --watch or --scope value would name the whole tree. */
static int add_paths(struct callers_cli *c, const struct opt_list *l,
		     bool watch, const struct options *opts)
{
	for (size_t i = 0; i < l->nr; i++) {
		if (!l->items[i][0]) {
			usage_error("callers", opts, "--%s needs %s",
				    watch ? "watch" : "scope",
				    watch ? "FILE" : "DIR");
			return -1;
		}
		if (watch)
			audit_opts_add_watch(&c->audit, l->items[i]);
		else
			audit_opts_add_scope(&c->audit, l->items[i]);
	}
	return 0;
}

static int parse_args(struct callers_cli *c, int argc, char **argv,
		      const struct options *opts)
{
	if (cli_parse("callers", callers_options, c, argc, argv, &c->args,
		      &c->nr_args, opts) < 0 ||
	    add_paths(c, &c->watch, true, opts) < 0 ||
	    add_paths(c, &c->scope, false, opts) < 0)
		return -1;
	if (!c->nr_args) {
		usage_error("callers", opts, "no target named");
		return -1;
	}
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

int cmd_callers(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct callers_cli cli = { 0 };
	struct err err = ERR_INIT;
	struct audit_site *sites = NULL;
	size_t nr = 0, calls = 0, files = 0;
	struct job j;
	bool opened = false;
	const char *root = NULL;
	int rc = EXIT_DONE;

	if (parse_args(&cli, argc, argv, opts) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (cli_workspace(cx, &root, &err) < 0)
		goto fail;
	{
		struct target_progress tp = { progress_target, (void *)opts };
		opened = true;
		if (job_open(&j, root, cli.args[0], &tp, &err) < 0)
			goto fail;
	}
	if (audit_callers(&sites, &nr, j.repo, &j.base, cli.args + 1,
			  cli.nr_args - 1, &cli.audit, &err) < 0)
		goto fail;
	for (size_t i = 0; i < nr; i++) {
		calls += sites[i].kind == WATCH_REF_CALL;
		files += !i || strcmp(sites[i].path, sites[i - 1].path);
	}
	if (cli.json) {
		print_json(cli.args[0], &j.base, sites, nr);
	} else {
		for (size_t i = 0; i < nr; i++)
			report_printf(stdout, "%s:%zu: %s: %s %s\n",
				      sites[i].path, sites[i].line,
				      sites[i].func ? sites[i].func : "-",
				      watch_ref_kind_name(sites[i].kind),
				      sites[i].symbol);
	}
	note(opts, "%s: %zu reference%s (%zu call%s, %zu use%s) in %zu file%s",
	     cli.args[0], nr, nr == 1 ? "" : "s", calls, calls == 1 ? "" : "s",
	     nr - calls, nr - calls == 1 ? "" : "s", files,
	     files == 1 ? "" : "s");
	goto out;
fail:
	rc = err_report(&err, opts);
out:
	if (opened)
		job_close(&j);
	audit_sites_free(sites, nr);
	free(cli.args);
	opt_list_release(&cli.watch);
	opt_list_release(&cli.scope);
	audit_opts_release(&cli.audit);
	err_release(&err);
	return rc;
}
