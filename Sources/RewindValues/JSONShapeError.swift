/// A ``JSONValue`` that does not have the shape a typed value needs (a missing member, a string
/// where a number belongs, a number out of the range of the integer it stands for).
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
    /// The members of an object.
    package static func object(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError)
        -> [String: JSONValue]
    {
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
    package static func array(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError)
        -> [JSONValue]
    {
        guard case .array(let elements) = value else { throw JSONShapeError(path: path(), expected: "an array") }
        return elements
    }

    /// A string.
    package static func string(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError)
        -> String
    {
        guard case .string(let string) = value else { throw JSONShapeError(path: path(), expected: "a string") }
        return string
    }

    /// A boolean.
    package static func bool(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> Bool {
        guard case .bool(let bool) = value else { throw JSONShapeError(path: path(), expected: "a boolean") }
        return bool
    }

    /// An array of strings.
    package static func strings(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError)
        -> [String]
    {
        let elements = try array(value, at: path())
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            strings.append(try string(element, at: path() + [String(index)]))
        }
        return strings
    }

    /// An integer in the range of `Int64`.
    package static func int64(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError) -> Int64
    {
        guard let integer = value.int64Value else {
            throw JSONShapeError(path: path(), expected: "an integer in the range of Int64")
        }
        return integer
    }

    /// A non-negative integer in the range of `UInt64`.
    package static func uint64(_ value: JSONValue, at path: @autoclosure () -> [String]) throws(JSONShapeError)
        -> UInt64
    {
        guard let integer = value.numberValue?.uint64Value else {
            throw JSONShapeError(path: path(), expected: "a non-negative integer in the range of UInt64")
        }
        return integer
    }
}
