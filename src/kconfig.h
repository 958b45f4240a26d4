/*
 * kconfig: the Kconfig symbols a line of a Kconfig file declares or
 * refers to, and every symbol a tree declares, so that an added
 * "select X" or "depends on X" whose X the target defines nowhere can be
 * said: Kconfig ignores a select of an undefined symbol, and a condition
 * on one is never true, so the build goes on without a word (RT's arm
 * patch selecting HAVE_FAST_GUP on 6.12, where it is HAVE_GUP_FAST); so
 * is an "obj-$(CONFIG_X)" of a makefile, whose object is never built.
 *
 * A line is read as the kconfig language reads an attribute (no
 * preprocessor, no source statements): "config X" and "menuconfig X"
 * declare X; "select X", "imply X", "depends on E", "visible if E",
 * "if E", "default E", "def_bool E", "def_tristate E" and a prompt's
 * "if E" refer to the symbols of E.  A symbol here is a word of capital
 * letters, digits and '_' with a letter in it (y, n, m, numbers and
 * quoted strings are values; the rest of a line after "$(" is a macro
 * call and is not read).  Help text is not read: a line indented past
 * one tab (eight columns), and in a run of lines, what kconfig reads as
 * the text of a "help".
 */
#ifndef KCARRY_KCONFIG_H
#define KCARRY_KCONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "err.h"
#include "strmap.h"
#include "tree.h"

/* A file the kconfig language reads: its name starts with "Kconfig". */
bool kconfig_file(const char *path);

/* A makefile of Kbuild: "Makefile", "Kbuild", "Makefile.*", "Kbuild.*",
 * not under tools/ (whose CONFIG_ variables are its own). */
bool kconfig_makefile(const char *path);

/*
 * The symbols a makefile line refers to: each CONFIG_X of it (before a
 * '#'), as X, each once, up to max into out[]; how many there are.
 */
size_t kconfig_make_refs(const char *line, size_t len, struct span *out,
			 size_t max);

/* The symbol line declares ("config X", "menuconfig X"), or false. */
bool kconfig_decl(const char *line, size_t len, struct span *name);

/*
 * The symbols line refers to, in order, each once, up to max into
 * out[]; how many there are.  None for help text (in_help, or a line
 * indented past one tab).
 */
size_t kconfig_refs(const char *line, size_t len, bool in_help,
		    struct span *out, size_t max);

/*
 * Whether the lines after line stand in help text, as kconfig reads it:
 * true after "help" (or "---help---"); the text's first line sets its
 * indentation, and a line indented less ends it (blank lines keep it).
 * *help_indent holds that indentation, (size_t)-1 before the first line.
 */
bool kconfig_help_after(const char *line, size_t len, bool in_help,
			size_t *help_indent);
/* Whether line is help text, given the state the line before left. */
bool kconfig_help_line(const char *line, size_t len, bool in_help,
		       size_t help_indent);

/* A set of symbol names (owned). */
struct kconfig_set {
	struct strmap map;
	char **names;
	size_t nr, alloc;
};

void kconfig_set_init(struct kconfig_set *s);
void kconfig_set_release(struct kconfig_set *s);
void kconfig_set_add(struct kconfig_set *s, const char *name, size_t len);
bool kconfig_set_has(const struct kconfig_set *s, const char *name,
		     size_t len);

/*
 * Add to s the macros text (a makefile) defines on the compiler's command
 * line: NAME of each -DNAME or -DNAME=value outside a comment
 * (KBUILD_BASENAME in scripts/Makefile.lib, a folder's ccflags-y).
 */
void kconfig_make_defines(struct kconfig_set *s, const char *text,
			  size_t len);

/* Add the symbols text (a Kconfig file) declares to s. */
void kconfig_text_decls(struct kconfig_set *s, const char *text, size_t len);

/* Every symbol the Kconfig files of tree declare, into s. */
int kconfig_tree_decls(struct kconfig_set *s, struct tree_repo *r,
		       const struct tree_oid *tree, struct err *err);

/* name is X_MODULE, the module of a tristate X that s holds (what a
 * makefile or C file sees of X=m). */
bool kconfig_module_of(const struct kconfig_set *s, struct span name);

/*
 * Of the symbols text (a Kconfig file, or a makefile: make) refers to,
 * the share (percent) that s holds or the text declares itself: 100 for
 * a text referring to none.
 */
unsigned kconfig_coverage(const struct kconfig_set *s, const char *text,
			  size_t len, bool make);

#endif
