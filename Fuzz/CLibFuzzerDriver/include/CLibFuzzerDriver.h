#ifndef CACHECHAIN_LIBFUZZER_DRIVER_H
#define CACHECHAIN_LIBFUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (compiler-rt, LLVM 11 and later), for executables that keep their own `main`: SwiftPM
// links an executable's `main` to its module's entry point, so `cachechain-fuzz` calls this from its @main
// when built with -sanitize=fuzzer (scripts/fuzz.sh). Only declared here: the symbol comes from the
// libFuzzer runtime that -sanitize=fuzzer links, and nothing refers to it in an ordinary build.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
