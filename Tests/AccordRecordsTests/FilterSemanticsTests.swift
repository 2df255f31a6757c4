import AccordCRDT
import AccordRecords
import Testing

/// The meaning of every operator, on records that cover the cases: absent fields,
/// stored nulls, mixed types, string sets, non-ASCII strings.
@Suite struct FilterSemanticsTests {
    static let records: [RecordData] = [
        RecordData(id: "a", values: ["n": 1, "s": "abc", "b": true, "tags": .stringSet(["x", "y"])]),
        RecordData(id: "b", values: ["n": 2.5, "s": "ABC", "b": false]),
        RecordData(id: "c", values: ["n": .null, "s": .null]),
        RecordData(id: "d", values: [:]),
        RecordData(id: "e", values: ["n": "abc", "s": 3]),  // types a peer got wrong
        RecordData(id: "f", values: ["s": "é", "tags": .stringSet([])]),
        RecordData(id: "g", values: ["s": "e\u{301}", "tags": .stringSet(["é"])]),
    ]

    private func ids(_ filter: Filter) throws -> [String] {
        let predicate = try filter.compile()
        return Self.records.filter(predicate.matches).map(\.id)
    }

    @Test func equalityMatchesOnlyRecordsThatCarryTheValue() throws {
        #expect(try ids(["n": 1]) == ["a"])
        #expect(try ids(["n": ["$eq": 2.5]]) == ["b"])
        #expect(try ids(["s": "abc"]) == ["a"])
        #expect(try ids(["n": ["$in": [1, 2.5]]]) == ["a", "b"])
    }

    @Test func nullMatchesAbsentAndStoredNull() throws {
        #expect(try ids(["n": nil]) == ["c", "d", "f", "g"])
        #expect(try ids(["n": ["$eq": nil]]) == ["c", "d", "f", "g"])
        #expect(try ids(["n": ["$in": [nil, 1]]]) == ["a", "c", "d", "f", "g"])
    }

    @Test func notEqualIsExactlyTheNegationOfEqual() throws {
        // Every number, every record without the field, every other type.
        #expect(try ids(["n": ["$ne": "abc"]]) == ["a", "b", "c", "d", "f", "g"])
        #expect(try ids(["n": ["$ne": 1]]) == ["b", "c", "d", "e", "f", "g"])
        #expect(try ids(["n": ["$ne": nil]]) == ["a", "b", "e"])
    }

    @Test func notInIsExactlyTheNegationOfIn() throws {
        #expect(try ids(["n": ["$nin": [1]]]) == ["b", "c", "d", "e", "f", "g"])
        // null inside $nin excludes the records without the field.
        #expect(try ids(["n": ["$nin": [1, nil]]]) == ["b", "e"])
        #expect(try ids(["n": ["$in": []]]) == [])
        #expect(try ids(["n": ["$nin": []]]) == Self.records.map(\.id))
    }

    @Test func comparisonsNeverCrossTypesAndNeverMatchNull() throws {
        #expect(try ids(["n": ["$gt": 1]]) == ["b"])
        #expect(try ids(["n": ["$gte": 1]]) == ["a", "b"])
        #expect(try ids(["n": ["$lt": "zzz"]]) == ["e"])
        #expect(try ids(["n": ["$gt": nil]]) == [])
        #expect(try ids(["n": ["$lte": nil]]) == [])
        #expect(try ids(["b": ["$gt": false]]) == ["a"])
        #expect(try ids(["n": ["$gt": 0, "$lt": 2]]) == ["a"])
    }

    @Test func stringsCompareByCodePointsWithoutNormalisation() throws {
        #expect(try ids(["s": "é"]) == ["f"])
        #expect(try ids(["s": "e\u{301}"]) == ["g"])
        // "ABC" < "abc" < "e\u{301}" < "é" in code points.
        #expect(try ids(["s": ["$lt": "abc"]]) == ["b"])
        #expect(try ids(["s": ["$gt": "e"]]) == ["f", "g"])
        #expect(try ids(["s": ["$gt": "e\u{301}"]]) == ["f"])
    }

    @Test func prefixAndSuffixAreCaseSensitiveAndTheEmptyStringMatchesEveryString() throws {
        #expect(try ids(["s": ["$startsWith": "ab"]]) == ["a"])
        #expect(try ids(["s": ["$endsWith": "BC"]]) == ["b"])
        #expect(try ids(["s": ["$startsWith": ""]]) == ["a", "b", "f", "g"])
        #expect(try ids(["s": ["$endsWith": "\u{301}"]]) == ["g"])
        #expect(try ids(["s": ["$startsWith": "e"]]) == ["g"])
    }

    @Test func containsTextFoldsCaseFullyAndNeverMatchesNonStrings() throws {
        #expect(try ids(["s": ["$containsText": "b"]]) == ["a", "b"])
        #expect(try ids(["n": ["$containsText": "ab"]]) == ["e"])
        #expect(try ids(["s": ["$containsText": "3"]]) == [])
        let street = RecordData(id: "s", values: ["s": "STRASSE", "t": "Straße", "g": "ΣΊΣΥΦΟΣ"])
        for (field, needle) in [("s", "ß"), ("t", "SS"), ("t", "strasse"), ("g", "σίσυφος"), ("g", "ς")] {
            let predicate = try Filter(json: .object([field: .object(["$containsText": .string(needle)])])).compile()
            #expect(predicate.matches(street), "\(field) contains \(needle)")
        }
        // Folding does not normalise: a composed é is not a decomposed one.
        #expect(try ids(["s": ["$containsText": "E\u{301}"]]) == ["g"])
    }

    @Test func containsAsksForAStringSetMember() throws {
        #expect(try ids(["tags": ["$contains": "x"]]) == ["a"])
        #expect(try ids(["tags": ["$contains": "é"]]) == ["g"])
        #expect(try ids(["tags": ["$contains": "e\u{301}"]]) == [])
        #expect(try ids(["s": ["$contains": "abc"]]) == [])
    }

    @Test func existsMeansPresentAndNotNull() throws {
        #expect(try ids(["n": ["$exists": true]]) == ["a", "b", "e"])
        #expect(try ids(["n": ["$exists": false]]) == ["c", "d", "f", "g"])
    }

    @Test func logicalOperatorsCombine() throws {
        #expect(try ids(["$or": [["n": 1], ["s": "ABC"]]]) == ["a", "b"])
        #expect(try ids(["$and": [["n": ["$exists": true]], ["s": ["$startsWith": "a"]]]]) == ["a"])
        #expect(try ids(["b": true, "s": "abc"]) == ["a"])
        #expect(try ids(["id": ["$in": ["c", "d"]]]) == ["c", "d"])
        #expect(try ids([:]) == Self.records.map(\.id))
    }
}
