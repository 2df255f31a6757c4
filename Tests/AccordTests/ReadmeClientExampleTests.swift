import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting

/// The README's client example runs as written, against an in-process server.
@Suite(.timeLimit(.minutes(1))) struct ReadmeClientExampleTests {
    @Test func clientExampleRuns() async throws {
        let directory = try TemporaryDirectory(prefix: "accord-readme")
        let tokens = try TokenAuthority(secret: Array("accord-readme-test-secret-0123456789".utf8))
        let server = try AccordServer(
            configuration: AccordServer.Configuration(), documents: try DocumentStore(path: directory.file("server.sqlite")),
            tokens: tokens)
        let serverURL = "ws://127.0.0.1:\(server.port)"
        let token = tokens.mint(subject: "alice", ttl: 3600)
        let laptop = try AccordClient(serverURL: serverURL, storePath: directory.file("laptop.sqlite")) { _ in token }
        await laptop.start()
        let storePath = directory.file("phone.sqlite")

        // Keep these lines identical to the README's client example (checked below).
        let client = try AccordClient(serverURL: serverURL, storePath: storePath) { _ in token }
        await client.start()                                  // connects; reconnects by itself
        let notes = try await client.documents.create(title: "Notes")
        try await notes.edit { doc in try doc.getText("body").insert(0, "Hello") }
        // (Not in the README: the edit has to reach the server before another device
        // can load it from there.)
        for _ in 0..<500 where await !notes.isSynced { try await Task.sleep(for: .milliseconds(20)) }
        let copy = try await laptop.documents.open(notes.id, waitForLoad: .network)

        #expect(try await copy.edit { doc in try doc.getText("body").string } == "Hello")
        await client.stop()
        await laptop.stop()
        try await server.stop()
    }

    @Test func readmeShowsThisExample() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md"), encoding: .utf8)
        for line in [
            "import Accord",
            "let client = try AccordClient(serverURL: serverURL, storePath: storePath) { _ in token }",
            "await client.start()                                  // connects; reconnects by itself",
            "let notes = try await client.documents.create(title: \"Notes\")",
            "try await notes.edit { doc in try doc.getText(\"body\").insert(0, \"Hello\") }",
            "let copy = try await laptop.documents.open(notes.id, waitForLoad: .network)",
        ] {
            #expect(readme.contains(line), "README client example lost the line: \(line)")
        }
    }
}
