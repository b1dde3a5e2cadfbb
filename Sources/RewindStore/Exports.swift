// The store's API uses RewindLMDB's configuration, iteration and error types.
@_exported import RewindLMDB
