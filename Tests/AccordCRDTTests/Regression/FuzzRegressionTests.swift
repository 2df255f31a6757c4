import AccordCRDT
import AccordTesting
import Testing

/// Minimal, deterministic repros of engine bugs the fuzzers found (differential,
/// convergence, malformed input). Each names the fuzzer that found it.
@Suite struct FuzzRegressionTests {
    /// Found by PycrdtDifferentialTests (the editor's plain value 2.5e20): JSON text of an
    /// integral double at or above 2^63 trapped in `Int64(d)`.
    @Test func largeIntegralDoublesPrintLikeJavaScript() {
        #expect(AnyValue.double(2.5e20).jsonText == "250000000000000000000")
        #expect(AnyValue.double(-2.5e20).jsonText == "-250000000000000000000")
        #expect(AnyValue.double(0x1p64).jsonText == "18446744073709552000")
        #expect(AnyValue.double(0x1p60).jsonText == "1152921504606847000")
        #expect(AnyValue.double(0x1p53).jsonText == "9007199254740992")
        #expect(AnyValue.double(9.5e20).jsonText == "950000000000000000000")
        #expect(AnyValue.double(1e21).jsonText == "1e+21")
        #expect(AnyValue.double(4_503_599_627_370_497).jsonText == "4503599627370497")
    }

    /// The same bug through a document: format values travel as JSON text, so a format
    /// attribute of 2.5e20 (local, or from a remote update) crashed every encode.
    @Test func formatValueAbove2To63Encodes() throws {
        let a = Doc(clientID: 1)
        let t = try a.getText("t")
        try t.insert(0, "ab")
        try t.format(0, 1, ["size": .double(2.5e20)])
        let update = a.encodeStateAsUpdate()
        let b = Doc(clientID: 2)
        try b.applyUpdate(update)
        #expect(b.encodeStateAsUpdate() == update)
        #expect(try b.getText("t").delta.first?.json == ["insert": "a", "attributes": ["size": .double(2.5e20)]])
    }

    /// Found by PycrdtDifferentialTests seed 14 (shrunk by replaying replica 0's inputs):
    /// after deleting a text's first units, the cached position pointed at the deleted
    /// item at index 0; an insert at 0 lands after that item (text inserts skip deleted
    /// items) but shifted its index anyway, so later edits hit the wrong offset.
    @Test func textInsertAtStartAfterDeletingThePrefix() throws {
        let doc = Doc(clientID: 1)
        let t = try doc.getText("t")
        try t.insert(0, "0123456789")
        try t.delete(2, 1)
        try t.delete(0, 2)
        try t.insert(0, "ab")
        try t.insert(3, "Q")
        #expect(t.string == "ab3Q456789")
    }

    /// The same stale position made a format on a code-point boundary split a surrogate
    /// pair (the seed's symptom: "🇫🇷" became U+FFFD replacement characters).
    @Test func formatAfterInsertAtStartKeepsSurrogatePairs() throws {
        let doc = Doc(clientID: 1)
        let t = try doc.getText("t")
        try t.insert(0, "0123🇫🇷")
        try t.delete(2, 1)
        try t.delete(0, 2)
        try t.insert(0, "a")
        try t.format(4, 2, ["bold": true])
        #expect(t.string == "a3🇫🇷")
        #expect(t.delta.map(\.json) == [["insert": "a3🇫"], ["insert": "🇷", "attributes": ["bold": true]]])
    }

    /// Found by ConvergenceFuzzTests seeds 81, 83 and 101 (applying the same updates in
    /// two orders): an update holds A's item, whose origin is B's first item (not here
    /// yet), and a later B struct after a gap. Integration follows the dependency into
    /// B's structs, hits the gap and puts everything pending waiting for the gap only, so
    /// when B's first item arrives A's item was not retried. Yjs has the same gap.
    @Test func pendingItemIsRetriedWhenItsCrossClientOriginArrives() throws {
        let b = Doc(clientID: 10), a = Doc(clientID: 20)
        var fromB: [[UInt8]] = [], fromA: [[UInt8]] = []
        let sb = b.onUpdate { u, _ in fromB.append(u) }
        let sa = a.onUpdate { u, _ in fromA.append(u) }
        defer { sb.cancel(); sa.cancel() }
        try b.getText("t").insert(0, "b")          // B:0
        try a.applyUpdate(fromB[0])
        try a.getText("t").insert(1, "a")          // A:0, origin B:0
        try b.getText("t").insert(1, "x")          // B:1, never delivered
        try b.getText("t").insert(2, "y")          // B:2, after the gap
        let both = try mergeUpdates([fromA[1], fromB[2]])  // fromA[0] is B:0 as applied on A

        let inOrder = Doc(clientID: 1)
        try inOrder.applyUpdate(fromB[0])
        try inOrder.applyUpdate(both)
        let reversed = Doc(clientID: 1)
        try reversed.applyUpdate(both)
        try reversed.applyUpdate(fromB[0])
        #expect(try inOrder.getText("t").string == "ba")
        #expect(try reversed.getText("t").string == "ba")
        #expect(reversed.stateVector == inOrder.stateVector)
    }

    /// Found by ObserverEventFuzzTests seeds 3, 5, 6, 9, 20, 22: a remote map item whose
    /// content is already Deleted (GC'd by the sender) was integrated as deleted but left
    /// out of the transaction's delete set, so the map event reported `add` for a key
    /// that has no value. Yjs's ContentDeleted.integrate adds it to the delete set.
    @Test func remoteAlreadyDeletedMapEntryIsNoKeyChange() throws {
        let a = Doc(clientID: 1)
        try a.getMap("m").set("k", 1)
        try a.getMap("m").delete("k")
        try a.getMap("m").set("j", 2)
        let b = Doc(clientID: 2)
        var changes: [String: KeyChange.Action] = [:]
        var emitted: [[UInt8]] = []
        let observer = try b.getMap("m").observe { e in changes = e.keys.mapValues(\.action) }
        let updates = b.onUpdate { u, _ in emitted.append(u) }
        defer { observer.cancel(); updates.cancel() }
        try b.applyUpdate(a.encodeStateAsUpdate())
        #expect(changes == ["j": .add])
        // The transaction's update lists the deleted entry in its delete set, as Yjs's does.
        #expect(try DecodedUpdate.decode(#require(emitted.first)).deleteSet.contains(ID(client: 1, clock: 0)))
    }
}
