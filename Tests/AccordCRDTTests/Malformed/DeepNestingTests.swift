import Testing
@testable import AccordCRDT

/// An update may nest shared types without limit; reading, deleting and collecting
/// them must not recurse once per level.
@Suite struct DeepNestingTests {
    static func nestedMaps(depth: Int) -> [UInt8] {
        var structs: [UpdateStruct] = []
        for i in 0..<depth {
            let parent: StructParent = i == 0 ? .root("m") : .item(ID(client: 1, clock: i - 1))
            structs.append(.item(UpdateItem(id: ID(client: 1, clock: i), origin: nil, rightOrigin: nil,
                                            parent: parent, parentSub: "k", content: .type(.map))))
        }
        return DecodedUpdate(groups: [.init(client: 1, structs: structs)]).encode()
    }

    @Test func hundredThousandNestedMapsAreSafeToReadDeleteAndCollect() throws {
        let doc = Doc(clientID: 7)
        try doc.applyUpdate(Self.nestedMaps(depth: 100_000))
        let root = try doc.getMap("m")
        // The view stops at a bounded depth instead of exhausting the stack.
        var view = root.json
        var levels = 0
        while case .object(let o) = view, let next = o["k"], !next.isNull {
            view = next
            levels += 1
        }
        #expect(levels == YValue.maxViewDepth)
        #expect(doc.encodeStateAsUpdate().count > 100_000)

        try root.delete("k")  // deletes (and collects) every level below
        #expect(root.count == 0)
        let reloaded = Doc()
        try reloaded.applyUpdate(doc.encodeStateAsUpdate())
        #expect(try reloaded.getMap("m").count == 0)
    }
}
