/// Something that can appear inside a state in the machine builder: a child state, a transition,
/// entry or exit actions.
public protocol StateContent {
    /// Adds this content to `state`.
    func apply(to state: inout StateDefinition)
}

/// The result builder of ``StateNode``, ``ParallelNode`` and ``MachineDefinition/init(_:initial:content:)``.
@resultBuilder
public enum StateContentBuilder {
    /// One piece of content.
    public static func buildExpression(_ content: some StateContent) -> [any StateContent] { [content] }
    /// Several pieces of content.
    public static func buildExpression(_ content: [any StateContent]) -> [any StateContent] { content }
    /// A block.
    public static func buildBlock(_ parts: [any StateContent]...) -> [any StateContent] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [any StateContent]?) -> [any StateContent] { part ?? [] }
    /// The first branch of an `if`/`else`.
    public static func buildEither(first part: [any StateContent]) -> [any StateContent] { part }
    /// The second branch of an `if`/`else`.
    public static func buildEither(second part: [any StateContent]) -> [any StateContent] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[any StateContent]]) -> [any StateContent] { parts.flatMap { $0 } }
}

extension StateDefinition: StateContent {
    /// Appends this state as a child.
    public func apply(to state: inout StateDefinition) {
        state.children.append(self)
    }
}

extension TransitionDefinition: StateContent {
    /// Appends this transition.
    public func apply(to state: inout StateDefinition) {
        state.transitions.append(self)
    }
}

extension MachineDefinition {
    /// Declares a machine with the builder: the top-level states in document order.
    ///
    /// ```swift
    /// let definition = MachineDefinition("statekit") {
    ///     StateNode("root") {
    ///         StateNode("loading")
    ///         StateNode("regularView")
    ///         StateNode("errorView") { On("userPressedRetryButton", to: "loading") }
    ///         On("apiRespondedSuccessfully", to: "regularView", type: .internal)
    ///         On("apiRespondedError", to: "errorView", type: .internal)
    ///     }
    /// }
    /// ```
    ///
    /// The events handled on `root` reach it from any child (they bubble up), and move to a child
    /// of `root` the way StateKit does: through the least common ancestor, `root` staying active
    /// (`apiRespondedError` from `loading` exits `loading` and enters `errorView`, nothing else).
    /// That takes `type: .internal`. The builder's transitions are SCXML's, external by default,
    /// and an external transition leaves its source even when it targets a descendant (`exit
    /// loading, exit root, enter root, enter errorView`): the default stays external so a chart
    /// means the same written with the builder, imported from SCXML or exported to it (where
    /// `.internal` becomes `type="internal"`), and charts already recorded keep their definition.
    public init(_ name: String, initial: [String] = [], @StateContentBuilder content: () -> [any StateContent]) {
        var root = StateDefinition(id: "")
        for part in content() { part.apply(to: &root) }
        self.init(name: name, initial: initial, states: root.children)
    }
}
