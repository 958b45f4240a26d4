#include "kconfig.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"

/* The name of path's file (after its last '/'). */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

bool kconfig_file(const char *path)
{
	return path && !strncmp(base_name(path), "Kconfig", 7);
}

/* The width of line's leading blanks (a tab to the next multiple of 8)
 * and where its text starts. */
static size_t indent(const char *p, size_t len, size_t *at)
{
	size_t w = 0, i = 0;

	for (; i < len && (p[i] == ' ' || p[i] == '\t'); i++)
		w = p[i] == '\t' ? (w / 8 + 1) * 8 : w + 1;
	*at = i;
	return w;
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The word starting at p[*i]; *i moves past it. */
static struct span word_at(const char *p, size_t len, size_t *i)
{
	size_t s = *i;

	while (*i < len && word_char(p[*i]))
		(*i)++;
	return (struct span){ p + s, *i - s };
}

/* The next word of p[*i..len) (skipping blanks), or an empty span. */
static struct span next_word(const char *p, size_t len, size_t *i)
{
	while (*i < len && (p[*i] == ' ' || p[*i] == '\t'))
		(*i)++;
	return word_at(p, len, i);
}

/* A symbol: capitals, digits and '_', with a letter. */
static bool symbol(struct span w)
{
	bool letter = false;

	for (size_t i = 0; i < w.len; i++) {
		char c = w.ptr[i];

		if (islower((unsigned char)c))
			return false;
		letter |= isupper((unsigned char)c);
	}
	return letter && !(w.len > 1 && w.ptr[0] == '0' && w.ptr[1] == 'X');
}

/* Where the string or character literal starting at p[i] ends. */
static size_t after_string(const char *p, size_t len, size_t i)
{
	char q = p[i];

	for (i++; i < len && p[i] != q; i++)
		if (p[i] == '\\')
			i++;
	return i + 1;
}

static void add_ref(struct span *out, size_t max, size_t *n, struct span w)
{
	if (!symbol(w))
		return;
	for (size_t k = 0; k < *n && k < max; k++)
		if (out[k].len == w.len && !memcmp(out[k].ptr, w.ptr, w.len))
			return;
	if (*n < max)
		out[*n] = w;
	(*n)++;
}

bool kconfig_makefile(const char *path)
{
	const char *base;

	/* tools/ builds with its own CONFIG_ variables (perf's features) */
	if (!path || !strncmp(path, "tools/", 6))
		return false;
	base = base_name(path);
	return !strcmp(base, "Makefile") || !strcmp(base, "Kbuild") ||
	       !strncmp(base, "Makefile.", 9) || !strncmp(base, "Kbuild.", 7);
}

void kconfig_make_defines(struct kconfig_set *s, const char *text,
			  size_t len)
{
	bool comment = false;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];

		if (c == '\n') {
			comment = false;
		} else if (comment) {
			continue;
		} else if (c == '#' && (!i || text[i - 1] != '\\')) {
			comment = true; /* "\#define" is make's escaped '#' */
		} else if (c == '-' && i + 2 < len && text[i + 1] == 'D' &&
			   (!i || (!word_char(text[i - 1]) &&
				   !strchr("-$)}", text[i - 1]))) &&
			   (isalpha((unsigned char)text[i + 2]) ||
			    text[i + 2] == '_')) {
			size_t j = i + 2;

			while (j < len && word_char(text[j]))
				j++;
			kconfig_set_add(s, text + i + 2, j - i - 2);
			i = j - 1;
		}
	}
}

size_t kconfig_make_refs(const char *line, size_t len, struct span *out,
			 size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < len && line[i] != '#';) {
		if (word_char(line[i])) {
			struct span w = word_at(line, len, &i);

			if (w.len > 7 && !memcmp(w.ptr, "CONFIG_", 7))
				add_ref(out, max, &n,
					(struct span){ w.ptr + 7, w.len - 7 });
		} else {
			i++;
		}
	}
	return n;
}

bool kconfig_decl(const char *line, size_t len, struct span *name)
{
	size_t i = 0;
	struct span w = next_word(line, len, &i);

	if (!span_eq(w, "config") && !span_eq(w, "menuconfig"))
		return false;
	*name = next_word(line, len, &i);
	return name->len && (i == len || line[i] == ' ' || line[i] == '\t' ||
			     line[i] == '#');
}

/* The symbols of the expression p[i..len) (a comment, a string and a
 * macro call "$(...)" end or skip what is read). */
static void expr_refs(const char *p, size_t len, size_t i, struct span *out,
		      size_t max, size_t *n)
{
	while (i < len) {
		char c = p[i];

		if (c == '#' || (c == '$' && i + 1 < len && p[i + 1] == '('))
			return;
		if (c == '"' || c == '\'') {
			i = after_string(p, len, i);
		} else if (word_char(c)) {
			struct span w = word_at(p, len, &i);

			add_ref(out, max, n, w);
		} else {
			i++;
		}
	}
}

/* Where "if" starts a condition in p[i..len), outside strings, or len. */
static size_t find_if(const char *p, size_t len, size_t i)
{
	while (i < len) {
		char c = p[i];

		if (c == '#')
			return len;
		if (c == '"' || c == '\'') {
			i = after_string(p, len, i);
		} else if (word_char(c)) {
			if (span_eq(word_at(p, len, &i), "if"))
				return i;
		} else {
			i++;
		}
	}
	return len;
}

size_t kconfig_refs(const char *line, size_t len, bool in_help,
		    struct span *out, size_t max)
{
	size_t i, n = 0;
	struct span w;

	if (in_help || indent(line, len, &i) > 8)
		return 0;
	w = next_word(line, len, &i);
	if (span_eq(w, "select") || span_eq(w, "imply")) {
		add_ref(out, max, &n, next_word(line, len, &i));
		expr_refs(line, len, find_if(line, len, i), out, max, &n);
	} else if (span_eq(w, "depends")) {
		if (span_eq(next_word(line, len, &i), "on"))
			expr_refs(line, len, i, out, max, &n);
	} else if (span_eq(w, "visible")) {
		if (span_eq(next_word(line, len, &i), "if"))
			expr_refs(line, len, i, out, max, &n);
	} else if (span_eq(w, "if") || span_eq(w, "default") ||
		   span_eq(w, "def_bool") || span_eq(w, "def_tristate")) {
		expr_refs(line, len, i, out, max, &n);
	} else if (span_eq(w, "bool") || span_eq(w, "tristate") ||
		   span_eq(w, "prompt") || span_eq(w, "string") ||
		   span_eq(w, "int") || span_eq(w, "hex")) {
		expr_refs(line, len, find_if(line, len, i), out, max, &n);
	}
	return n;
}

bool kconfig_help_after(const char *line, size_t len, bool in_help,
			size_t *help_indent)
{
	size_t i, w = indent(line, len, &i), end = len;

	while (end > i && isspace((unsigned char)line[end - 1]))
		end--;
	if (i == end)
		return in_help; /* a blank line */
	if (in_help) {
		if (*help_indent == (size_t)-1)
			*help_indent = w; /* the first line of the text */
		if (w >= *help_indent)
			return true;
	}
	if ((end - i == 4 && !memcmp(line + i, "help", 4)) ||
	    (end - i == 10 && !memcmp(line + i, "---help---", 10))) {
		*help_indent = (size_t)-1;
		return true;
	}
	return false;
}

bool kconfig_help_line(const char *line, size_t len, bool in_help,
		       size_t help_indent)
{
	size_t i, w = indent(line, len, &i);

	return in_help && (i == len || help_indent == (size_t)-1 ||
			   w >= help_indent);
}

void kconfig_set_init(struct kconfig_set *s)
{
	memset(s, 0, sizeof(*s));
}

void kconfig_set_release(struct kconfig_set *s)
{
	strmap_release(&s->map);
	for (size_t i = 0; i < s->nr; i++)
		free(s->names[i]);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

bool kconfig_set_has(const struct kconfig_set *s, const char *name,
		     size_t len)
{
	return strmap_get_n(&s->map, name, len) != (size_t)-1;
}

void kconfig_set_add(struct kconfig_set *s, const char *name, size_t len)
{
	char *n;

	if (kconfig_set_has(s, name, len))
		return;
	n = xstrndup(name, len);
	ALLOC_GROW(s->names, s->nr + 1, s->alloc);
	s->names[s->nr++] = n;
	strmap_put(&s->map, n, s->nr - 1);
}

void kconfig_text_decls(struct kconfig_set *s, const char *text, size_t len)
{
	struct cursor c;
	struct span line, name;

	cursor_init(&c, text, len);
	while (cursor_next(&c, &line, NULL))
		if (kconfig_decl(line.ptr, line.len, &name))
			kconfig_set_add(s, name.ptr, name.len);
}

int kconfig_tree_decls(struct kconfig_set *s, struct tree_repo *r,
		       const struct tree_oid *tree, struct err *err)
{
	/* the blobs named Kconfig* (kconfig_file()) */
	struct tree_list_opts o = { "", true, NULL, "Kconfig" };
	struct tree_blob *b = NULL;
	struct buf text = BUF_INIT;
	size_t nr = 0;
	int error;

	if ((error = tree_list_blobs(&b, &nr, r, tree, &o, err)) < 0)
		return error;
	for (size_t i = 0; i < nr && !error; i++) {
		buf_reset(&text);
		if ((error = tree_read_blob_oid(&text, r, &b[i].id, err)) < 0)
			break;
		kconfig_text_decls(s, text.ptr, text.len);
	}
	buf_release(&text);
	tree_blobs_free(b, nr);
	return error;
}

bool kconfig_module_of(const struct kconfig_set *s, struct span name)
{
	return name.len > 7 &&
	       !memcmp(name.ptr + name.len - 7, "_MODULE", 7) &&
	       kconfig_set_has(s, name.ptr, name.len - 7);
}

unsigned kconfig_coverage(const struct kconfig_set *s, const char *text,
			  size_t len, bool make)
{
	struct kconfig_set own;
	struct cursor c;
	struct span line, refs[16];
	size_t all = 0, known = 0, hi = 0;
	bool help = false;

	kconfig_set_init(&own);
	kconfig_text_decls(&own, text, len);
	cursor_init(&c, text, len);
	while (cursor_next(&c, &line, NULL)) {
		size_t n = make ? kconfig_make_refs(line.ptr, line.len, refs,
						    16)
				: kconfig_refs(line.ptr, line.len,
					       kconfig_help_line(line.ptr,
								 line.len, help,
								 hi),
					       refs, 16);

		for (size_t k = 0; k < n && k < 16; k++) {
			all++;
			known += kconfig_set_has(s, refs[k].ptr, refs[k].len) ||
				 kconfig_set_has(&own, refs[k].ptr, refs[k].len) ||
				 (make && kconfig_module_of(s, refs[k]));
		}
		help = kconfig_help_after(line.ptr, line.len, help, &hi);
	}
	kconfig_set_release(&own);
	return all ? (unsigned)(known * 100 / all) : 100;
}
