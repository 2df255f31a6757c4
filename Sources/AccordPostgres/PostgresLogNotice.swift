public import AccordStore

/// What `accord_append_shared` announces on the schema's channel at each commit: who
/// appended which entries to which shared log (`log <writer> <category> <key> <first>
/// <last> [<values>]`, writer, names and values in hex). A hint for other nodes to read
/// the log, or, when the values came along, the entries themselves.
public struct PostgresLogNotice: Sendable, Hashable {
    public var writer: [UInt8]
    public var category: StorageCategory
    public var key: String
    public var first: UInt64
    public var last: UInt64
    /// The entries' values, first to last, when they were small enough to ride along.
    public var values: [[UInt8]]?

    /// Nil for a payload that is not a log notice (another kind, or malformed).
    public init?(payload: String) {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 6 || fields.count == 7, fields[0] == "log",
            let writer = Self.hex(fields[1]), let category = Self.hex(fields[2]), let key = Self.hex(fields[3]),
            let first = UInt64(fields[4]), let last = UInt64(fields[5]), first <= last
        else { return nil }
        self.writer = writer
        self.category = StorageCategory(String(decoding: category, as: UTF8.self))
        self.key = String(decoding: key, as: UTF8.self)
        self.first = first
        self.last = last
        if fields.count == 7, !fields[6].isEmpty {
            let values = fields[6].split(separator: ",", omittingEmptySubsequences: false).map { Self.hex($0) }
            guard values.count == Int(last - first + 1), values.allSatisfy({ $0 != nil }) else { return nil }
            self.values = values.map { $0! }
        }
    }

    /// Lower-case hex as bytes (how notices carry names); nil for anything else.
    public static func hex(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: return digit - 0x30
        case 0x61...0x66: return digit - 0x61 + 10
        default: return nil
        }
    }
}
