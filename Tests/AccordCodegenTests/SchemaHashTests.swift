import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Testing

/// A generated model whose schema no longer hashes to its embedded hash: as if someone
/// edited the generated file's schema by hand.
struct EditedNote: Model {
    static let schema = ModelSchema("edited_notes", fields: [FieldSchema("text", .string), FieldSchema("extra", .number)])
    // The hash of the schema before `extra` was added by hand.
    static let schemaHash: String? = "9d5b1f0c6f6f2a1d7c1b1f0c6f6f2a1d7c1b1f0c6f6f2a1d7c1b1f0c6f6f2a1d"
    var storage: RecordStorage
    init(storage: RecordStorage) { self.storage = storage }
}

@Suite(.timeLimit(.minutes(1))) struct SchemaHashTests {
    @Test func registeringAModelWhoseSchemaDoesNotMatchItsHashThrowsAndSaysToRerunCodegen() async throws {
        let client = AccordClient(serverURL: "ws://127.0.0.1:9", store: DocumentStore(storage: .inMemory())) { "t" }
        await client.goOffline()
        await client.start()
        do {
            try await client.registerModels([Project.self, EditedNote.self])
            Issue.record("a mismatched schema hash registered")
        } catch {
            #expect(error.code == .invalidSchema)
            #expect(error.details["reason"] == "schemaHashMismatch")
            #expect(error.details["expected"] == EditedNote.schemaHash)
            #expect(error.details["actual"] == (try EditedNote.schema.schemaHash))
            #expect(error.message.contains("Re-run `accord codegen`"))
        }
        // Nothing was registered, not even the model before it.
        #expect(client.records?.models["projects"] == nil)
        await client.stop()
    }

    @Test func generatedModelsCarryTheHashOfTheirSchema() throws {
        for type in GeneratedModelTests.types {
            #expect(type.schemaHash == (try type.schema.schemaHash))
        }
        // The hash is of the canonical JSON text: stable, 64 hex digits, option-sensitive.
        let plain = ModelSchema("notes", fields: [FieldSchema("text", .string)])
        let indexed = ModelSchema("notes", fields: [FieldSchema("text", .string, indexed: true)])
        #expect(try plain.schemaHash.utf8.count == 64)
        #expect(try plain.schemaHash == ModelSchema("notes", fields: [FieldSchema("text", .string)]).schemaHash)
        #expect(try plain.schemaHash != indexed.schemaHash)
    }
}
