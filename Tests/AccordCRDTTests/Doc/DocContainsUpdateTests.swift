import Testing
import AccordCRDT

/// `Doc.containsUpdate`: whether applying an update would change nothing.
@Suite struct DocContainsUpdateTests {
    /// A document with insertions and a deletion by two clients.
    private func source() throws -> Doc {
        let doc = Doc(clientID: 1)
        try doc.getText("t").insert(0, "hello world")
        try doc.getText("t").delete(0, 6)
        let other = Doc(clientID: 2)
        try other.applyUpdate(doc.encodeStateAsUpdate())
        try other.getMap("m").set("k", .int(1))
        try doc.applyUpdate(other.encodeStateAsUpdate(from: doc.encodeStateVector()))
        return doc
    }

    @Test func aStepTwoWithNothingNewIsContainedThoughItCarriesDeletions() throws {
        let doc = try source()
        let replica = Doc(clientID: 3)
        try replica.applyUpdate(doc.encodeStateAsUpdate())
        let answer = try replica.encodeStateAsUpdate(from: doc.encodeStateVector())
        #expect(answer != [0, 0])  // the delete set travels
        #expect(try doc.containsUpdate(answer))
        #expect(try doc.containsUpdate(doc.encodeStateAsUpdate()))
        #expect(try doc.containsUpdate([0, 0]))
    }

    @Test func newStructsOrNewDeletionsAreNotContained() throws {
        let doc = try source()
        let replica = Doc(clientID: 3)
        try replica.applyUpdate(doc.encodeStateAsUpdate())
        let lacking = doc.encodeStateVector()

        // A deletion only (no struct): the delete set is the whole difference.
        try replica.getText("t").delete(0, 1)
        let deletion = try replica.encodeStateAsUpdate(from: lacking)
        #expect(try !doc.containsUpdate(deletion))

        let fresh = Doc(clientID: 4)
        try fresh.applyUpdate(doc.encodeStateAsUpdate())
        try fresh.getText("t").insert(0, "x")
        #expect(try !doc.containsUpdate(fresh.encodeStateAsUpdate(from: lacking)))
        // Applying what was not contained makes it contained.
        try doc.applyUpdate(deletion)
        #expect(try doc.containsUpdate(deletion))
    }

    @Test func aDeletionOnlyPartlyDoneHereIsNotContained() throws {
        let doc = Doc(clientID: 1)
        try doc.getText("t").insert(0, "abcdef")
        let replica = Doc(clientID: 2)
        try replica.applyUpdate(doc.encodeStateAsUpdate())
        try doc.getText("t").delete(1, 2)      // b, c
        try replica.getText("t").delete(1, 4)  // b, c, d, e: one range reaching past ours
        #expect(try !doc.containsUpdate(replica.encodeStateAsUpdate()))
        #expect(try replica.containsUpdate(doc.encodeStateAsUpdate()))
    }

    @Test func aMalformedUpdateThrows() {
        let error = #expect(throws: AccordError.self) { try Doc().containsUpdate([9, 9, 9]) }
        #expect(error?.code == .malformedUpdate)
    }
}
