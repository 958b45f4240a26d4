/*
 * cmd_complete: 'kcarry __complete -- WORD...', the one source of the
 * shell completions (contrib/completion/): given the words of a command
 * line after 'kcarry', the last one the word being completed (empty
 * after a space), print the candidates that start with it, one a line.
 *
 * Nothing here is a second list: commands come from main.c's table,
 * options from each command's option table (opt.h) and the global one,
 * a value's choices from its OPT_CHOICE, positional arguments from the
 * placeholders of the command's usage lines (NAME[@VERSION], TARGET...,
 * [DIR]), and series, versions and targets from the workspace as -C
 * (among the words), $KCARRY_WORKSPACE or the current folder find it.
 * A line ":file" or ":dir" asks the shell for its own file or folder
 * names.  Errors (no workspace, a word that is no command) print fewer
 * candidates, never a message: a shell is reading.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"
#include "name.h"
#include "series.h"
#include "target.h"

/* kcarry __complete --help: usage, text, text after the options */
const char complete_usage[] =
	"kcarry __complete -- WORD...";
const char complete_help[] =
	"Print the candidates for the last WORD of a command line (the words\n"
	"after 'kcarry'; an empty last WORD after a space), one a line:\n"
	"commands, options, option values, and the series, versions and\n"
	"targets of the workspace.  ':file' or ':dir' asks the shell for file\n"
	"or folder names.  The completion scripts for bash and zsh call it;\n"
	"'kcarry help' does not list it.\n";

/* what a placeholder stands for */
enum want {
	W_NONE,
	W_SERIES,    /* NAME, SERIES */
	W_SERIES_AT, /* NAME[@VERSION], NAME@V1: versions after an '@' */
	W_VERSION,   /* V1, VERSION: of the series named before */
	W_TARGET,
	W_PATCH, /* PATCH: a file of the version named before */
	W_COMMAND,
	W_FILE,
	W_DIR,
	W_LITERAL, /* a word of the usage itself ('report merge') */
};

/* the placeholders of usage lines and option values kcarry uses */
static const struct {
	const char *ph;
	enum want want;
	bool positional_only; /* NAME of 'export --branch NAME' is a branch */
} placeholders[] = {
	{ "NAME", W_SERIES, true },
	{ "SERIES", W_SERIES, true },
	{ "NAME[@VERSION]", W_SERIES_AT, true },
	{ "NAME@V1", W_SERIES_AT, true },
	{ "NAME@V2", W_SERIES_AT, true },
	{ "V1", W_VERSION, true },
	{ "V2", W_VERSION, true },
	{ "VERSION", W_VERSION, true },
	{ "TARGET", W_TARGET, false },
	{ "PATCH", W_PATCH, true },
	{ "COMMAND", W_COMMAND, true },
	{ "DIR", W_DIR, false },
	{ "REPO", W_DIR, false },
	{ "FILE", W_FILE, false },
	{ "PATH", W_FILE, false },
	{ "SOURCE", W_FILE, true },
	{ "CHECK.json", W_FILE, true },
};

#define MAX_SLOTS 24

/* one positional argument of a usage line */
struct slot {
	enum want want;
	const char *word; /* W_LITERAL: into the usage text */
	size_t len;
	bool optional, repeat;
	bool needs_at; /* NAME@V1: a word without '@' is the other form */
};

/* what the words before the one being completed say */
struct line {
	const char **words; /* after 'kcarry'; words[nr - 1] is completed */
	size_t nr;
	const char *workdir;	   /* the value of a -C among them */
	const struct command *cmd; /* NULL: the command is being typed */
	const char **pos;	   /* the command's positional words */
	size_t nr_pos;
	const struct opt *value_of; /* the completed word is its value */
	bool opts_ended;	    /* after "--" */
	bool unknown;		    /* a word that is no command */
	char *root;		    /* the workspace, found on first use */
	bool root_tried;
};

static enum want want_of(const char *ph, size_t len, bool positional)
{
	for (size_t i = 0; i < sizeof(placeholders) / sizeof(*placeholders);
	     i++)
		if (strlen(placeholders[i].ph) == len &&
		    !memcmp(placeholders[i].ph, ph, len))
			return positional || !placeholders[i].positional_only
				       ? placeholders[i].want
				       : W_NONE;
	return W_NONE;
}

/* how many words an option takes after it (its value given apart) */
static int opt_nargs(const struct opt *o)
{
	if (!o->arg) /* a flag, a count, a function of none */
		return 0;
	if (o->kind == OPT_PAIR)
		return 2;
	return o->optional ? 0 : 1;
}

/* the option word w ("--fuzz", "--fuzz=2", "-F", "-F2") names in table */
static const struct opt *find_opt(const struct opt *table, const char *w)
{
	if (!table)
		return NULL;
	for (const struct opt *o = table; o->kind != OPT_END; o++) {
		if (w[1] == '-' && o->long_name) {
			size_t n = strlen(o->long_name);
			if (!strncmp(w + 2, o->long_name, n) &&
			    (w[2 + n] == '\0' || w[2 + n] == '='))
				return o;
		} else if (w[1] != '-' && o->short_name &&
			   w[1] == o->short_name)
			return o;
	}
	return NULL;
}

/* whether w carries its option's value ("--fuzz=2", "-F2") */
static bool value_attached(const char *w)
{
	return w[1] == '-' ? strchr(w, '=') != NULL : strlen(w) > 2;
}

/* not cli_workspace: the workspace is the completed line's -C, if any */
static const char *find_root(struct line *l)
{
	struct options o = { .workdir = l->workdir };
	struct err err = ERR_INIT;

	if (!l->root_tried && workspace_find(&l->root, &o, &err) < 0)
		l->root = NULL;
	l->root_tried = true;
	err_release(&err);
	return l->root;
}

static const char *current(const struct line *l)
{
	return l->words[l->nr - 1];
}

/* print prefix + cand when it starts with the word being completed */
static void offer(const struct line *l, const char *prefix, const char *cand)
{
	const char *cur = current(l);
	size_t n = strlen(prefix);

	if (!strncmp(cur, prefix, n) ? starts_with(cand, cur + n)
				     : starts_with(prefix, cur))
		printf("%s%s\n", prefix, cand);
}

static void offer_list(const struct line *l, const char *prefix, char **list,
		       size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		offer(l, prefix, list[i]);
	series_free_list(list, nr);
}

static void offer_versions(struct line *l, const char *name, bool at)
{
	const char *root = find_root(l);
	char **list = NULL, *prefix;
	size_t nr = 0;
	struct err err = ERR_INIT;

	if (!root || !name_valid(NAME_SERIES, name))
		return;
	if (series_list_versions(root, name, &list, &nr, &err) == 0) {
		prefix = at ? xstrfmt("%s@", name) : xstrdup("");
		offer_list(l, prefix, list, nr);
		free(prefix);
	}
	err_release(&err);
}

/* the series a version belongs to: the first positional word */
static char *series_named(const struct line *l)
{
	const char *w = l->nr_pos ? l->pos[0] : NULL;

	return w ? xstrndup(w, strcspn(w, "@")) : NULL;
}

/* the patch files of NAME[@VERSION], the first positional word */
static void offer_patches(struct line *l)
{
	const char *root = find_root(l), *w = l->nr_pos ? l->pos[0] : NULL;
	char *name = NULL, *version = NULL;
	struct series_version v = { 0 };
	struct err err = ERR_INIT;

	if (root && w && series_parse_spec(w, &name, &version, &err) == 0 &&
	    series_load_version(&v, root, name, version, &err) == 0)
		for (size_t i = 0; i < v.nr; i++)
			offer(l, "", v.items[i].file);
	series_version_release(&v);
	free(name);
	free(version);
	err_release(&err);
}

static void offer_want(struct line *l, enum want want)
{
	const char *root = want <= W_TARGET ? find_root(l) : NULL;
	const char *cur = current(l), *at = strchr(cur, '@');
	char **list = NULL;
	size_t nr = 0;
	struct err err = ERR_INIT;

	if (want == W_SERIES_AT && at) {
		char *name = xstrndup(cur, at - cur);
		offer_versions(l, name, true);
		free(name);
	} else if ((want == W_SERIES || want == W_SERIES_AT) && root) {
		if (series_list_names(root, &list, &nr, &err) == 0)
			offer_list(l, "", list, nr);
	} else if (want == W_VERSION) {
		char *name = series_named(l);
		if (name)
			offer_versions(l, name, false);
		free(name);
	} else if (want == W_TARGET && root) {
		if (target_list(root, &list, &nr, &err) == 0)
			offer_list(l, "", list, nr);
	} else if (want == W_PATCH) {
		offer_patches(l);
	} else if (want == W_COMMAND) {
		size_t n;
		const struct command *c = command_table(&n);
		for (size_t i = 0; i < n; i++)
			if (c[i].name[0] != '_')
				offer(l, "", c[i].name);
	} else if (want == W_FILE || want == W_DIR) {
		puts(want == W_FILE ? ":file" : ":dir");
	}
	err_release(&err);
}

/* the value of option o; prefix is "--name=" when it is attached */
static void offer_value(struct line *l, const struct opt *o, const char *prefix)
{
	if (o->choices) {
		for (size_t i = 0; o->choices[i]; i++)
			offer(l, prefix, o->choices[i]);
		return;
	}
	if (o->arg && !prefix[0])
		offer_want(l, want_of(o->arg, strlen(o->arg), false));
}

static void offer_options(const struct line *l, const struct opt *table)
{
	for (const struct opt *o = table; o && o->kind != OPT_END; o++) {
		if (o->long_name) {
			char *s = xstrfmt("--%s", o->long_name);
			offer(l, "", s);
			free(s);
		} else if (o->short_name) {
			char s[3] = { '-', o->short_name, '\0' };
			offer(l, "", s);
		}
	}
}

/*
 * The positional slots of one usage line ("kcarry apply [options]
 * NAME[@VERSION] TARGET..."): options named in it are skipped with their
 * values, as the command's table says how many it takes.
 */
static size_t usage_slots(struct slot *s, const char *line,
			  const struct command *c)
{
	struct span t[48];
	size_t nt = 0, ns = 0;

	for (const char *p = line; *p && nt < 48;) {
		size_t n;
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n)
			t[nt++] = (struct span){ p, n };
		p += n;
	}
	for (size_t i = 0; i < nt && ns < MAX_SLOTS; i++) {
		const char *w = t[i].ptr;
		size_t n = t[i].len;
		char *opt;
		const struct opt *o;

		if (span_eq(t[i], "kcarry") || span_eq(t[i], c->name) ||
		    span_eq(t[i], "or:") || span_eq(t[i], "[options]"))
			continue;
		if (span_starts_with(t[i], "[-")) {
			while (i < nt && t[i].ptr[t[i].len - 1] != ']')
				i++;
			continue;
		}
		if (w[0] == '-') {
			opt = span_dup(t[i]);
			o = find_opt(c->options, opt);
			i += o ? (size_t)opt_nargs(o) : 0;
			free(opt);
			continue;
		}
		s[ns] = (struct slot){ W_NONE, w, n, w[0] == '[', false };
		if (s[ns].optional && w[n - 1] == ']') {
			w++;
			n -= 2;
		}
		if (n > 3 && !memcmp(w + n - 3, "...", 3)) {
			s[ns].repeat = true;
			n -= 3;
		}
		s[ns].word = w;
		s[ns].len = n;
		s[ns].needs_at = memchr(w, '@', n) && !memchr(w, '[', n);
		s[ns].want = strspn(w, "abcdefghijklmnopqrstuvwxyz") == n
				     ? W_LITERAL
				     : want_of(w, n, true);
		ns++;
	}
	return ns;
}

/* the slots reachable when optional ones may be left out */
static uint32_t closure(const struct slot *s, size_t n, uint32_t set)
{
	for (size_t i = 0; i < n; i++)
		if (set >> i & 1 && s[i].optional)
			set |= 1u << (i + 1);
	return set;
}

static uint32_t step(const struct slot *s, size_t n, uint32_t set,
		     const char *word)
{
	uint32_t next = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(set >> i & 1))
			continue;
		if (s[i].want == W_LITERAL &&
		    (strlen(word) != s[i].len ||
		     memcmp(word, s[i].word, s[i].len)))
			continue;
		if (s[i].needs_at ? !strchr(word, '@')
				  : s[i].want == W_SERIES && strchr(word, '@'))
			continue;
		next |= 1u << (i + 1);
		if (s[i].repeat)
			next |= 1u << i;
	}
	return closure(s, n, next);
}

/* what may stand where the completed word is, by every usage line */
static void offer_positional(struct line *l)
{
	const char *usage = l->cmd->usage;
	uint32_t wants = 0;

	while (*usage) {
		size_t len = strcspn(usage, "\n");
		char *line = xstrndup(usage, len);
		struct slot s[MAX_SLOTS];
		size_t n = usage_slots(s, line, l->cmd);
		uint32_t set = closure(s, n, 1);

		for (size_t i = 0; i < l->nr_pos; i++)
			set = step(s, n, set, l->pos[i]);
		for (size_t i = 0; i < n; i++) {
			if (!(set >> i & 1))
				continue;
			if (s[i].want == W_LITERAL) {
				char *w = xstrndup(s[i].word, s[i].len);
				offer(l, "", w);
				free(w);
			} else
				wants |= 1u << s[i].want;
		}
		free(line);
		usage += len + (usage[len] == '\n');
	}
	if (wants >> W_SERIES_AT & 1) /* names either way */
		wants &= ~(1u << W_SERIES);
	for (int w = W_SERIES; w < W_LITERAL; w++)
		if (wants >> w & 1)
			offer_want(l, w);
}

/*
 * Read the words before the completed one: global options (-C DIR kept),
 * the command, its options (with their values) and positional words.
 */
static void read_line(struct line *l)
{
	const struct opt *globals = global_option_table();

	for (size_t i = 0; i + 1 < l->nr; i++) {
		const char *w = l->words[i];
		const struct opt *o = NULL;
		int nargs;

		if (l->cmd && (l->opts_ended || w[0] != '-' || !w[1])) {
			l->pos[l->nr_pos++] = w;
			continue;
		}
		if (l->cmd && !strcmp(w, "--")) {
			l->opts_ended = true;
			continue;
		}
		if (w[0] != '-') {
			l->cmd = command_find(w);
			l->unknown = !l->cmd;
			if (l->unknown)
				return;
			continue;
		}
		o = l->cmd ? find_opt(l->cmd->options, w) : NULL;
		if (!o)
			o = find_opt(globals, w);
		nargs = o && !value_attached(w) ? opt_nargs(o) : 0;
		if (nargs && i + nargs >= l->nr - 1) {
			l->value_of = o;
			return;
		}
		if (o && o->short_name == 'C' && o->arg && nargs)
			l->workdir = l->words[i + 1];
		i += nargs;
	}
}

static void complete(struct line *l)
{
	const char *cur = current(l), *eq = strchr(cur, '=');

	read_line(l);
	if (l->unknown)
		return;
	if (l->value_of) {
		offer_value(l, l->value_of, "");
	} else if (cur[0] == '-' && !l->opts_ended) {
		const struct opt *table = l->cmd ? l->cmd->options
						 : global_option_table();
		const struct opt *o = NULL;
		if (eq && starts_with(cur, "--") &&
		    ((o = find_opt(table, cur)) ||
		     (o = find_opt(global_option_table(), cur)))) {
			char *prefix = xstrndup(cur, eq + 1 - cur);
			offer_value(l, o, prefix);
			free(prefix);
			return;
		}
		offer_options(l, table);
		if (l->cmd)
			offer(l, "", "--help");
	} else if (!l->cmd) {
		offer_want(l, W_COMMAND);
	} else {
		offer_positional(l);
	}
}

int cmd_complete(int argc, char **argv, struct cli_ctx *cx)
{
	const struct options *opts = cx->opts;
	struct line l = { 0 };
	int i = 1;

	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc)
		return usage_error("__complete", opts,
				   "expected the words of a command line");
	l.words = (const char **)argv + i;
	l.nr = argc - i;
	l.workdir = opts->workdir;
	l.pos = xcalloc(l.nr, sizeof(*l.pos));
	complete(&l);
	free(l.pos);
	free(l.root);
	return EXIT_DONE;
}
