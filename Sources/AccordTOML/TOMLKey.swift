/// A table key compared by its Unicode scalars (UTF-8 bytes), as TOML compares keys.
///
/// Swift's `String` equality uses canonical equivalence, which would make "é" and
/// "e\u{301}" one key; TOML says they are two, so tables never key a dictionary by
/// `String` directly.
struct TOMLKey: Hashable, Sendable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: TOMLKey, rhs: TOMLKey) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        Self.hashBytes(string, into: &hasher)
    }

    static func hashBytes(_ string: String, into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(string.utf8.count)
    }
}
