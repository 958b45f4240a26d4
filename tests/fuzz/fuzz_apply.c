/* Hunk placement: the input is a target file and a patch, split at the
 * first NUL byte; the first byte picks the fuzz level and 3-way. */
#include "fuzz.h"

#include <string.h>

#include "apply.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nul;
	struct patch p;
	struct patch_parse_opts po = { "fuzz", 1, true };
	struct apply_opts ao = APPLY_OPTS_INIT;
	struct err err = ERR_INIT;

	if (size < 2)
		return 0;
	ao.fuzz = data[0] % 4;
	ao.no_3way = data[0] & 4;
	ao.markers = data[0] & 8;
	data++;
	size--;
	nul = memchr(data, '\0', size);
	if (!nul)
		return 0;
	patch_init(&p);
	if (patch_parse(&p, nul + 1, size - (size_t)(nul - (const char *)data) - 1,
			&po, &err) == 0) {
		for (size_t f = 0; f < p.nr_files; f++) {
			struct apply_file_result res;
			struct span old = { (const char *)data,
					    (size_t)(nul - (const char *)data) };

			apply_file_result_init(&res);
			err_release(&err);
			apply_file(&res, &p.files[f], old, f % 2 == 0, &ao,
				   &err);
			apply_file_result_release(&res);
		}
	}
	patch_release(&p);
	err_release(&err);
	return 0;
}
