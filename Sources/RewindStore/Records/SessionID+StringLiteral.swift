extension SessionID: ExpressibleByStringLiteral {
    /// An id written as a string literal in code (`let id: SessionID = "user-42"`).
    ///
    /// A literal is the program's own text, not outside data, so an invalid one (empty, over
    /// ``maximumByteCount`` UTF-8 bytes, or with a NUL) is a programming error and stops the
    /// program, as `StaticString` misuse does. Ids that come from outside (a file, the network,
    /// the user) go through the throwing ``init(_:)``.
    public init(stringLiteral value: String) {
        if let reason = Self.problem(with: value) {
            preconditionFailure("invalid session id literal \(value.debugDescription): \(reason)")
        }
        self.init(checked: value)
    }
}
