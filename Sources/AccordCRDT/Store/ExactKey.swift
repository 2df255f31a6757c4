/// A map key as Yjs tells keys apart: by its code units, never by Unicode canonical
/// equivalence. Swift's `String` equality (and so a `[String: …]` dictionary) takes "é"
/// and "e\u{301}" for one key; a Yjs or Yrs peer holds two entries under them, and a
/// store keyed by `String` would merge them into one, so replicas would disagree (and
/// a record's string set of both members would lose one). Compared and hashed by UTF-8
/// bytes, which are code point order and identical exactly when the code units are.
struct ExactKey: Hashable {
    let text: String

    init(_ text: String) { self.text = text }

    static func == (a: ExactKey, b: ExactKey) -> Bool {
        var left = a.text
        var right = b.text
        return left.withUTF8 { l in right.withUTF8 { r in l.count == r.count && l.elementsEqual(r) } }
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
