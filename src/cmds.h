/*
 * cmds: the subcommands main.c dispatches to, one cmd_*.c file each.
 */
#ifndef KCARRY_CMDS_H
#define KCARRY_CMDS_H

#include "cli.h"

int cmd_init(int argc, char **argv, const struct options *opts);
int cmd_import(int argc, char **argv, const struct options *opts);
int cmd_fetch(int argc, char **argv, const struct options *opts);
int cmd_list(int argc, char **argv, const struct options *opts);
int cmd_show(int argc, char **argv, const struct options *opts);
int cmd_kernels(int argc, char **argv, const struct options *opts);
int cmd_apply(int argc, char **argv, const struct options *opts);
int cmd_resolve(int argc, char **argv, const struct options *opts);
int cmd_refresh(int argc, char **argv, const struct options *opts);
int cmd_check(int argc, char **argv, const struct options *opts);
int cmd_callers(int argc, char **argv, const struct options *opts);
int cmd_diff(int argc, char **argv, const struct options *opts);
int cmd_rebase(int argc, char **argv, const struct options *opts);
int cmd_export(int argc, char **argv, const struct options *opts);

#endif
