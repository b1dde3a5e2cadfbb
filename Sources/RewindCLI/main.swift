print("rewind: not built yet")
