import PostgresNIO

/// A one-dimensional PostgreSQL array built one element at a time, `NULL` elements included, and
/// bound in PostgreSQL's binary array format (`array_recv`): the dimension count, whether an
/// element is `NULL`, the element type, the length and lower bound (1), then each element as its
/// byte count (−1 for `NULL`) and its binary form. postgres-nio's own `Array` encoding has no
/// `NULL` elements; a column of ``MultiRowInsert`` needs them.
struct PostgresColumnArray: PostgresDynamicTypeEncodable {
    /// The elements' type.
    let element: PostgresDataType
    /// The elements, each its byte count and binary form.
    private var elements = ByteBuffer()
    private var count: Int32 = 0
    private var hasNull = false

    /// An empty array of `element`s, with room for `capacity` of 8 bytes.
    init(element: PostgresDataType, capacity: Int) {
        self.element = element
        elements.reserveCapacity(capacity * 12)
    }

    /// Appends `value` (`nil`: `NULL`), which must be of the array's element type and encode in
    /// binary.
    mutating func append<Value: PostgresEncodable>(_ value: Value?) throws {
        if let value {
            precondition(Value.psqlFormat == .binary, "\(Value.self) does not encode in binary")
            let lengthIndex = elements.writerIndex
            elements.writeInteger(0, as: Int32.self)
            try value.encode(into: &elements, context: .default)
            elements.setInteger(Int32(elements.writerIndex - lengthIndex - 4), at: lengthIndex, as: Int32.self)
        } else {
            elements.writeInteger(-1, as: Int32.self)
            hasNull = true
        }
        count += 1
    }

    var psqlType: PostgresDataType {
        switch element {
        case .int8: .int8Array
        case .int4: .int4Array
        case .text: .textArray
        case .uuid: .uuidArray
        case .bytea: .byteaArray
        default: preconditionFailure("no array type known for \(element)")
        }
    }

    var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        buffer.writeInteger(count == 0 ? 0 : 1, as: Int32.self)
        buffer.writeInteger(hasNull ? 1 : 0, as: Int32.self)
        buffer.writeInteger(element.rawValue, as: UInt32.self)
        guard count > 0 else { return }
        buffer.writeInteger(count, as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
        buffer.writeImmutableBuffer(elements)
    }
}
