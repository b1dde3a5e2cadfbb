#ifndef REWIND_CLMDB_SHIM_H
#define REWIND_CLMDB_SHIM_H
#include <lmdb.h>

#if defined(__linux__)
#include <stdint.h>
/* Linux's sync_file_range(2), declared here because Swift's Glibc module is built without
   _GNU_SOURCE (off64_t is int64_t where Rewind runs: 64-bit Linux). */
int sync_file_range(int fd, int64_t offset, int64_t nbytes, unsigned int flags);

/* Starts writing the dirty pages of the file open as `fd` to disk, without waiting
   (SYNC_FILE_RANGE_WRITE): a later fsync waits only for what is not written by then.
   Returns 0, or -1 with errno set. */
static inline int rewind_start_writeback(int fd) {
    return sync_file_range(fd, 0, 0, 2 /* SYNC_FILE_RANGE_WRITE */);
}
#endif

#endif
