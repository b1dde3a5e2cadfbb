// LMDB's C API for the raw baselines (Debian's liblmdb-dev, Homebrew's lmdb).
#include <lmdb.h>
