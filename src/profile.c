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
	free(u->makefiles_path);
	free(u->makefiles_text);
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

static void choose_version(struct profile_use *out,
			   const struct profile_facts *f);

static void add_var(struct profile_use *u, char *v)
{
	u->make_vars = xrealloc(u->make_vars,
				(u->nr_make_vars + 1) * sizeof(char *));
	u->make_vars[u->nr_make_vars++] = v;
}

/*
 * tools/build/Build.include from before the kernel's make 4.3 fix keeps
 * '\#' inside make functions: make 4.3 takes it as two characters, so
 * dep-cmd's fixdep fallback writes '\# cannot find fixdep' into a .cmd
 * file and the next make that reads it stops with "missing separator"
 * (make modules_prepare of trees that build objtool).  The tools' makes
 * are run with MAKEFLAGS reset, so no command-line variable reaches them:
 * a makefile in O=, named by MAKEFILES (read first by every make),
 * overrides dep-cmd with '#' written as $(kcarry-pound).  dep-cmd is
 * tools/build's alone; Kbuild's own .cmd files are the other profile's.
 */
static const char tools_build_fix[] =
	"# kcarry compatibility profile make43-tools-build: GNU make 4.3 keeps\n"
	"# the '\\#' of tools/build/Build.include's dep-cmd and make-cmd; this\n"
	"# dep-cmd writes '#' as $(kcarry-pound) (docs/build-profiles.md)\n"
	"kcarry-pound := \\#\n"
	"kcarry-make-cmd = $(call escsq,$(subst $(kcarry-pound),"
	"$$(kcarry-pound),$(subst $$,$$$$,$(cmd_$(1)))))\n"
	"override dep-cmd = $(if $(wildcard $(fixdep)),"
	" $(fixdep) $(depfile) $@ '$(kcarry-make-cmd)' > $(dot-target).tmp;"
	" rm -f $(depfile);"
	" mv -f $(dot-target).tmp $(dot-target).cmd,"
	" printf '$(kcarry-pound) cannot find fixdep (%s)\\n' $(fixdep)"
	" > $(dot-target).cmd;"
	" printf '$(kcarry-pound) using basic dep data\\n\\n'"
	" >> $(dot-target).cmd;"
	" cat $(depfile) >> $(dot-target).cmd;"
	" printf '\\n%s\\n' 'cmd_$@ := $(kcarry-make-cmd)'"
	" >> $(dot-target).cmd)\n";

static void choose_tools_fix(struct profile_use *out,
			     const struct profile_facts *f)
{
	bool make43 = f->make_major > 4 ||
		      (f->make_major == 4 && f->make_minor >= 3);

	if (!make43 || !f->tools_build_include ||
	    !strstr(f->tools_build_include, "printf '\\# cannot find fixdep"))
		return;
	out->tools_id = "make43-tools-build";
	out->makefiles_path = xstrdup(".kcarry-tools-build.mk");
	out->makefiles_text = xstrdup(tools_build_fix);
}

void profile_choose(struct profile_use *out, const struct profile_facts *f)
{
	memset(out, 0, sizeof(*out));
	if (f->kernel_version < 0)
		return;
	choose_tools_fix(out, f);
	choose_version(out, f);
}

static void choose_version(struct profile_use *out,
			   const struct profile_facts *f)
{
	int kv = f->kernel_version * 1000 + f->kernel_patchlevel;

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

/* The line after p's, or NULL. */
static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* A line of the recipe of the rule "%/:" mentions KBUILD_MODULES. */
static bool pattern_rule_modules(const char *mk)
{
	for (const char *p = mk; p; p = next_line(p)) {
		if (strncmp(p, "%/:", 3))
			continue;
		for (const char *q = next_line(p); q && *q == '\t';
		     q = next_line(q)) {
			const char *e = strchr(q, '\n');
			size_t n = e ? (size_t)(e - q) : strlen(q);
			if (memmem(q, n, "KBUILD_MODULES", 14))
				return true;
		}
		return false;
	}
	return false;
}

/* "single-targets := ... %/" */
static bool single_folder_targets(const char *mk)
{
	for (const char *p = mk; p; p = next_line(p)) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (!strncmp(p, "single-targets", 14) && memmem(p, n, "%/", 2))
			return true;
	}
	return false;
}

/* Between "ifdef single-build" and its endif, "KBUILD_MODULES := 1". */
static bool single_build_modules(const char *mk)
{
	int depth = 0;
	bool in = false;

	for (const char *p = mk; p; p = next_line(p)) {
		const char *q = p;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!in) {
			in = !strncmp(p, "ifdef single-build", 18);
			depth = in;
			continue;
		}
		if (!strncmp(q, "ifdef", 5) || !strncmp(q, "ifndef", 6) ||
		    !strncmp(q, "ifeq", 4) || !strncmp(q, "ifneq", 5))
			depth++;
		else if (!strncmp(q, "endif", 5) && --depth == 0)
			in = false;
		else if (!strncmp(q, "KBUILD_MODULES", 14)) {
			q += 14;
			while (*q == ' ' || *q == '\t')
				q++;
			if (!strncmp(q, ":= 1", 4) || !strncmp(q, "=1", 2) ||
			    !strncmp(q, ":=1", 3) || !strncmp(q, "= 1", 3))
				return true;
		}
	}
	return false;
}

enum kbuild_folder_rule profile_folder_rule(const char *makefile)
{
	if (!makefile)
		return KBUILD_FOLDER_UNKNOWN;
	if (pattern_rule_modules(makefile))
		return KBUILD_FOLDER_PATTERN;
	if (single_folder_targets(makefile))
		return single_build_modules(makefile) ? KBUILD_FOLDER_SINGLE
						      : KBUILD_FOLDER_BUILTIN;
	return KBUILD_FOLDER_UNKNOWN;
}

const char *profile_folder_rule_name(enum kbuild_folder_rule r)
{
	switch (r) {
	case KBUILD_FOLDER_PATTERN:
		return "the %/ rule passes KBUILD_MODULES (as 3.10, 3.11)";
	case KBUILD_FOLDER_BUILTIN:
		return "single-build leaves KBUILD_MODULES unset: built-in "
		       "objects only (as 5.10)";
	case KBUILD_FOLDER_SINGLE:
		return "single-build sets KBUILD_MODULES (as 6.1, 6.12)";
	default:
		return "no Kbuild folder rule kcarry knows";
	}
}
