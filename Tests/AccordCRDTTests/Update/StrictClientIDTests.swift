import Testing
@testable import AccordCRDT

/// Client ids above 2^53 − 1 cannot be read exactly by JavaScript Yjs, so a peer that
/// writes with one has its edits silently lost for JS peers. A ``Doc`` with
/// ``Doc/strictClientIDs`` refuses every update naming such an id, wherever it appears.
@Suite struct StrictClientIDTests {
    static let big: ClientID = (1 << 60) + 1
    static let maxSafe: ClientID = (1 << 53) - 1

    /// A text insert written by `client` (the compact path's shape).
    static func insert(by client: ClientID, _ text: String = "hi") throws -> [UInt8] {
        let doc = Doc(clientID: client)
        try doc.getText("t").insert(0, text)
        return doc.encodeStateAsUpdate()
    }

    /// Updates by a small client that name `client` somewhere other than the struct id.
    static func namingElsewhere(_ client: ClientID) throws -> [(String, [UInt8])] {
        let other = Doc(clientID: client)
        try other.getText("t").insert(0, "ab")
        let seen = other.stateVector.encode()

        let afterIt = Doc(clientID: 7)
        try afterIt.applyUpdate(other.encodeStateAsUpdate())
        try afterIt.getText("t").insert(2, "c")  // origin: client's last unit
        let beforeIt = Doc(clientID: 7)
        try beforeIt.applyUpdate(other.encodeStateAsUpdate())
        try beforeIt.getText("t").insert(0, "c")  // right origin: client's first unit
        let deleting = Doc(clientID: 7)
        try deleting.applyUpdate(other.encodeStateAsUpdate())
        try deleting.getText("t").delete(0, 1)  // delete set names the client

        let parented = DecodedUpdate(groups: [.init(client: 7, structs: [
            .item(UpdateItem(id: ID(client: 7, clock: 0), origin: nil, rightOrigin: nil,
                             parent: .item(ID(client: client, clock: 0)), parentSub: "k", content: .string(Array("x".utf16)))),
        ])]).encode()
        let onlyDeletes = DecodedUpdate(deleteSet: DeleteSet([client: [DeleteSet.Range(clock: 0, length: 1)]])).encode()
        return [
            ("origin", try afterIt.encodeStateAsUpdate(from: seen)),
            ("right origin", try beforeIt.encodeStateAsUpdate(from: seen)),
            ("delete set", try deleting.encodeStateAsUpdate(from: seen)),
            ("parent id", parented),
            ("delete set only", onlyDeletes),
        ]
    }

    static func strictDoc() throws -> Doc {
        let doc = Doc(clientID: 3)
        try doc.getText("t").insert(0, "base")
        doc.strictClientIDs = true
        return doc
    }

    @Test func aStrictDocRefusesAStructWrittenByAnUnsafeClientAndStaysAsItWas() throws {
        let doc = try Self.strictDoc()
        let before = doc.encodeStateAsUpdate()
        let error = try #require(throws: AccordError.self) { try doc.applyUpdate(try Self.insert(by: Self.big)) }
        #expect(error.code == .malformedUpdate)
        #expect(error.message.contains("\(Self.big)"))
        #expect(doc.encodeStateAsUpdate() == before)
        #expect(!doc.hasPendingUpdates)
    }

    @Test func aStrictDocRefusesAnUnsafeClientInOriginsParentsAndDeleteSets() throws {
        for (place, update) in try Self.namingElsewhere(Self.big) {
            let doc = try Self.strictDoc()
            let before = doc.encodeStateAsUpdate()
            let error = try #require(throws: AccordError.self, "\(place)") { try doc.applyUpdate(update) }
            #expect(error.code == .malformedUpdate, "\(place)")
            #expect(doc.encodeStateAsUpdate() == before, "\(place)")
            #expect(!doc.hasPendingUpdates, "\(place)")
        }
    }

    @Test func aStrictDocRefusesAnUnsafeClientWhileSomethingIsPending() throws {
        let doc = try Self.strictDoc()
        // A struct whose predecessor is missing: the general path from now on.
        let gap = DecodedUpdate(groups: [.init(client: 9, structs: [
            .item(UpdateItem(id: ID(client: 9, clock: 5), origin: ID(client: 9, clock: 4), rightOrigin: nil,
                             parent: nil, parentSub: nil, content: .string(Array("z".utf16)))),
        ])]).encode()
        try doc.applyUpdate(gap)
        #expect(doc.hasPendingUpdates)
        let before = doc.encodeStateAsUpdate()
        #expect(throws: AccordError.self) { try doc.applyUpdate(try Self.insert(by: Self.big)) }
        #expect(doc.encodeStateAsUpdate() == before)
    }

    @Test func theLargestSafeIdIsAccepted() throws {
        let doc = try Self.strictDoc()
        try doc.applyUpdate(try Self.insert(by: Self.maxSafe, "!"))
        for (place, update) in try Self.namingElsewhere(Self.maxSafe) where place != "parent id" {
            let fresh = try Self.strictDoc()
            #expect(throws: Never.self, "\(place)") { try fresh.applyUpdate(update) }
        }
        #expect(try doc.getText("t").string.contains("!"))
    }

    /// The engine's default reads every id, as Yjs and Yrs do: stored documents and
    /// peers that wrote 64-bit ids stay readable.
    @Test func theDefaultAcceptsUnsafeIds() throws {
        let doc = Doc(clientID: 3)
        #expect(!doc.strictClientIDs)
        try doc.applyUpdate(try Self.insert(by: Self.big))
        #expect(try doc.getText("t").string == "hi")
        for (place, update) in try Self.namingElsewhere(Self.big) where place != "parent id" {
            let fresh = Doc(clientID: 3)
            #expect(throws: Never.self, "\(place)") { try fresh.applyUpdate(update) }
        }
    }

    @Test func stateVectorsNamingUnsafeIdsAreFound() throws {
        #expect(StateVector([Self.big: 1, 3: 2]).firstUnsafeClient == Self.big)
        #expect(StateVector([Self.maxSafe: 1]).firstUnsafeClient == nil)
    }
}
