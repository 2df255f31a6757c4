import Foundation
import Testing
@testable import AccordCRDT

/// mergeUpdates / diffUpdate / encodeStateVectorFromUpdate against the golden vectors,
/// Yjs's crosscheck, and hand-worked cases of Yjs's algorithm.
@Suite struct UpdateMergeDiffTests {
    static func yjs(_ id: String) -> [String: Any] {
        (SharedFixtures.crosscheck["cases"] as! [String: Any])[id] as! [String: Any]
    }

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    // MARK: merge_updates vector

    @Test func emptyUpdateIsTheStateOfAnEmptyDocOnly() throws {
        #expect(isEmptyUpdate(Doc().encodeStateAsUpdate()))
        #expect(isEmptyUpdate(try mergeUpdates([])))
        let doc = Doc(clientID: 1)
        try doc.getText("t").insert(0, "x")
        #expect(!isEmptyUpdate(doc.encodeStateAsUpdate()))
        #expect(!isEmptyUpdate([]))
    }

    @Test func mergesAllInputsLikeYrsAndYjs() throws {
        let c = SharedFixtures.vectorCase("merge_updates")
        let inputs = (c["inputs_hex"] as! [String]).map(Hex.decode)
        let merged = try mergeUpdates(inputs)
        #expect(Self.hex(merged) == c["merged_hex"] as! String)
        #expect(Self.hex(merged) == Self.yjs("merge_updates")["yjs_mergeUpdates_hex"] as! String)
        let problems = DecodedVector.mismatches(try DecodedUpdate.decode(merged), c["merged_decoded"] as! [String: Any])
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func mergeWithAHoleWritesASkip() throws {
        let c = SharedFixtures.vectorCase("merge_updates")
        let inputs = (c["inputs_hex"] as! [String]).map(Hex.decode)
        let merged = try mergeUpdates([inputs[0], inputs[2]])
        #expect(Self.hex(merged) == c["merged_with_gap_hex"] as! String)
        #expect(Self.hex(merged) == Self.yjs("merge_updates")["yjs_merge_with_gap_hex"] as! String)
        let problems = DecodedVector.mismatches(try DecodedUpdate.decode(merged), c["merged_with_gap_decoded"] as! [String: Any])
        #expect(problems.isEmpty, "\(problems)")
    }

    /// Yrs lists the state vector in hash order (`0201060201`); Yjs lists clients in the
    /// order the update holds them (`0202010106`). Same entries; bytes follow Yjs.
    @Test func stateVectorFromMergedUpdate() throws {
        let c = SharedFixtures.vectorCase("merge_updates")
        let sv = try encodeStateVectorFromUpdate(Hex.decode(c["merged_hex"] as! String))
        #expect(Self.hex(sv) == Self.yjs("merge_updates")["yjs_encodeStateVectorFromUpdate_hex"] as! String)
        #expect(try StateVector.decode(sv) == StateVector.decode(Hex.decode(c["state_vector_from_merged_hex"] as! String)))
    }

    @Test func stateVectorFromGapUpdateStopsAtTheSkip() throws {
        let c = SharedFixtures.vectorCase("merge_updates")
        let sv = try encodeStateVectorFromUpdate(Hex.decode(c["merged_with_gap_hex"] as! String))
        #expect(Self.hex(sv) == c["state_vector_from_gap_update_hex"] as! String)
        #expect(Self.hex(sv) == Self.yjs("merge_updates")["yjs_encodeStateVectorFromUpdate_gap_hex"] as! String)
    }

    // MARK: diff_update_from_state_vector vector

    struct DiffEntry: Sendable, CustomStringConvertible {
        var note: String
        var stateVector: String
        var expected: String
        var decodedJSON: Data
        var description: String { note }
    }

    static var diffEntries: [DiffEntry] {
        let c = SharedFixtures.vectorCase("diff_update_from_state_vector")
        return (c["diffs"] as! [[String: Any]]).map {
            DiffEntry(note: $0["note"] as! String, stateVector: $0["state_vector_hex"] as! String,
                      expected: $0["update_v1_hex"] as! String,
                      decodedJSON: try! JSONSerialization.data(withJSONObject: $0["decoded"]!))
        }
    }

    @Test func fiveDiffVectors() { #expect(Self.diffEntries.count == 5) }

    @Test(arguments: diffEntries)
    func diffMatchesVector(_ entry: DiffEntry) throws {
        let c = SharedFixtures.vectorCase("diff_update_from_state_vector")
        let update = Hex.decode(c["update_v1_hex"] as! String)
        let diff = try diffUpdate(update, stateVector: Hex.decode(entry.stateVector))
        #expect(Self.hex(diff) == entry.expected)
        let yjsDiffs = Self.yjs("diff_update_from_state_vector")["diffs"] as! [[String: Any]]
        let yjs = yjsDiffs.first { $0["state_vector_hex"] as! String == entry.stateVector }!
        #expect(Self.hex(diff) == yjs["yjs_diffUpdate_hex"] as! String)
        let expected = try JSONSerialization.jsonObject(with: entry.decodedJSON) as! [String: Any]
        let problems = DecodedVector.mismatches(try DecodedUpdate.decode(diff), expected)
        #expect(problems.isEmpty, "\(problems)")
    }

    // MARK: Yjs behaviour worked by hand from src/utils/updates.js

    /// Yjs returns a single update unchanged (no re-encoding, Yrs number tags kept).
    @Test func singleUpdateIsReturnedUnchanged() throws {
        let u = Hex.decode(SharedFixtures.vectorCase("array_mixed_any")["update_v1_hex"] as! String)
        #expect(try mergeUpdates([u]) == u)
    }

    @Test func noUpdatesMergeToTheEmptyUpdate() throws {
        #expect(try mergeUpdates([]) == [0, 0])
        #expect(try mergeUpdates([[0, 0], [0, 0]]) == [0, 0])
    }

    /// An overlap is cut: "hello" (0..<5) with "lo!" (3..<6, origin 1:2) keeps "hello" and
    /// the cut "!" gets origin 1:4, exactly the update Yjs sends for "!" alone.
    @Test func overlapIsSlicedWithOriginRewritten() throws {
        let hello = Hex.decode("01010100040101740568656c6c6f00")
        let lo = Hex.decode("01010103840102036c6f2100")
        let bang = Hex.decode("01010105840104012100")
        let expected = "010201000401017405" + "68656c6c6f" + "840104012100"
        #expect(Self.hex(try mergeUpdates([hello, lo])) == expected)
        #expect(Self.hex(try mergeUpdates([lo, hello])) == expected)
        #expect(Self.hex(try mergeUpdates([hello, bang])) == expected)
    }

    /// Items are never joined, even when they continue each other (Yjs's Item.mergeWith
    /// needs linked neighbours, which updates do not have).
    @Test func adjacentItemsAreNotJoined() throws {
        let c = SharedFixtures.vectorCase("text_append_two_transactions")
        let incs = (c["incremental_updates"] as! [[String: Any]]).map { Hex.decode($0["hex"] as! String) }
        let merged = try DecodedUpdate.decode(try mergeUpdates(incs))
        #expect(merged.groups.count == 1 && merged.groups[0].structs.count == 2)
    }

    /// GC structs from different updates that touch or overlap are joined; GC structs that
    /// follow each other inside one update are copied as they are.
    @Test func gcStructsJoinAcrossUpdatesOnly() throws {
        let gc0to2 = Hex.decode("01010100000200")      // client 1, GC 0..<2
        let gc2to5 = Hex.decode("01010102000300")      // client 1, GC 2..<5
        let gc1to4 = Hex.decode("01010101000300")      // client 1, GC 1..<4
        #expect(Self.hex(try mergeUpdates([gc0to2, gc2to5])) == "01010100000500")
        #expect(Self.hex(try mergeUpdates([gc0to2, gc1to4])) == "01010100000400")
        let twoInOne = Hex.decode("010201000002000300") // GC 0..<2, GC 2..<5 in one group
        #expect(Self.hex(try mergeUpdates([twoInOne, [0, 0]])) == "010201000002000300")
    }

    /// A Skip in an input is ignored and the hole filled by another update.
    @Test func holeIsFilledByAnotherUpdate() throws {
        let c = SharedFixtures.vectorCase("merge_updates")
        let inputs = (c["inputs_hex"] as! [String]).map(Hex.decode)
        let gap = Hex.decode(c["merged_with_gap_hex"] as! String)
        #expect(try mergeUpdates([gap, inputs[1]]) == mergeUpdates([inputs[0], inputs[1], inputs[2]]))
        #expect(try mergeUpdates([inputs[1], gap]) == mergeUpdates([inputs[0], inputs[1], inputs[2]]))
    }

    /// Delete sets are unioned, sorted and merged; clients written descending.
    @Test func deleteSetsAreUnioned() throws {
        let a = Hex.decode("0002" + "05" + "02" + "0a01" + "0001" + "01" + "01" + "0302")  // 5: [10,1],[0,1]; 1: [3,2]
        let b = Hex.decode("0001" + "05" + "02" + "0102" + "0b02")                         // 5: [1,2],[11,2]
        #expect(Self.hex(try mergeUpdates([a, b])) == "00" + "02" + "05" + "02" + "0003" + "0a03" + "01" + "01" + "0302")
    }

    /// The 0x20 bit travels only with its key: Yjs's lazily read item has no parentSub
    /// when the key was not written (info a8), so Yjs writes it back as 88.
    @Test func parentSubFlagWithoutKeyIsDroppedOnRewrite() throws {
        let c = SharedFixtures.vectorCase("map_set_overwrite")
        let full = Hex.decode(c["update_v1_hex"] as! String)   // 21 · a8 · 28
        let incs = (c["incremental_updates"] as! [[String: Any]]).map { Hex.decode($0["hex"] as! String) }
        let rewritten = "010301002101016d016b0188010001770374776f2801016d056f7468657201780101010001"
        #expect(Self.hex(try diffUpdate(full, stateVector: [0])) == rewritten)
        #expect(Self.hex(try mergeUpdates([full, full])) == rewritten)
        let merged = try DecodedUpdate.decode(try mergeUpdates(incs))
        guard case .item(let second) = merged.groups[0].structs[1] else { Issue.record("not an item"); return }
        #expect(!second.hasParentSub && second.origin == ID(client: 1, clock: 0))
    }

    /// A map item cut after its key was written keeps the 0x20 bit (Yjs's sliceStruct
    /// copies parentSub) but, having an origin now, no key follows.
    @Test func slicedMapItemKeepsTheFlag() throws {
        // client 1: Deleted(len 2) at m["k"] (info 21), written without origins.
        let u = Hex.decode("010101002101016d016b0200")
        #expect(Self.hex(try diffUpdate(u, stateVector: Hex.decode("010101"))) == "01010101a101000100")
        #expect(Self.hex(try mergeUpdates([u, Hex.decode("01010101a101000100")])) == "010101002101016d016b0200")
    }

    /// Yjs reduces sub-document options to the non-defaults it keeps (crosscheck
    /// `subdocument`: Yrs's `{shouldLoad, autoLoad, encoding, gc}` comes back as `{}`).
    @Test func subdocumentOptionsAreReducedLikeYjs() throws {
        let c = SharedFixtures.vectorCase("subdocument")
        let u = Hex.decode(c["update_v1_hex"] as! String)
        let expected = Self.yjs("subdocument")["yjs_encodeStateAsUpdate_hex"] as! String
        #expect(Self.hex(try diffUpdate(u, stateVector: [0])) == expected)
        #expect(Self.hex(try mergeUpdates([u, u])) == expected)
        let opts: AnyValue = ["gc": false, "autoLoad": 1, "meta": ["a": 1], "shouldLoad": true, "encoding": 1]
        #expect(StructContent.yjsDocContent(guid: "g", options: opts)
            == .doc(guid: "g", options: ["gc": false, "autoLoad": true, "meta": ["a": 1]]))
        #expect(StructContent.yjsDocContent(guid: "g", options: .null) == .doc(guid: "g", options: .object(OrderedObject())))
    }

    /// Diff never starts a group with a Skip and cuts the first struct it needs.
    @Test func diffSkipsLeadingSkipsAndCuts() throws {
        let gap = Hex.decode(SharedFixtures.vectorCase("merge_updates")["merged_with_gap_hex"] as! String)
        // "ab" 0..<2 · Skip 2..<4 · "ef" 4..<6
        #expect(Self.hex(try diffUpdate(gap, stateVector: Hex.decode("010103"))) == "0101010484010302656600")
        #expect(Self.hex(try diffUpdate(gap, stateVector: Hex.decode("010101")))
            == "01030101" + "8401000162" + "0a02" + "84010302656600")
        #expect(Self.hex(try diffUpdate(gap, stateVector: Hex.decode("010106"))) == "0000")
    }

    /// A diff cut between the halves of a surrogate pair writes U+FFFD for the dangling
    /// half (Yjs writes `str.slice(offset)`, which its UTF-8 encoder turns into U+FFFD).
    @Test func diffCutInsideASurrogatePair() throws {
        let u = Hex.decode(SharedFixtures.vectorCase("text_utf16_lengths")["update_v1_hex"] as! String)
        // "a😀" 0..<3 · "b€" 3..<5 · "X" 5; the state 2 ends between the halves of 😀.
        #expect(Self.hex(try diffUpdate(u, stateVector: Hex.decode("010102")))
            == "01030102" + "84010103efbfbd" + "8401020462e282ac" + "c4010201030158" + "00")
    }

    /// The delete set of a diff is the update's, as read: not filtered by the state vector.
    @Test func diffKeepsTheWholeDeleteSet() throws {
        let u = Hex.decode(SharedFixtures.vectorCase("text_delete")["update_v1_hex"] as! String)
        #expect(Self.hex(try diffUpdate(u, stateVector: Hex.decode("01010b"))) == "000101010506")
        // Ranges are kept in wire order (Yjs does not sort them here); clients descending.
        let unsorted = Hex.decode("0002" + "01" + "02" + "0501" + "0001" + "07" + "01" + "0001")
        #expect(Self.hex(try diffUpdate(unsorted, stateVector: [0])) == "0002" + "07010001" + "010205010001")
    }

    @Test func stateVectorRules() throws {
        #expect(try encodeStateVectorFromUpdate([0, 0]) == [0])
        // A client whose structs start above 0 is left out.
        #expect(Self.hex(try encodeStateVectorFromUpdate(Hex.decode("01010105840104012100"))) == "00")
        // Clients in update order, here ascending as written.
        let two = Hex.decode("02" + "01010000" + "01" + "01020000" + "01" + "00")   // GC client 1, then client 2
        #expect(Self.hex(try encodeStateVectorFromUpdate(two)) == "0201010201")
        // A leading Skip counts nothing (Yjs would count it; it never writes one).
        #expect(Self.hex(try encodeStateVectorFromUpdate(Hex.decode("010201000a02000100"))) == "00")
    }
}
