/*
 * cmd_report: reports made from reports: 'kcarry report merge' joins the
 * JSON of several 'kcarry check --shard I/N' runs into one report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmds.h"

int cmd_report(int argc, char **argv, const struct options *opts)
{
	return usage_error("report", opts, "not yet");
}
