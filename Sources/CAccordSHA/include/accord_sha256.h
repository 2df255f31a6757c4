#ifndef ACCORD_SHA256_H
#define ACCORD_SHA256_H

#include <stddef.h>
#include <stdint.h>

// SHA-256 block compression with the x86 SHA extensions (SHA-NI), for hashing blobs at
// memory speed. libsodium's portable SHA-256 runs at a fraction of that; AccordStore
// uses this where the CPU has the instructions and libsodium everywhere else.

/// 1 when the running CPU has the SHA extensions, SSSE3 and SSE4.1; 0 otherwise
/// (always 0 outside x86-64).
int accord_sha256_hardware_available(void);

/// Compresses `blocks` 64-byte blocks at `data` into `state` (the eight working words
/// a..h, host order). Only valid when accord_sha256_hardware_available() returned 1.
void accord_sha256_compress_hw(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
