@_exported import RewindMachine
@_exported import RewindStore
