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
};

struct profile_use {
	const char *id;           /* NULL: no profile applies */
	const char *summary;
	char *cc_flags;           /* appended to CC ("-fno-pie") or NULL */
	char **make_vars;         /* "HOSTCFLAGS=...", "pound=#", ... */
	size_t nr_make_vars;
	char *shim_path;          /* relative to O=, or NULL */
	char *shim_text;
};

/* Pick the profile for facts ("none" in name turns them off). */
void profile_choose(struct profile_use *out, const struct profile_facts *f);
void profile_use_release(struct profile_use *u);

/* VERSION and PATCHLEVEL of a top Makefile; false when absent. */
bool profile_kernel_version(const char *makefile, int *version,
			    int *patchlevel);

#endif
