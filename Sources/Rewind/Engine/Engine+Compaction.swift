import RewindStore

extension Engine {
    /// Rewrites the store into a compacted copy (LMDB's compacting copy: only the pages in use,
    /// renumbered) and replaces its data file with it atomically; the file shrinks to what is in
    /// use plus ``EngineConfiguration/mapHeadroom``. Returns its length before and after.
    ///
    /// **This engine's sessions keep working.** The call waits until no transaction of the store
    /// is open in this process (a group commit in flight finishes first; sends made meanwhile
    /// wait and commit to the new file), closes and reopens the store's environment on the new
    /// file, and every engine and store of this process on the directory goes on with it. Run it
    /// when the app is idle (in the background, after deleting data): for its duration, which
    /// grows with the store, sends wait.
    ///
    /// **Other processes.** It refuses with ``CompactionError/openInAnotherProcess(path:processID:)``
    /// while another process has the store open (replacing the file would leave that process on
    /// the old one); another process opening the store while it runs waits for it.
    ///
    /// **Crashes.** A process killed at any step leaves the old store or the compacted one,
    /// whole; the copy is flushed before it replaces the old file, and a leftover copy is removed
    /// by the next writable open.
    ///
    /// - Parameter progress: called at each ``CompactionStep``.
    /// - Throws: ``EngineError/closed``; ``CompactionError``; `LMDBError` when the copy or the
    ///   rename fails (the store is then as it was).
    @discardableResult
    public func compact(progress: (CompactionStep) -> Void = { _ in }) throws -> CompactionResult {
        try ensureOpen()
        if configuration.readOnly { throw CompactionError.readOnly(path: store.path) }
        return try writableStore.compact(headroom: configuration.mapHeadroom, progress: progress)
    }

    /// Compacts the store in `directory` (see ``compact(progress:)``) without opening an engine
    /// on it: for tools and for an app before it opens its engine (at launch, say). When this
    /// process has the store open, its open environment is compacted and its engines go on with
    /// the new file. Nothing is written unless the compaction goes ahead: a refused one leaves
    /// the store's files byte-identical.
    ///
    /// - Parameters:
    ///   - headroom: free space kept after the pages in use (``EngineConfiguration/mapHeadroom``).
    /// - Throws: ``CompactionError``, `DataFileError` for a directory without a data file,
    ///   `LMDBError` when the copy or the rename fails (the store is then as it was).
    @discardableResult
    public static func compact(
        directory: String, headroom: Int = EngineConfiguration().mapHeadroom,
        progress: (CompactionStep) -> Void = { _ in }
    ) throws -> CompactionResult {
        try TransitionStore.compact(directory: directory, headroom: headroom, progress: progress)
    }
}
