/* The mail layer: an mbox split into messages, then the series finder
 * (threads, versions, trailers from replies, patches in MIME parts). */
#include "fuzz.h"

#include "mail.h"
#include "thread.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mail_list l = { 0 };
	struct mail_series_list sl = { 0 };
	struct err err = ERR_INIT;

	if (mail_read_mbox(&l, (const char *)data, size, "fuzz", &err) == 0)
		mail_find_series(&sl, &l, &err);
	mail_series_list_release(&sl);
	mail_list_release(&l);
	err_release(&err);
	return 0;
}
