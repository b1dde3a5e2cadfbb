import Testing

extension Trait where Self == TimeLimitTrait {
    /// A deadline that only a hang reaches: an hour, for tests whose work takes seconds alone.
    ///
    /// The tests wait on events (a commit, a record, a process's output), never on wall-clock
    /// limits; this guard only stops a test that would otherwise wait forever. It must exceed a
    /// whole loaded `swift test` run, not just the test's own work: the suite's tests run in
    /// parallel on a cooperative pool of one thread per core, so on a loaded 2-core machine a test
    /// started early takes about as long as the run. Ten minutes was not enough: in a full run
    /// of 15 minutes (other builds and a fuzzer on the machine), seven tests that pass alone in
    /// seconds (SubscriptionTests' long catch-up, TwoEnginesTests, GroupCommitTests, the stress
    /// and archive fuzz tests, …) hit it.
    ///
    /// Why a guard stays at all: without one, a hung test stops the whole run until the CI job's
    /// own timeout, which names no test; with it the test fails by name and the run goes on.
    /// Nothing a test asserts depends on it.
    public static var hangGuard: Self { .timeLimit(.minutes(60)) }
}
