/// A navigation stack rebuilt from ``NavigationOperation``s: one ``NavigationEntry`` (a screen and
/// the data it was entered with) per screen the user can go back to, root first, as SwiftUI's
/// `NavigationStack(path:)` or a `UINavigationController` keeps them.
///
/// A session keeps its stack with ``apply(_:of:to:)``: a step's `push`, `replace` and `setRoot`
/// record the screen with the data the step entered that screen's state with (the record's state
/// data, so the log alone rebuilds the same stack); `pop`, `popTo` and `popToRoot` uncover the
/// entry below *with its data*, and that data becomes the state data of the screen's state again
/// (`state.data["detail"]` after going back to Detail(日) is the 日 data). When the step itself
/// entered the uncovered screen with data, that data wins and becomes the entry's data.
///
/// A screen's data is that of the state whose id is the screen: a declaration naming another
/// screen (`.push(screen: "sheet")` on state `compose`) pushes an entry without data unless a
/// state `sheet` was entered with data in the same step.
///
/// ```swift
/// // all › detail(日) › list(日本) › detail(本), then back:
/// session.navigationStack.entries.map(\.screen)   // ["all", "detail", "list"]
/// session.navigationStack.top?.data               // {"word": "日本"}
/// ```
public struct ScreenStack: Hashable, Sendable, Codable {
    /// The entries, root first.
    public private(set) var entries: [NavigationEntry]

    /// The screens, root first (the entries' screens).
    public var screens: [String] { entries.map(\.screen) }

    /// The top entry (the screen the user sees), `nil` when the stack is empty.
    public var top: NavigationEntry? { entries.last }

    /// The number of entries.
    public var count: Int { entries.count }

    /// Whether the stack has no entry.
    public var isEmpty: Bool { entries.isEmpty }

    /// Creates a stack of `entries`, root first (empty by default).
    public init(entries: [NavigationEntry] = []) {
        self.entries = entries
    }

    /// Creates a stack of `screens` without data (each entry's data is `.null`).
    public init(screens: [String]) {
        self.entries = screens.map { NavigationEntry(screen: $0) }
    }

    /// Applies one operation; a pushed, replacing or root screen gets `data`. Popping never
    /// removes the root; `popTo` a screen not on the stack changes nothing; pushing or replacing
    /// on an empty stack makes the screen the root.
    ///
    /// - Returns: Whether the operation popped (the top entry is now one that was below).
    @discardableResult
    public mutating func apply(_ operation: NavigationOperation, data: JSONValue = .null) -> Bool {
        switch operation {
        case .none:
            return false
        case .push(let screen):
            entries.append(NavigationEntry(screen: screen, data: data))
            return false
        case .pop:
            guard entries.count > 1 else { return false }
            entries.removeLast()
            return true
        case .popToRoot:
            guard entries.count > 1 else { return false }
            entries.removeSubrange(1...)
            return true
        case .popTo(let screen):
            guard let index = entries.lastIndex(where: { $0.screen == screen }), index < entries.count - 1 else {
                return false
            }
            entries.removeSubrange((index + 1)...)
            return true
        case .replace(let screen):
            let entry = NavigationEntry(screen: screen, data: data)
            if entries.isEmpty { entries.append(entry) } else { entries[entries.count - 1] = entry }
            return false
        case .setRoot(let screen):
            // The array's storage kept (no allocation when it is not shared, and room for the
            // pushes that follow): a new one-element array per `setRoot` was an allocation and a
            // free per step, and a second one at the next push (callgrind, issue 23). Emptied
            // entry by entry: `removeAll(keepingCapacity:)` goes through the generic
            // `replaceSubrange`, ~200 instructions even for one entry (callgrind,
            // Benchmarks/HISTORY.md 2026-12-01).
            while !entries.isEmpty { entries.removeLast() }
            entries.append(NavigationEntry(screen: screen, data: data))
            return false
        }
    }

    /// Applies operations in order, every new entry without data (a reader that has no data).
    public mutating func apply(_ operations: some Sequence<NavigationOperation>) {
        for operation in operations { apply(operation) }
    }

    /// Applies the operations of one step, in order: a pushed, replacing or root screen gets the
    /// data `enteredData` gives for it (the data the step entered the screen's state with, `nil`
    /// for none). When the step popped, the entry on top afterwards gets the data the step entered
    /// its screen with, if any.
    ///
    /// - Returns: The top entry when the step popped to it and did not enter its screen with data:
    ///   the entry whose data the screen's state shows again (see ``apply(_:of:to:)``); else `nil`.
    @discardableResult
    public mutating func apply(
        _ operations: [NavigationOperation], enteredData: (String) -> JSONValue?
    ) -> NavigationEntry? {
        var popped = false
        for operation in operations {
            switch operation {
            case .push(let screen), .replace(let screen), .setRoot(let screen):
                apply(operation, data: enteredData(screen) ?? .null)
            case .none, .pop, .popToRoot, .popTo:
                if apply(operation) { popped = true }
            }
        }
        guard popped, let top = entries.last else { return nil }
        if let data = enteredData(top.screen), !data.isNull {
            entries[entries.count - 1].data = data
            return nil
        }
        return top
    }

    /// Applies the operations of one step of a session (`microsteps` are the step's, `state` the
    /// state it reached): new entries take the data their screen's state was entered with in the
    /// step, and after a pop the uncovered entry's data becomes the state data of its screen's
    /// state again, when that state is active and the entry has data.
    ///
    /// Every path that moves a session (live steps, resume, replay, import) goes through here, so
    /// they reach the same stack and state.
    ///
    /// - Returns: Whether `state`'s data was changed (an entry's data restored).
    @discardableResult
    public mutating func apply(
        _ operations: [NavigationOperation], of microsteps: [Microstep], to state: inout MachineState
    ) -> Bool {
        if operations.isEmpty { return false }
        let uncovered = apply(operations) { screen in
            for microstep in microsteps.reversed() where !microstep.data.isEmpty {
                if let data = microstep.data[screen] { return data }
            }
            return nil
        }
        guard let uncovered, !uncovered.data.isNull, state.data[uncovered.screen] != uncovered.data,
            state.isActive(uncovered.screen)
        else { return false }
        state.data[uncovered.screen] = uncovered.data
        return true
    }

    /// `entries` (and, for readers of the first format, `screens`).
    private enum CodingKeys: String, CodingKey {
        case entries, screens
    }

    /// Decodes `{"entries": [{"screen": …, "data": …}, …]}`, or the first format
    /// `{"screens": […]}` (entries without data).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let entries = try container.decodeIfPresent([NavigationEntry].self, forKey: .entries) {
            self.init(entries: entries)
        } else {
            self.init(screens: try container.decode([String].self, forKey: .screens))
        }
    }

    /// Encodes `{"entries": […], "screens": […]}`: `screens` repeats the entries' screens so that
    /// readers of the first format still read the stack.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(entries, forKey: .entries)
        try container.encode(screens, forKey: .screens)
    }
}
