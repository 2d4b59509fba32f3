#ifndef KURA_CLMDB_SHIM_H
#define KURA_CLMDB_SHIM_H

#include <lmdb.h>

#endif
