#ifndef REWIND_CLMDB_SHIM_H
#define REWIND_CLMDB_SHIM_H
#include <lmdb.h>
#endif
