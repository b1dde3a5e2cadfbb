// RewindLMDB: a small, safe Swift layer over LMDB's C API. (Being built: issue 2.)
