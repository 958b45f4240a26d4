/*
 * fuzz: what every harness includes.  A harness defines
 * LLVMFuzzerTestOneInput; built with clang's -fsanitize=fuzzer it is a
 * libFuzzer target (make fuzz), built with replay.c it replays the files
 * of tests/fuzz/regress/NAME/ (make check), so that every crash a fuzzer
 * found stays a test.
 */
#ifndef KCARRY_FUZZ_H
#define KCARRY_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
