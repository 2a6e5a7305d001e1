#ifndef CACHECHAIN_XXHASH_SHIM_H
#define CACHECHAIN_XXHASH_SHIM_H

// xxHash (Debian's libxxhash-dev) for the disk cache's integrity checksum: XXH3-64 in streaming form.
// On x86-64 the library's dispatch entry point picks SSE2, AVX2 or AVX-512 at run time (the plain
// entry point is compiled for the baseline CPU and runs at a third of the speed); the digest is the
// same whichever path runs.
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

// Swift imports XXH3_state_t as opaque (it has over-aligned members): it allocates the state with the
// size given here and 64-byte alignment, which spares the library's fallible allocation.
static inline size_t cachechain_xxh3_state_size(void) {
    return sizeof(XXH3_state_t);
}

#if defined(__x86_64__)
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
static inline XXH_errorcode cachechain_xxh3_update(XXH3_state_t *state, const void *bytes, size_t length) {
    return XXH3_64bits_update_dispatch(state, bytes, length);
}
#else
static inline XXH_errorcode cachechain_xxh3_update(XXH3_state_t *state, const void *bytes, size_t length) {
    return XXH3_64bits_update(state, bytes, length);
}
#endif

#endif
