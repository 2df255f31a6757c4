/// A map key as Yjs tells keys apart: by its code units, never by Unicode canonical
/// equivalence. Swift's `String` equality (and so a `[String: …]` dictionary) takes "é"
/// and "e\u{301}" for one key; a Yjs or Yrs peer holds two entries under them, and a
/// store keyed by `String` would merge them into one, so replicas would disagree (and
/// a record's string set of both members would lose one). Compared by UTF-8 bytes,
/// which are identical exactly when the code units are.
struct ExactKey: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    /// The same 16 bytes of `String` mean the same text: one storage object, or the
    /// same inline bytes of a small string (a record's field names, found once per
    /// field of every record written). Otherwise, byte-equal strings are always equal
    /// as `String`s, so `String ==` (false for almost every pair a dictionary probe
    /// compares) goes first, and only a pair it calls equal has its bytes compared.
    static func == (a: ExactKey, b: ExactKey) -> Bool {
        if a.text.hasSameBits(as: b.text) { return true }
        guard a.text == b.text else { return false }
        var left = a.text
        var right = b.text
        return left.withUTF8 { l in right.withUTF8 { r in l.count == r.count && l.elementsEqual(r) } }
    }

    /// The string's own hash: equal for byte-equal keys, as `==` requires (two keys
    /// that are canonically equivalent but not byte-equal share it, a collision `==`
    /// then tells apart).
    func hash(into hasher: inout Hasher) {
        hasher.combine(text)
    }
}
