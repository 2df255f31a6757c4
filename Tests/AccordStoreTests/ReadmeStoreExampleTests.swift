import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

/// The README's store example compiles and does what it says.
@Suite struct ReadmeStoreExampleTests {
    @Test func storeExampleRuns() throws {
        let dir = try TemporaryDirectory()
        // The example uses a relative path; run it in a scratch directory.
        let previous = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(dir.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        // Keep these lines identical to the README's store example (checked below).
        let store = try DocumentStore(path: "app.sqlite")          // WAL, synchronous=FULL
        let notes = try store.open(DocumentID(validating: "notes"), createIfMissing: true)
        try notes.doc.getText("body").insert(0, "Written offline")  // every transaction is logged
        try store.flush()                                           // durable, even across power loss
        let again = try store.load(DocumentID(validating: "notes"))
        #expect(try again.getText("body").string == "Written offline")
        #expect(FileManager.default.fileExists(atPath: dir.file("app.sqlite")))
    }

    @Test func readmeShowsThisExample() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md"), encoding: .utf8)
        for line in [
            "let store = try DocumentStore(path: \"app.sqlite\")          // WAL, synchronous=FULL",
            "let notes = try store.open(DocumentID(validating: \"notes\"), createIfMissing: true)",
            "try notes.doc.getText(\"body\").insert(0, \"Written offline\")  // every transaction is logged",
            "try store.flush()                                           // durable, even across power loss",
            "let again = try store.load(DocumentID(validating: \"notes\"))",
        ] {
            #expect(readme.contains(line), "README store example lost the line: \(line)")
        }
    }
}
