import AccordCRDT

/// Where a sealed value belongs: a record, or one entry of a log.
///
/// The location is bound into the seal as additional authenticated data, so a sealed
/// value only opens where it was written. Someone who can write to the storage but does
/// not have the key can still move bytes around; binding the location turns "the value
/// of key A now sits under key B" (or an old log entry replayed at another sequence)
/// into `STORAGE_CORRUPT` instead of wrong data.
enum SealedLocation {
    case record(StorageCategory, key: String)
    case logEntry(StorageCategory, key: String, sequence: UInt64)

    /// The additional data for format `version`:
    ///
    /// ```
    /// version: u8 | kind: u8 (1 record, 2 log entry)
    /// | category length: u64 LE | category UTF-8 | key length: u64 LE | key UTF-8
    /// | sequence: u64 LE (log entries only)
    /// ```
    ///
    /// Every variable-length part carries its length in front, so no two locations encode
    /// to the same bytes (category "a" + key "bc" differs from category "ab" + key "c").
    func additionalData(version: UInt8) -> [UInt8] {
        var bytes: [UInt8] = [version]
        switch self {
        case .record(let category, let key):
            bytes.append(1)
            Self.appendLengthPrefixed(category.rawValue, to: &bytes)
            Self.appendLengthPrefixed(key, to: &bytes)
        case .logEntry(let category, let key, let sequence):
            bytes.append(2)
            Self.appendLengthPrefixed(category.rawValue, to: &bytes)
            Self.appendLengthPrefixed(key, to: &bytes)
            Self.appendLittleEndian(sequence, to: &bytes)
        }
        return bytes
    }

    /// The error details that name the location: `category`, `key`, and `sequence` for log entries.
    var details: [String: String] {
        switch self {
        case .record(let category, let key):
            ["category": category.rawValue, "key": key]
        case .logEntry(let category, let key, let sequence):
            ["category": category.rawValue, "key": key, "sequence": String(sequence)]
        }
    }

    /// A phrase for error messages, such as `record "docs"/"a"`.
    var phrase: String {
        switch self {
        case .record(let category, let key):
            "record \"\(category.rawValue)\"/\"\(key)\""
        case .logEntry(let category, let key, let sequence):
            "log entry \"\(category.rawValue)\"/\"\(key)\" #\(sequence)"
        }
    }

    private static func appendLengthPrefixed(_ text: String, to bytes: inout [UInt8]) {
        let utf8 = Array(text.utf8)
        appendLittleEndian(UInt64(utf8.count), to: &bytes)
        bytes.append(contentsOf: utf8)
    }

    private static func appendLittleEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
