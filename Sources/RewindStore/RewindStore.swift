// RewindStore: the durable transition log. (Being built: issue 2.)
