/// State made by a benchmark's setup and used by its closure (the hooks take no arguments).
///
/// `@unchecked Sendable`: the harness runs setup, closure and teardown one after another, never
/// at once; nothing else touches the box.
public final class FixtureBox<Value>: @unchecked Sendable {
    /// The fixture, once setup made it.
    public var value: Value?

    /// An empty box.
    public init() {}
}
