import AccordCRDT
import Foundation
import Testing

/// `accord records` with the schema in `models.toml`, the dialect codegen reads.
@Suite struct RecordsTOMLSchemaTests {
    static let toml = """
        [models.tasks.fields.id]
        type = "id"
        auto_assign = true

        [models.tasks.fields.title]
        type = "string"
        indexed = true

        [models.tasks.fields.hours]
        type = "number"
        default = 1
        """

    @Test func aModelsTomlSchemaWorksLikeItsJSONForm() throws {
        let dir = try TemporaryDirectory()
        _ = try dir.write(Array(Self.toml.utf8), to: "models.toml")
        let put = try dir.run(
            ["records", "put", "--store", "s.sqlite", "--doc", "a", "--schema", "models.toml"],
            stdin: #"{"id":"t1","title":"from toml"}"# + "\n")
        #expect(put.status == 0, "\(put.stderr)")
        let query = try dir.run(["records", "query", "--store", "s.sqlite", "--schema", "models.toml", #"{"hours":1}"#])
        #expect(query.status == 0, "\(query.stderr)")
        let page = try AnyValue(jsonText: query.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(page["data"]?.arrayValue?.first?["title"] == "from toml")

        // A TOML schema that breaks the dialect exits 65 naming the block.
        _ = try dir.write(Array("[models.tasks.fields.type]\ntype = \"string\"\n".utf8), to: "bad.toml")
        let bad = try dir.run(["records", "count", "--store", "s.sqlite", "--schema", "bad.toml"])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("RESERVED_FIELD_NAME"))
        #expect(bad.stderr.contains("[models.tasks.fields.type]"))
    }
}
