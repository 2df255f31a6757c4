/// Strings from UTF-8 bytes, checked: the answer of `String(validating:as:)`, without
/// its generic path (which looked up type metadata for every string and was a tenth of
/// a batched database save).
enum UTF8Text {
    /// The string of `bytes` when they are valid UTF-8, nil otherwise.
    static func string<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String? {
        if let answer = bytes.withContiguousStorageIfAvailable({ string(buffer: $0) }) { return answer }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Decoding repairs invalid input (with U+FFFD), so the bytes come back unchanged
    /// exactly when there was nothing to repair.
    static func string(buffer: UnsafeBufferPointer<UInt8>) -> String? {
        let decoded = String(decoding: buffer, as: UTF8.self)
        return decoded.utf8.elementsEqual(buffer) ? decoded : nil
    }
}
