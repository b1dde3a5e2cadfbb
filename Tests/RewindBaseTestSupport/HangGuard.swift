import Testing

extension Trait where Self == TimeLimitTrait {
    /// A deadline that only a hang reaches: ten minutes, for tests whose work takes seconds.
    ///
    /// The tests wait on events (a commit, a record, a process's output), never on wall-clock
    /// limits; this guard only stops a test that would otherwise wait forever. It is generous
    /// because a loaded 2-core machine (several builds, the ThreadSanitizer run) can make a
    /// two-second test take two minutes.
    ///
    /// Why a guard stays at all: without one, a hung test stops the whole `swift test` run until
    /// the CI job's own timeout, which names no test; with it the test fails by name after ten
    /// minutes and the run goes on. Nothing a test asserts depends on it.
    public static var hangGuard: Self { .timeLimit(.minutes(10)) }
}
