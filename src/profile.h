/*
 * profile: compatibility profiles, the one place that knows what an old
 * kernel tree needs to build with today's toolchain.  A profile is data
 * (the table in profile.c, documented in docs/build-profiles.md), chosen
 * from the tree's version (top Makefile VERSION and PATCHLEVEL), the
 * compiler and its major version, and the version of GNU make.  It never
 * changes the series' branch: it adds make variables and, where the tree
 * asks for a compiler header it does not have, a shim in the O= folder.
 */
#ifndef KCARRY_PROFILE_H
#define KCARRY_PROFILE_H

#include "buf.h"

struct profile_facts {
	int kernel_version, kernel_patchlevel; /* -1 when not a kernel tree */
	bool clang;                /* the compiler is clang */
	int cc_major;              /* compiler major version, 0 unknown */
	int make_major, make_minor; /* GNU make version */
	/* the tree's top Makefile and include/linux/compiler-gcc.h (may be
	 * empty), and the highest N with include/linux/compiler-gccN.h */
	const char *makefile;
	const char *compiler_gcc_h;
	int highest_gcc_header;
	bool has_own_gcc_header; /* compiler-gcc<cc_major>.h exists */
	const char *tools_build_include; /* tools/build/Build.include, or
					  * NULL */
};

struct profile_use {
	const char *id;           /* NULL: no profile applies */
	const char *summary;
	char *cc_flags;           /* appended to CC ("-fno-pie") or NULL */
	char **make_vars;         /* "HOSTCFLAGS=...", "pound=#", ... */
	size_t nr_make_vars;
	char *shim_path;          /* relative to O=, or NULL */
	char *shim_text;
	/* tools/build's make 4.3 fix: a makefile in O= that every make
	 * reads first (MAKEFILES in the environment: the tools' sub-makes
	 * get no variable of the command line), or NULL */
	const char *tools_id;
	char *makefiles_path;     /* relative to O= */
	char *makefiles_text;
};

/* Pick the profile for facts ("none" in name turns them off). */
void profile_choose(struct profile_use *out, const struct profile_facts *f);
void profile_use_release(struct profile_use *u);

/* VERSION and PATCHLEVEL of a top Makefile; false when absent. */
bool profile_kernel_version(const char *makefile, int *version,
			    int *patchlevel);

/*
 * What a folder target ("make fs/btrfs/") compiles, by the rule of the
 * tree's top Makefile: every Kbuild generation 3.x to 6.x builds a
 * folder's built-in objects, not all of them its modules.
 */
enum kbuild_folder_rule {
	KBUILD_FOLDER_UNKNOWN,  /* no Kbuild rule kcarry knows */
	KBUILD_FOLDER_PATTERN,  /* "%/: prepare scripts": its recipe passes
				 * KBUILD_MODULES=$(if $(CONFIG_MODULES),1)
				 * (3.10, 3.11) */
	KBUILD_FOLDER_BUILTIN,  /* single-targets with %/, the single-build
				 * block never sets KBUILD_MODULES: built-in
				 * objects only (5.10) */
	KBUILD_FOLDER_SINGLE,   /* the single-build block sets KBUILD_MODULES
				 * := 1 (6.1, 6.12) */
};

/* The folder-target rule of a top Makefile (may be NULL). */
enum kbuild_folder_rule profile_folder_rule(const char *makefile);
/* The rule in words, for reports. */
const char *profile_folder_rule_name(enum kbuild_folder_rule r);

#endif
