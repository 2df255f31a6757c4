import Foundation
import Testing
import AccordCRDT
@testable import AccordStore
import AccordTesting

/// One id grammar everywhere: no empty, `.` or `..` segment (so no leading or trailing
/// `/` and no `//`), no control characters, 1 to 256 bytes. Ids stored before the rule
/// stay readable by the store.
@Suite struct DocumentIDGrammarTests {
    static let unaddressable = ["x/../y", "./c2", "p//q", ".", "..", "/", "a/", "/a", "a/.", "../a", "a/./b", "", "a\u{0}b",
                                "a\u{7F}", "a\nb"]
    static let fine = ["a+b", "a%2Fb", "a.b", "...", ".a", "a..", "team/notes", "a/b/c", "caf\u{E9}", "\u{301}x", "a b"]

    @Test(arguments: unaddressable)
    func unaddressableIDsAreInvalidArguments(_ raw: String) {
        let error = #expect(throws: AccordError.self) { try DocumentID(validating: raw) }
        #expect(error?.code == .invalidArgument, "\(raw.debugDescription)")
        #expect(DocumentID(rawValue: raw) == nil)
        let decoded = try? JSONDecoder().decode([DocumentID].self, from: Data(JSONEncoder().encode([raw])))
        #expect(decoded == nil)
    }

    @Test(arguments: fine)
    func everyOtherByteIsLiteral(_ raw: String) throws {
        #expect(try DocumentID(validating: raw).rawValue == raw)
    }

    @Test func aStoreCannotCreateAnUnaddressableID() throws {
        let store = DocumentStore(storage: .inMemory())
        for raw in Self.unaddressable {
            #expect(throws: AccordError.self) { try store.create(DocumentID(validating: raw)) }
        }
        #expect(try store.documents().isEmpty)
    }

    /// A store written before the rule keeps its documents: listed, loaded, appended to.
    @Test func idsStoredBeforeTheRuleStayReadable() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/old.sqlite"
        let legacy = try DocumentID(stored: "x/../y")
        do {
            let store = try DocumentStore(path: path)
            try store.create(legacy, title: "old")
            let doc = Doc(clientID: 1)
            try doc.getText("t").insert(0, "kept")
            _ = try store.append(doc.encodeStateAsUpdate(), to: legacy, isLocal: false)
            try store.close()
        }
        let store = try DocumentStore(path: path)
        #expect(try store.documents().map(\.id.rawValue) == ["x/../y"])
        #expect(try store.metadata(legacy).title == "old")
        #expect(try store.load(legacy).getText("t").string == "kept")
        try store.close()
    }
}
