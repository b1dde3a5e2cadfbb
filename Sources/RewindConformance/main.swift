print("conformance: not built yet")
