#ifndef REWIND_CRC32C_HARDWARE_H
#define REWIND_CRC32C_HARDWARE_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has a CRC-32C instruction (SSE 4.2 `crc32` on x86_64, the ARMv8 CRC32
/// extension on arm64) that `rewind_crc32c_hardware_update` uses.
int rewind_crc32c_hardware_available(void);

/// Continues the CRC-32C register `crc` (already inverted: `~previous checksum`) over `count`
/// bytes with the CPU's instruction. Only call it when `rewind_crc32c_hardware_available()`.
uint32_t rewind_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count);

#endif
