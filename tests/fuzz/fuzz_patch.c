/* The patch parser (format-patch, DEP-3, plain diff), and the writer of
 * what it parsed, which must parse again to the same files. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patch p, q;
	struct patch_parse_opts po = { "fuzz", 1, true };
	struct err err = ERR_INIT;

	patch_init(&p);
	patch_init(&q);
	if (patch_parse(&p, (const char *)data, size, &po, &err) == 0) {
		struct buf out = BUF_INIT;
		patch_format(&out, &p, NULL);
		err_release(&err);
		if (patch_parse(&q, out.ptr, out.len, &po, &err) < 0 ||
		    q.nr_files != p.nr_files)
			abort(); /* what kcarry writes, it must read back */
		buf_release(&out);
	}
	patch_release(&q);
	patch_release(&p);
	err_release(&err);
	return 0;
}
