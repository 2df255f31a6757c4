import AccordCRDT

/// One parameter of a statement, sent in PostgreSQL's binary format so that bytes
/// travel as they are (no escaping, no text encoding of `bytea`).
public enum PostgresValue: Sendable, Hashable {
    case null
    /// `bytea` (and, in binary format, the UTF-8 bytes of `text`).
    case bytes([UInt8])
    /// `bigint`, sent big-endian as the binary format wants.
    case int64(Int64)
    /// `bigint[]`, one dimension, no nulls.
    case int64Array([Int64])
    /// `bytea[]`, one dimension, no nulls.
    case bytesArray([[UInt8]])

    public static func text(_ string: String) -> PostgresValue { .bytes(Array(string.utf8)) }

    var encoded: [UInt8]? {
        switch self {
        case .null: return nil
        case .bytes(let bytes): return bytes
        case .int64(let value): return Self.bigEndian(value)
        case .int64Array(let values): return Self.array(elementType: 20, values.map(Self.bigEndian))
        case .bytesArray(let values): return Self.array(elementType: 17, values)
        }
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    /// PostgreSQL's binary array format (array_send): dimensions, a has-nulls flag, the
    /// element type's oid, then per dimension its length and lower bound (1), then each
    /// element as a length and its binary form.
    private static func array(elementType oid: Int32, _ elements: [[UInt8]]) -> [UInt8] {
        var bytes = bigEndian(Int32(1)) + bigEndian(Int32(0)) + bigEndian(oid)
        bytes += bigEndian(Int32(elements.count)) + bigEndian(Int32(1))
        bytes.reserveCapacity(bytes.count + elements.reduce(0) { $0 + 4 + $1.count })
        for element in elements {
            bytes += bigEndian(Int32(element.count))
            bytes += element
        }
        return bytes
    }
}

/// The parameters of one call laid out for libpq: one flat buffer, and per parameter
/// its offset and length (nil offset = SQL NULL). libpq wants parallel C arrays of
/// pointers, lengths and formats that stay valid for the call; building them from one
/// buffer inside `withPointers` keeps every pointer's lifetime obvious.
struct PostgresParameters {
    private var flat: [UInt8] = []
    private var offsets: [Int?] = []
    private var lengths: [Int32] = []

    /// PostgreSQL's limit for one field value (1 GB).
    static let maxValueBytes = (1 << 30) - 1

    init(_ values: [PostgresValue]) throws(AccordError) {
        for value in values {
            guard let bytes = value.encoded else {
                offsets.append(nil)
                lengths.append(0)
                continue
            }
            guard bytes.count <= Self.maxValueBytes else {
                throw AccordError(
                    .invalidArgument, "a value of \(bytes.count) bytes is over PostgreSQL's 1 GB field limit",
                    details: ["bytes": String(bytes.count)])
            }
            offsets.append(flat.count)
            lengths.append(Int32(bytes.count))
            flat.append(contentsOf: bytes)
        }
    }

    var count: Int32 { Int32(offsets.count) }

    func withPointers<T>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T
    ) -> T {
        // A zero-length value still needs a non-null pointer (null means SQL NULL), and an
        // empty array's base address may be nil: keep one spare byte at the end.
        var storage = flat
        storage.append(0)
        let formats = [Int32](repeating: 1, count: offsets.count)
        return storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.map { (base + $0).assumingMemoryBound(to: CChar.self) }
            }
            return pointers.withUnsafeBufferPointer { pointerBuffer in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    formats.withUnsafeBufferPointer { formatBuffer in
                        body(pointerBuffer.baseAddress, lengthBuffer.baseAddress, formatBuffer.baseAddress)
                    }
                }
            }
        }
    }
}
