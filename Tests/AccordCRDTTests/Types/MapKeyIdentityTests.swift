import AccordCRDT
import AccordTesting
import Testing

/// Map keys are told apart as Yjs tells them apart: by their code units. "é" (U+00E9)
/// and "e\u{301}" are canonically equivalent, so Swift's `String ==` calls them equal,
/// but every Yjs and Yrs peer holds two entries under them.
@Suite struct MapKeyIdentityTests {
    static let map = EditTarget(root: "m", rootKind: .map)
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    static func int(_ map: YMap, _ key: String) -> Int64? {
        if case .value(.int(let number))? = map.get(key) { return number }
        return nil
    }

    @Test func canonicallyEquivalentKeysAreTwoKeys() throws {
        let doc = Doc(clientID: 1)
        let map = try doc.getMap("m")
        try map.set(Self.composed, .int(1))
        try map.set(Self.decomposed, .int(2))
        #expect(map.count == 2)
        #expect(Self.int(map, Self.composed) == 1)
        #expect(Self.int(map, Self.decomposed) == 2)
        try map.delete(Self.decomposed)
        #expect(map.contains(Self.composed))
        #expect(!map.contains(Self.decomposed))
    }

    /// The recent-keys shortcut of interning (same `String` bits, same key) never joins
    /// two keys: short keys (held inline) and long ones (held in storage), each form set
    /// again and again from strings made anew, stay four entries with their last values.
    @Test func keysSetOverAndOverStayApart() throws {
        let doc = Doc(clientID: 1)
        let map = try doc.getMap("m")
        let long = String(repeating: "long key ", count: 3)
        let forms = [Self.composed, Self.decomposed, long + Self.composed, long + Self.decomposed]
        for round in 0..<50 {
            for (n, form) in forms.enumerated() {
                // A new string object each time for the long forms; the same bits for the short ones.
                let key = String(decoding: Array(form.utf8), as: UTF8.self)
                try map.set(key, .int(Int64(round * 10 + n)))
                try map.set("field \(n)", .int(Int64(round)))
            }
        }
        #expect(map.count == 8)
        for (n, form) in forms.enumerated() {
            #expect(Self.int(map, form) == Int64(490 + n), "form \(n)")
        }
        #expect(Set(map.keys.map { Array($0.utf8) }).count == 8)
    }

    /// The same two sets on a pycrdt replica and on ours (same client id): the same
    /// bytes, and each side reads the other's update as two entries.
    @Test func theyAgreeWithPycrdt() throws {
        let peer = try PycrdtPeer()
        defer { peer.close() }
        try peer.newDoc("P", clientID: 9)
        let doc = Doc(clientID: 9)
        // String values: pycrdt writes a Python int as a float, so ints would differ in bytes.
        for (key, value) in [(Self.composed, "one"), (Self.decomposed, "two")] {
            let operation = EditOperation.mapSet(Self.map, key: key, value: .plain(.string(value)))
            try doc.perform(operation)
            _ = try peer.perform(operation, on: "P")
        }
        #expect(try peer.encodeStateAsUpdate("P") == doc.encodeStateAsUpdate())

        let fromPeer = Doc(clientID: 3)
        try fromPeer.applyUpdate(try peer.encodeStateAsUpdate("P"))
        let map = try fromPeer.getMap("m")
        #expect(map.count == 2)
        if case .value(.string(let text))? = map.get(Self.decomposed) { #expect(text == "two") } else { Issue.record("no value") }
        try peer.newDoc("Q", clientID: 4)
        try peer.applyUpdate(doc.encodeStateAsUpdate(), to: "Q")
        #expect(try peer.encodeStateAsUpdate("Q") == doc.encodeStateAsUpdate())
    }
}
