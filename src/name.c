#include "name.h"

#include <string.h>

static const char *kind_word(enum name_kind kind)
{
	switch (kind) {
	case NAME_SERIES:
		return "series";
	case NAME_TARGET:
		return "target";
	case NAME_VERSION:
		return "version";
	}
	return "name";
}

static bool allowed(enum name_kind kind, unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	if (c == '-' || c == '_' || c == '.')
		return true;
	return kind == NAME_VERSION && (c == '+' || c == '~');
}

int name_check(enum name_kind kind, const char *s, struct err *err)
{
	const char *what = kind_word(kind);
	size_t n = strlen(s);

	if (!n)
		return err_set(err, ERR_USAGE, "empty %s name", what);
	if (n > NAME_MAX_LEN)
		return err_set(err, ERR_USAGE,
			       "'%.20s...': a %s name has at most %d "
			       "characters",
			       s, what, NAME_MAX_LEN);
	for (size_t i = 0; i < n; i++)
		if (!allowed(kind, (unsigned char)s[i])) {
			/* never echo control characters to a terminal */
			bool printable = (unsigned char)s[i] >= 0x20 &&
					 (unsigned char)s[i] < 0x7f;
			if (printable)
				err_set(err, ERR_USAGE,
					"'%s': '%c' is not allowed in a %s "
					"name",
					s, s[i], what);
			else
				err_set(err, ERR_USAGE,
					"a %s name cannot hold the byte 0x%02x",
					what, (unsigned char)s[i]);
			err_hint(err, "a %s name takes letters, digits, '-', "
				      "'_' and '.'%s",
				 what,
				 kind == NAME_VERSION ? ", '+' and '~'" : "");
			return ERR_USAGE;
		}
	if (s[0] == '.' || s[0] == '-')
		return err_set(err, ERR_USAGE,
			       "'%s': a %s name cannot start with '%c'", s,
			       what, s[0]);
	return 0;
}

bool name_valid(enum name_kind kind, const char *s)
{
	struct err err = ERR_INIT;
	bool ok = name_check(kind, s, &err) == 0;

	err_release(&err);
	return ok;
}

static void add_escaped(struct buf *b, unsigned char c)
{
	buf_addf(b, "%%%02X", c);
}

void name_ref_component(struct buf *b, const char *s)
{
	size_t n = strlen(s);
	/* a final ".lock" is refused by git: escape its dot */
	size_t lock = n >= 5 && !strcmp(s + n - 5, ".lock") ? n - 5 : (size_t)-1;

	if (!n) {
		buf_adds(b, "%00");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '-' || c == '_' ||
			  c == '+';

		if (c == '.')
			ok = i != 0 && i + 1 != n && i != lock &&
			     s[i - 1] != '.';
		if (ok)
			buf_addc(b, (char)c);
		else
			add_escaped(b, c);
	}
}
