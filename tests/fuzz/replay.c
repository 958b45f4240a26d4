/*
 * replay: runs a harness on every file named on the command line, or in
 * the folders named there, without libFuzzer: make check replays
 * tests/fuzz/regress/NAME/ this way under gcc (and ASan+UBSan with
 * SANITIZE=1).  Prints "N inputs" and exits 0 when none crashed.
 */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "fs.h"

static int run_file(const char *path)
{
	struct buf b = BUF_INIT;
	struct err err = ERR_INIT;

	if (fs_read_file(&b, path, 0, &err) < 0) {
		fprintf(stderr, "replay: %s\n", err.msg.ptr);
		err_release(&err);
		return -1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)b.ptr, b.len);
	buf_release(&b);
	return 0;
}

int main(int argc, char **argv)
{
	size_t n = 0;

	for (int i = 1; i < argc; i++) {
		char **names = NULL;
		size_t nr = 0;
		struct err err = ERR_INIT;

		if (!fs_is_dir(argv[i])) {
			if (run_file(argv[i]) < 0)
				return 1;
			n++;
			continue;
		}
		if (fs_list_dir(argv[i], &names, &nr, &err) < 0) {
			fprintf(stderr, "replay: %s\n", err.msg.ptr);
			return 1;
		}
		for (size_t k = 0; k < nr; k++) {
			char *p;
			if (names[k][0] == '.')
				continue; /* .keep */
			p = fs_join(argv[i], names[k]);
			if (fs_is_file(p)) {
				if (run_file(p) < 0)
					return 1;
				n++;
			}
			free(p);
		}
		fs_free_list(names, nr);
	}
	printf("%zu inputs\n", n);
	return 0;
}
