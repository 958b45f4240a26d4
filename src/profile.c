#include "profile.h"

#include <stdlib.h>
#include <string.h>

/*
 * The profiles.  Keep docs/build-profiles.md in step with this table:
 * every entry there says what each workaround is for and where it was
 * measured.
 */
static const struct profile_def {
	const char *id;
	const char *summary;
	int min_kernel, max_kernel; /* VERSION * 1000 + PATCHLEVEL */
	int min_gcc;                /* gcc major from which it applies */
	const char *cc_flags;       /* appended to CC */
	const char *hostcflags_add; /* appended to the Makefile's HOSTCFLAGS */
	const char *hostcflags_default; /* when the Makefile has none */
	bool make_cmd_fix;          /* GNU make >= 4.3 and '#' in .cmd files */
	bool compiler_shim;         /* include/linux/compiler-gccN.h */
} profiles[] = {
	{
		"linux-3-gcc6",
		"Linux 3.x with gcc 6 or newer: CC with -fno-pie, HOSTCFLAGS "
		"with -fcommon, make 4.3's '#' in .cmd files, "
		"compiler-gccN.h shim",
		3000, 3999, 6, "-fno-pie", "-fcommon",
		"-Wall -Wmissing-prototypes -Wstrict-prototypes -O2 "
		"-fomit-frame-pointer",
		true, true,
	},
};

void profile_use_release(struct profile_use *u)
{
	free(u->cc_flags);
	for (size_t i = 0; i < u->nr_make_vars; i++)
		free(u->make_vars[i]);
	free(u->make_vars);
	free(u->shim_path);
	free(u->shim_text);
	memset(u, 0, sizeof(*u));
}

/* The value of "NAME = value" / "NAME := value" at the start of a line. */
static char *makefile_var(const char *mk, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = mk; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *q = p + n, *e;
		if (strncmp(p, name, n) || (*q != ' ' && *q != '\t' &&
					    *q != '=' && *q != ':'))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == ':')
			q++;
		if (*q != '=')
			continue;
		q++;
		while (*q == ' ' || *q == '\t')
			q++;
		e = strchr(q, '\n');
		if (!e)
			e = q + strlen(q);
		while (e > q && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e > q && e[-1] == '\\')
			return NULL; /* continued lines: not ours to parse */
		return xstrndup(q, (size_t)(e - q));
	}
	return NULL;
}

bool profile_kernel_version(const char *makefile, int *version,
			    int *patchlevel)
{
	char *v = makefile ? makefile_var(makefile, "VERSION") : NULL;
	char *p = makefile ? makefile_var(makefile, "PATCHLEVEL") : NULL;
	bool ok = v && p && *v && *p;

	*version = ok ? atoi(v) : -1;
	*patchlevel = ok ? atoi(p) : -1;
	free(v);
	free(p);
	return ok;
}

static void add_var(struct profile_use *u, char *v)
{
	u->make_vars = xrealloc(u->make_vars,
				(u->nr_make_vars + 1) * sizeof(char *));
	u->make_vars[u->nr_make_vars++] = v;
}

void profile_choose(struct profile_use *out, const struct profile_facts *f)
{
	int kv = f->kernel_version * 1000 + f->kernel_patchlevel;

	memset(out, 0, sizeof(*out));
	if (f->kernel_version < 0)
		return;
	for (size_t i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++) {
		const struct profile_def *d = &profiles[i];
		if (kv < d->min_kernel || kv > d->max_kernel || f->clang ||
		    f->cc_major < d->min_gcc)
			continue;
		out->id = d->id;
		out->summary = d->summary;
		if (d->cc_flags)
			out->cc_flags = xstrdup(d->cc_flags);
		if (d->hostcflags_add) {
			char *mk = f->makefile ? makefile_var(f->makefile,
							      "HOSTCFLAGS")
					       : NULL;
			/* a HOSTCFLAGS on the command line replaces the
			 * Makefile's: repeat its flags */
			add_var(out, xstrfmt("HOSTCFLAGS=%s %s",
					     mk && *mk ? mk
						       : d->hostcflags_default,
					     d->hostcflags_add));
			free(mk);
		}
		if (d->make_cmd_fix &&
		    (f->make_major > 4 ||
		     (f->make_major == 4 && f->make_minor >= 3))) {
			/* make 4.3 no longer takes '\#' as '#': the .cmd
			 * files then never match and everything rebuilds */
			add_var(out, xstrdup(
				"make-cmd=$(subst \\\\,\\\\\\\\,$(subst "
				"$(pound),$$(pound),$(subst $$,$$$$,$(call "
				"escsq,$(cmd_$(1))))))"));
			add_var(out, xstrdup("pound=#"));
		}
		if (d->compiler_shim && !f->has_own_gcc_header &&
		    f->compiler_gcc_h && f->highest_gcc_header > 0 &&
		    strstr(f->compiler_gcc_h, "compiler-gcc")) {
			out->shim_path = xstrfmt(
				"include/linux/compiler-gcc%d.h", f->cc_major);
			out->shim_text = xstrfmt(
				"/* kcarry compatibility profile %s: gcc %d "
				"is new to this tree */\n"
				"#include <linux/compiler-gcc%d.h>\n",
				d->id, f->cc_major, f->highest_gcc_header);
		}
		return;
	}
}
