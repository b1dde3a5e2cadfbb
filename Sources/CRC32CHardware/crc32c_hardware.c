// CRC-32C (Castagnoli) with the CPU's own instruction, for RewindStore's record checksums. The
// portable table-driven version in Swift (CRC32C.swift) stays the reference and the fallback;
// tests check that both give the same values.
#include "crc32c_hardware.h"

#include <string.h>

#if defined(__x86_64__)

int rewind_crc32c_hardware_available(void) {
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

__attribute__((target("sse4.2")))
uint32_t rewind_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    uint64_t c = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);  // unaligned little-endian load
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        count -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    if (count >= 4) {
        uint32_t word;
        memcpy(&word, p, 4);
        c32 = __builtin_ia32_crc32si(c32, word);
        p += 4;
        count -= 4;
    }
    while (count > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *p);
        p += 1;
        count -= 1;
    }
    return c32;
}

#elif defined(__aarch64__)

#if defined(__APPLE__)
int rewind_crc32c_hardware_available(void) { return 1; }  // every Apple arm64 CPU has it
#elif defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
int rewind_crc32c_hardware_available(void) {
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? 1 : 0;
}
#else
int rewind_crc32c_hardware_available(void) { return 0; }
#endif

__attribute__((target("crc")))
uint32_t rewind_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = (const unsigned char *)bytes;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __builtin_arm_crc32cd(crc, word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __builtin_arm_crc32cb(crc, *p);
        p += 1;
        count -= 1;
    }
    return crc;
}

#else

int rewind_crc32c_hardware_available(void) { return 0; }

uint32_t rewind_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;  // never called: not available
}

#endif
