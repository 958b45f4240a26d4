/*
 * cnames: the names of a C text, what it uses and what it declares: every
 * identifier with its use (a call, a member, a tag, a type, a
 * declaration and of what), the functions it defines with their lines
 * and the headers it includes, read at the lexer level without a
 * preprocessor, also from the lines of a hunk.  cause.c and ident.c ask
 * it what a patch or a tree file uses and declares; what a watched API
 * exports and who calls it is watch.c's job.
 */
#ifndef KCARRY_CNAMES_H
#define KCARRY_CNAMES_H

#include "err.h"

/*
 * How an identifier token is used.  Keywords, attributes and the names in
 * #if/#ifdef/#include lines are not listed; names in #define bodies are,
 * with directive set (a body is compiled only where the macro is used).
 */
enum cnames_id_kind {
	CNAMES_ID_USE,    /* a value, a type, an argument */
	CNAMES_ID_CALL,   /* followed by '(' */
	CNAMES_ID_MEMBER, /* after '.' or '->', designators included */
	CNAMES_ID_TAG,    /* after struct, union or enum */
	CNAMES_ID_DECL,   /* declared or defined here (see decl) */
	CNAMES_ID_LABEL,  /* a goto target */
	CNAMES_ID_TYPE,   /* a name used as a type: u64 in "u64 x;" */
};

enum cnames_decl_kind {
	CNAMES_DECL_FUNCTION, /* definition or prototype */
	CNAMES_DECL_MACRO,
	CNAMES_DECL_TYPEDEF,
	CNAMES_DECL_TAG,      /* a struct/union/enum with a body */
	CNAMES_DECL_ENUM_CONST,
	CNAMES_DECL_VARIABLE, /* at file scope */
	CNAMES_DECL_LOCAL,    /* in a block, a parameter, a macro parameter */
	CNAMES_DECL_MEMBER,   /* of a struct or union */
	CNAMES_DECL_LABEL,
	/* a lone name handed to a macro that may declare it: LIST_HEAD(list),
	 * __field(u64, x) */
	CNAMES_DECL_MACRO_ARG,
	/* a struct/union a pointer names at file scope or in a record
	 * ("struct x *p;"): declared, incomplete, as C declares it */
	CNAMES_DECL_INCOMPLETE,
};

struct cnames_id {
	const char *name; /* into the text */
	size_t len;
	size_t line;      /* 1-based */
	enum cnames_id_kind kind;
	enum cnames_decl_kind decl; /* for CNAMES_ID_DECL */
	bool directive;   /* in a #define body */
};

/* A function definition: from its head to its closing brace. */
struct cnames_func {
	const char *name; /* into the text */
	size_t len;
	size_t first, last; /* 1-based lines */
};

struct cnames_include {
	const char *path; /* into the text: "linux/fs.h" */
	size_t len;
	size_t line;
	bool angle;       /* <...> rather than "..." */
};

struct cnames {
	struct cnames_id *ids;
	size_t nr, alloc;
	struct cnames_func *funcs;
	size_t nr_funcs, alloc_funcs;
	struct cnames_include *includes;
	size_t nr_includes, alloc_includes;
	/* names a #define builds by pasting: "trace_" for trace_##name is
	 * "trace_*", "_enabled" for name##_enabled is "*_enabled" */
	char **pastes;
	size_t nr_pastes, alloc_pastes;
};

/* The text is a piece of a file (the lines of a hunk): it may start in
 * a comment, in a macro body or in a function, and end anywhere. */
#define CNAMES_FRAGMENT 1u

void cnames_init(struct cnames *c);
void cnames_release(struct cnames *c);
/*
 * Every identifier of text with its use, the functions it defines and the
 * headers it includes.  Declarations are recognised the way a careful
 * reader does without the preprocessor: a statement that starts with a
 * type (a type keyword, a tag, or a name followed by a name or '*' and a
 * name) declares, parameters of a definition are locals, members of a
 * struct or union body are members, and a lone name handed to a macro
 * (an upper-case name, or one starting with "__") may be declared by it.
 * Fails with ERR_PARSE on a NUL byte only.
 */
int cnames_scan(struct cnames *out, const char *path, const char *text,
		size_t len, unsigned flags, struct err *err);
/* C keywords, attributes and the compiler's own names (__builtin_*,
 * __func__, NULL, true, false...): nothing a tree has to define. */
bool cnames_is_builtin(const char *name, size_t len);

#endif
