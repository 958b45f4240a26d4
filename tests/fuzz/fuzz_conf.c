/* The config loaders: the input is written as kernels/t.conf and
 * series/s.conf of a scratch workspace, then read as a target, as the
 * watch settings of a series, and as a series' versions. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "audit.h"
#include "conf.h"
#include "fs.h"
#include "target.h"
#include "tree.h"

static char *root;

static void setup(void)
{
	char tmpl[] = "/tmp/kcarry-fuzz-conf.XXXXXX";
	struct err err = ERR_INIT;
	char *d;

	if (root)
		return;
	if (tree_global_init(&err) < 0 || !mkdtemp(tmpl))
		abort();
	root = xstrdup(tmpl);
	d = fs_join(root, "kernels");
	fs_mkdirs(d, &err);
	free(d);
	d = fs_join(root, "series");
	fs_mkdirs(d, &err);
	free(d);
	err_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err err = ERR_INIT;
	char *k, *s;

	setup();
	k = xstrfmt("%s/kernels/t.conf", root);
	s = xstrfmt("%s/series/s.conf", root);
	if (fs_write_atomic(k, data, size, &err) == 0 &&
	    fs_write_atomic(s, data, size, &err) == 0) {
		struct target t;
		struct audit_opts ao = { 0 };
		struct conf *c = NULL;

		if (target_load(&t, root, "t", &err) == 0)
			target_release(&t);
		err_release(&err);
		audit_opts_load(&ao, root, "s", &err);
		audit_opts_release(&ao);
		err_release(&err);
		if (conf_open(&c, s, false, &err) == 0) {
			char **names = NULL;
			size_t nr = 0;
			if (conf_subsections(c, "version", &names, &nr, &err) == 0)
				conf_free_list(names, nr);
		}
		conf_free(c);
	}
	err_release(&err);
	free(k);
	free(s);
	return 0;
}
