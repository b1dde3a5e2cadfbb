/// The two textual forms of a ``GuardDefinition`` in SCXML documents.
///
/// - SCXML's own `cond` attribute, limited to what needs no data model: `In('id')`,
///   `In("id")` and their negations `!In('id')`.
/// - Rewind's `rewind:guard` attribute, for every other guard, in a small functional syntax
///   that mirrors the enum: `named('isSignedIn')`, `inState('a')`, `not(g)`, `all(g, ...)`,
///   `any(g, ...)`. String literals are single-quoted; `\'` and `\\` escape a quote and a
///   backslash.
enum GuardExpression {
    /// The deepest nesting `rewind:guard` accepts.
    static let maximumDepth = 64

    // MARK: - SCXML `cond`

    /// Parses a `cond` value, or returns `nil` when it is not `In(...)` or `!In(...)`.
    static func parseCondition(_ text: String) -> GuardDefinition? {
        var rest = Substring(text).trimmingWhitespace()
        var negated = false
        if rest.first == "!" {
            negated = true
            rest = rest.dropFirst().trimmingWhitespace()
        }
        guard rest.hasPrefix("In") else { return nil }
        rest = rest.dropFirst(2).trimmingWhitespace()
        guard rest.first == "(", rest.last == ")" else { return nil }
        let inner = rest.dropFirst().dropLast().trimmingWhitespace()
        guard let quote = inner.first, quote == "'" || quote == "\"", inner.count >= 2, inner.last == quote else {
            return nil
        }
        let id = inner.dropFirst().dropLast()
        guard !id.isEmpty, !id.contains(quote), !id.contains("\\") else { return nil }
        let condition = GuardDefinition.inState(String(id))
        return negated ? .not(condition) : condition
    }

    /// The `cond` text for a guard, or `nil` when the guard has no SCXML form (it then goes in
    /// `rewind:guard`).
    static func condition(for guardDefinition: GuardDefinition) -> String? {
        func literal(_ id: String) -> String? {
            guard !id.isEmpty, !id.contains("\\") else { return nil }
            if !id.contains("'") { return "In('\(id)')" }
            if !id.contains("\"") { return "In(\"\(id)\")" }
            return nil
        }
        switch guardDefinition {
        case .inState(let id): return literal(id)
        case .not(.inState(let id)): return literal(id).map { "!" + $0 }
        default: return nil
        }
    }

    // MARK: - `rewind:guard`

    /// Writes a guard in the `rewind:guard` syntax.
    static func expression(for guardDefinition: GuardDefinition) -> String {
        var output = ""
        write(guardDefinition, to: &output)
        return output
    }

    private static func write(_ guardDefinition: GuardDefinition, to output: inout String) {
        switch guardDefinition {
        case .named(let name):
            output += "named("
            writeLiteral(name, to: &output)
            output += ")"
        case .inState(let id):
            output += "inState("
            writeLiteral(id, to: &output)
            output += ")"
        case .not(let inner):
            output += "not("
            write(inner, to: &output)
            output += ")"
        case .all(let guards), .any(let guards):
            if case .all = guardDefinition { output += "all(" } else { output += "any(" }
            for (index, inner) in guards.enumerated() {
                if index > 0 { output += ", " }
                write(inner, to: &output)
            }
            output += ")"
        }
    }

    private static func writeLiteral(_ text: String, to output: inout String) {
        output += "'"
        for character in text {
            if character == "'" || character == "\\" { output += "\\" }
            output.append(character)
        }
        output += "'"
    }

    /// Parses a `rewind:guard` value, or returns `nil` when it is not well formed.
    static func parseExpression(_ text: String) -> GuardDefinition? {
        var parser = Parser(characters: Array(text))
        guard let result = parser.parseGuard(depth: 0) else { return nil }
        parser.skipSpaces()
        return parser.isAtEnd ? result : nil
    }

    private struct Parser {
        var characters: [Character]
        var position = 0

        var isAtEnd: Bool { position == characters.count }

        mutating func skipSpaces() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }

        mutating func consume(_ character: Character) -> Bool {
            skipSpaces()
            guard position < characters.count, characters[position] == character else { return false }
            position += 1
            return true
        }

        mutating func identifier() -> String {
            skipSpaces()
            let start = position
            while position < characters.count, characters[position].isLetter { position += 1 }
            return String(characters[start..<position])
        }

        mutating func literal() -> String? {
            guard consume("'") else { return nil }
            var result = ""
            while position < characters.count {
                let character = characters[position]
                position += 1
                if character == "'" { return result }
                if character == "\\" {
                    guard position < characters.count else { return nil }
                    result.append(characters[position])
                    position += 1
                } else {
                    result.append(character)
                }
            }
            return nil
        }

        mutating func parseGuard(depth: Int) -> GuardDefinition? {
            guard depth < GuardExpression.maximumDepth else { return nil }
            let keyword = identifier()
            guard consume("(") else { return nil }
            let result: GuardDefinition
            switch keyword {
            case "named", "inState", "In":
                guard let value = literal() else { return nil }
                result = keyword == "named" ? .named(value) : .inState(value)
            case "not":
                guard let inner = parseGuard(depth: depth + 1) else { return nil }
                result = .not(inner)
            case "all", "any":
                var guards: [GuardDefinition] = []
                skipSpaces()
                if position < characters.count, characters[position] != ")" {
                    repeat {
                        guard let inner = parseGuard(depth: depth + 1) else { return nil }
                        guards.append(inner)
                    } while consume(",")
                }
                result = keyword == "all" ? .all(guards) : .any(guards)
            default:
                return nil
            }
            guard consume(")") else { return nil }
            return result
        }
    }
}
