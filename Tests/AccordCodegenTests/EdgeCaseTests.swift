import AccordCodegen
import AccordRecords
import Foundation
import Testing

/// Keywords, escapes and defaults of every type: the committed output compiles (it is
/// part of this target) and reads back what the schema says.
@Suite struct EdgeCaseTests {
    static let folder = CodegenFixture.testsFolder.appendingPathComponent("GeneratedEdgeCases")

    @Test func theEdgeCaseSchemaGeneratesTheCommittedFiles() throws {
        let files = try SwiftModelGenerator(sourceName: "edge.json").files(for: EdgeCaseSchema.models())
        #expect(files.map(\.name) == (try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()))
        for file in files {
            let golden = try String(contentsOf: Self.folder.appendingPathComponent(file.name), encoding: .utf8)
            #expect(file.contents == golden, "\(file.name) differs from the golden copy")
        }
    }

    @Test func keywordNamedFieldsReadTheirDefaultsAndEscapedText() throws {
        var thing = KeywordThing(id: "k1")
        #expect(thing.default == "quote \" backslash \\ newline \n tab \t é")
        #expect(thing.class == -2.5)
        #expect(thing.in == ["a", "b"])
        #expect(thing.when == Date(timeIntervalSince1970: 1_772_368_200.25))
        #expect(thing.whenISO8601 == "2026-03-01T12:30:00.250Z")
        #expect(thing.is)
        thing.in = []
        #expect(thing.in.isEmpty)  // set, so no longer the default
        #expect(KeywordThing.Field.allCases.map(\.rawValue) == ["id", "default", "class", "in", "when", "static", "is", "ownerId"])
        #expect(KeywordThing.UniqueConstraintName.forIn.rawValue == "for_in")
        #expect(try KeywordThing.schema.schemaHash == KeywordThing.schemaHash)
        #expect(try Owner.schema.schemaHash == Owner.schemaHash)
    }
}
