@_exported import enum RewindLMDB.CompactionError  // thrown by TransitionStore.compact
@_exported import struct RewindLMDB.CompactionResult  // returned by TransitionStore.compact
@_exported import enum RewindLMDB.CompactionStep  // TransitionStore.compact(progress:)
@_exported import struct RewindLMDB.DamagedPageError  // thrown by EnvironmentOptions.checkPages
@_exported import struct RewindLMDB.DataFileError  // thrown when a store's data file is truncated
// What `import RewindStore` (and so `import Rewind`) brings of the layers below: only the types
// the store's public API names. RewindLMDB's `Environment`, `Database`, `Cursor` and transactions
// stay in RewindLMDB (`import RewindLMDB` to use them), so they never meet an app's SwiftUI
// `Environment` or GRDB `Database`.
@_exported import struct RewindLMDB.EnvironmentConfiguration  // StoreConfiguration.environment
@_exported import struct RewindLMDB.EnvironmentOptions  // TransitionStore.syncOptions
@_exported import struct RewindLMDB.EnvironmentStatistics  // TransitionStore.statistics()
@_exported import enum RewindLMDB.IterationControl  // forEach… closures
@_exported import enum RewindLMDB.IterationDirection  // TransitionStore.forEachRecord(direction:)
@_exported import struct RewindLMDB.LMDBError  // thrown by every store operation
// The typed cause inside the store's errors (and the engine's).
@_exported import struct RewindValues.ErrorCause
// The machine's navigation vocabulary (records say what each step did to the navigation stack).
@_exported import enum RewindValues.NavigationOperation
