/*
 * name: the names that become paths and ref names: series, versions and
 * targets.  One rule set, checked wherever a name enters kcarry (the
 * command line, config files, directory listings) before it is joined to
 * a path, and one injective mapping of a name to a git ref component.
 */
#ifndef KCARRY_NAME_H
#define KCARRY_NAME_H

#include "err.h"

enum name_kind {
	NAME_SERIES,  /* letters, digits, '-', '_', '.' */
	NAME_TARGET,  /* the same */
	NAME_VERSION, /* the same plus '+' and '~' (Debian versions) */
};

#define NAME_MAX_LEN 100

/*
 * 0 when s is a valid name of that kind: 1 to NAME_MAX_LEN characters of
 * the kind's set, not starting with '.' or '-'.  Otherwise ERR_USAGE
 * with a message naming s and the rule it breaks.
 */
int name_check(enum name_kind kind, const char *s, struct err *err);
bool name_valid(enum name_kind kind, const char *s);

/*
 * Append s to b as one component of a git ref name.  Characters git
 * refuses in a ref ('~', control characters, ...) and '%' itself become
 * %XX, as does a '.' that git would refuse where it stands (leading,
 * doubled, final, or starting a final ".lock"), so that distinct names
 * always give distinct refs.
 */
void name_ref_component(struct buf *b, const char *s);

#endif
