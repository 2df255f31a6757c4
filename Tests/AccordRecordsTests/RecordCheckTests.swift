@testable import AccordRecords
import AccordCRDT
import Testing

/// How a save places and checks the values it is given (`RecordLayout.checkNamingID`):
/// fields are found by their names' bits first, then by text, and the changes come out
/// in schema order whatever order the dictionary holds them in.
@Suite struct RecordCheckTests {
    static let model = ModelSchema("tasks", fields: [
        FieldSchema("title", .string),
        FieldSchema("estimatedHoursRemaining", .number),
        FieldSchema("done", .boolean),
        FieldSchema("café", .string),
        FieldSchema("tags", .stringSet, maxCount: 2),
        FieldSchema("due", .date),
    ])

    private func check(
        _ values: [String: RecordValue], removing: Set<String> = [], model: ModelSchema = Self.model
    ) throws(AccordError) -> (changes: [FieldChange], namesID: Bool) {
        try RecordLayout.checkNamingID(values, removing: removing, id: "t1", model: model, names: FieldNames(model.fields))
    }

    /// Names made at run time (a long one lives in its own storage object, so its bits
    /// match no schema string) are found by their text, and every dictionary order
    /// gives the schema's order.
    @Test func namesMadeAtRunTimeAreFoundAndChangesComeInSchemaOrder() throws {
        let long = ["estimated", "Hours", "Remaining"].joined()
        for capacity in [0, 8, 64, 1_000] {
            var values: [String: RecordValue] = [:]
            values.reserveCapacity(capacity)
            values[String("due".reversed().reversed())] = "2026-12-01T09:30:00.000Z"
            values[long] = 3
            values["title"] = "x"
            values["done"] = true
            let checked = try check(values, removing: ["tags"])
            #expect(checked.changes.map(\.field) == ["title", "estimatedHoursRemaining", "done", "tags", "due"])
            #expect(checked.changes[1].value == 3)
            #expect(checked.changes[3].value == nil)
            #expect(!checked.namesID)
        }
    }

    /// A name canonically equivalent to a field's (decomposed é) names that field, as a
    /// `[String: …]` look-up does.
    @Test func aCanonicallyEquivalentNameNamesTheField() throws {
        let checked = try check(["cafe\u{301}": "latte"])
        #expect(checked.changes.map(\.field) == ["café"])
        #expect(checked.changes[0].value == "latte")
    }

    /// Of several wrong values the one first in the schema is named, every time.
    @Test func ofSeveralWrongValuesTheFirstInSchemaOrderIsNamed() {
        for capacity in [0, 8, 64, 1_000] {
            var values: [String: RecordValue] = [:]
            values.reserveCapacity(capacity)
            values["due"] = "tomorrow"
            values["tags"] = .stringSet(["a", "b", "c"])
            values["done"] = "yes"
            let error = #expect(throws: AccordError.self) { try check(values) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.details["field"] == "done")
        }
    }

    /// A wrong value is named before an unknown field; unknown fields are named by the
    /// first in code point order.
    @Test func wrongValuesComeBeforeUnknownFieldsAndUnknownOnesInCodePointOrder() {
        let wrong = #expect(throws: AccordError.self) { try check(["zeta": 1, "done": 2]) }
        #expect(wrong?.details["field"] == "done")
        let unknown = #expect(throws: AccordError.self) { try check(["zeta": 1, "beta": 2, "title": "x"], removing: ["alpha"]) }
        #expect(unknown?.message == "Model \"tasks\" has no field \"alpha\".")
    }

    /// A field both given and removed keeps the value given; the id, given or removed,
    /// is no change but is reported.
    @Test func aFieldGivenAndRemovedKeepsItsValueAndTheIdIsReported() throws {
        let both = try check(["title": "kept", "id": "t1"], removing: ["title"])
        #expect(both.changes.count == 1)
        #expect(both.changes[0].value == "kept")
        #expect(both.namesID)
        let declared = ModelSchema("notes", fields: [FieldSchema("id", .id, autoAssign: true), FieldSchema("text", .string)])
        let removedID = try check(["text": "x"], removing: ["id"], model: declared)
        #expect(removedID.changes.map(\.field) == ["text"])
        #expect(removedID.namesID)
        #expect(try !check([:]).namesID)
    }
}
