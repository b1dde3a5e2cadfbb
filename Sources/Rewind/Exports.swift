// `import Rewind` gives the whole public surface: the engine, the statecharts and the log.
@_exported import RewindMachine
@_exported import RewindStore
