/// A ``JSONValue`` that does not have the shape a typed value needs (a missing member, a string
/// where a number belongs), or a typed value that a `JSONValue` cannot hold exactly.
public struct JSONShapeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where the mismatch is: object keys and array indices from the root.
    public var path: [String]
    /// What was needed there, for example `"a string"` or `"a member 'name'"`.
    public var expected: String

    /// Creates an error at `path`.
    public init(path: [String], expected: String) {
        self.path = path
        self.expected = expected
    }

    /// What was needed and where, for example `expected a string at internalQueue/0/name`.
    public var description: String {
        "expected \(expected) at \(path.isEmpty ? "the root" : path.joined(separator: "/"))"
    }
}

/// Reading typed values out of a ``JSONValue`` tree, for the hand-written conversions that
/// replace `Codable` on hot paths (snapshots). Each failure names the path it happened at.
package enum JSONShape {
    /// The largest integer magnitude a `Double` (a JSON number here) holds exactly: 2^53.
    package static let maximumExactInteger: Double = 9_007_199_254_740_992

    /// The members of an object.
    package static func object(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> [String: JSONValue] {
        guard case .object(let members) = value else { throw JSONShapeError(path: path(), expected: "an object") }
        return members
    }

    /// The member `key` of `members`, which must be there.
    package static func member(
        _ key: String, of members: [String: JSONValue], at path: @autoclosure () -> [String]
    ) throws(JSONShapeError) -> JSONValue {
        guard let value = members[key] else { throw JSONShapeError(path: path(), expected: "a member '\(key)'") }
        return value
    }

    /// The elements of an array.
    package static func array(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> [JSONValue] {
        guard case .array(let elements) = value else { throw JSONShapeError(path: path(), expected: "an array") }
        return elements
    }

    /// A string.
    package static func string(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> String {
        guard case .string(let string) = value else { throw JSONShapeError(path: path(), expected: "a string") }
        return string
    }

    /// A boolean.
    package static func bool(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> Bool {
        guard case .bool(let bool) = value else { throw JSONShapeError(path: path(), expected: "a boolean") }
        return bool
    }

    /// An array of strings.
    package static func strings(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> [String] {
        let elements = try array(value, at: path())
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            strings.append(try string(element, at: path() + [String(index)]))
        }
        return strings
    }

    /// An integer no larger than 2^53 in magnitude (larger ones may have lost digits as a `Double`).
    package static func int64(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> Int64 {
        guard case .number(let number) = value, number.magnitude <= maximumExactInteger,
            let integer = Int64(exactly: number)
        else { throw JSONShapeError(path: path(), expected: "an integer of at most 2^53 in magnitude") }
        return integer
    }

    /// A non-negative integer no larger than 2^53.
    package static func uint64(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> UInt64 {
        guard case .number(let number) = value, number <= maximumExactInteger, let integer = UInt64(exactly: number)
        else { throw JSONShapeError(path: path(), expected: "a non-negative integer of at most 2^53") }
        return integer
    }

    /// The number holding `integer` exactly, which it can when it is at most 2^53 in magnitude.
    package static func number(_ integer: some BinaryInteger, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> JSONValue {
        guard let number = Double(exactly: integer), number.magnitude <= maximumExactInteger else {
            throw JSONShapeError(path: path(), expected: "an integer of at most 2^53 in magnitude")
        }
        return .number(number)
    }
}
