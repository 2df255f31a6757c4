import Testing
import AccordCRDT

/// `rootKind(name:)` and `inferredRootJSON(name:)` on documents built from updates only.
@Suite struct DocInspectTests {
    /// A document that received `build`'s edits as an update, so it knows its roots
    /// only by name.
    static func received(_ build: (Doc) throws -> Void) throws -> Doc {
        let source = Doc(clientID: 1)
        try build(source)
        let doc = Doc(clientID: 2)
        try doc.applyUpdate(source.encodeStateAsUpdate())
        return doc
    }

    @Test func textIsInferredFromStringsAndFormats() throws {
        let doc = try Self.received { d in
            let t = try d.getText("body")
            try t.insert(0, "Hello world")
            try t.format(0, 5, ["bold": true])
        }
        #expect(doc.rootKind(name: "body") == .text)
        let json = try #require(doc.inferredRootJSON(name: "body"))
        #expect(json.objectValue?["string"] == .string("Hello world"))
        #expect(json.objectValue?["delta"] == .array([
            .object(OrderedObject([("insert", "Hello"), ("attributes", .object(OrderedObject([("bold", true)])))])),
            .object(OrderedObject([("insert", " world")])),
        ]))
    }

    @Test func mapIsInferredFromEntries() throws {
        let doc = try Self.received { d in
            let m = try d.getMap("config")
            try m.set("a", 1)
            try m.setArray("list").append(["x"])
        }
        #expect(doc.rootKind(name: "config") == .map)
        #expect(doc.inferredRootJSON(name: "config") == .object(OrderedObject([("a", 1), ("list", .array(["x"]))])))
    }

    @Test func arrayIsTheDefault() throws {
        let doc = try Self.received { d in try d.getArray("items").append([1, "two"]) }
        #expect(doc.rootKind(name: "items") == .array)
        #expect(doc.inferredRootJSON(name: "items") == [1, "two"])
    }

    /// Inference reads without fixing the kind: the app may still ask for any kind.
    @Test func inferenceDoesNotFixTheKind() throws {
        let doc = try Self.received { d in try d.getArray("items").append([1]) }
        _ = doc.inferredRootJSON(name: "items")
        #expect(throws: Never.self) { _ = try doc.getMap("items") }
    }

    @Test func kindFromTheAPIWins() throws {
        let doc = Doc(clientID: 1)
        _ = try doc.getText("empty")
        #expect(doc.rootKind(name: "empty") == .text)
        #expect(doc.inferredRootJSON(name: "empty") == .object(OrderedObject([("string", ""), ("delta", .array([]))])))
        #expect(doc.rootKind(name: "absent") == nil)
        #expect(doc.inferredRootJSON(name: "absent") == nil)
    }
}
