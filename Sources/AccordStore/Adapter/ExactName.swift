/// Byte-for-byte equality and hashing of names (document ids, categories, keys), as
/// storage compares them. Swift's `String ==` treats canonically equivalent text
/// ("\u{E9}" and "e\u{301}") as equal, which would merge two stored names.
enum ExactName {
    @inline(__always)
    static func equal(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in x.count == y.count && x.elementsEqual(y) } }
    }

    @inline(__always)
    static func hash(_ name: String, into hasher: inout Hasher) {
        var name = name
        name.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
