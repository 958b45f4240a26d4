/*
 * settings: the workspace-wide kcarry.conf (git-config syntax, at the
 * workspace root, read through conf.c) and the KCARRY_* environment that
 * overrides it: the mail archive server, the HTTP limits of every
 * download, the limits of a tarball import, offline mode, the form of
 * the notes adapted hunks leave in refreshed patches.
 */
#ifndef KCARRY_SETTINGS_H
#define KCARRY_SETTINGS_H

#include "carry.h"
#include "fetch.h"
#include "tree.h"

#define SETTINGS_FILE "kcarry.conf"
#define SETTINGS_DEFAULT_LORE "https://lore.kernel.org/all/"

struct settings {
	char *lore;   /* kcarry.lore: public-inbox base URL, ends in '/' */
	char *cainfo; /* http.cainfo, or NULL */
	struct fetch_opts fetch; /* fetch.cainfo points at cainfo */
	struct tree_tarball_limits tarball;
};

/*
 * Defaults, then root/kcarry.conf (root may be NULL), then the
 * environment.  A value that does not parse is an error naming its key.
 */
int settings_load(struct settings *s, const char *root, struct err *err);
void settings_release(struct settings *s);

/*
 * refresh.note (KCARRY_REFRESH_NOTE wins): the form of the notes adapted
 * hunks leave in descriptions, "stable" (the default) or "rhel", from
 * root/kcarry.conf alone (its other keys are not read).
 */
int settings_note_form(enum carry_note_form *f, const char *root,
		       struct err *err);

/* "512", "64k", "2M", "1.5G", "1GiB": bytes (k = 1024). */
int settings_parse_size(unsigned long long *out, const char *s);
/* "250ms", "30", "30s", "5m", "1h", "0.5s": milliseconds. */
int settings_parse_duration(long *ms, const char *s);

#endif
