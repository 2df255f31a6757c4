import Foundation
import Testing
import AccordCRDT

/// The README's usage example compiles and does what it says.
@Suite struct ReadmeExampleTests {
    @Test func usageExampleRuns() throws {
        // Keep this body identical to the Swift block in README.md (checked below).
        let alice = Doc(clientID: 1)
        let text = try alice.getText("body")
        try text.insert(0, "Hello world")
        try text.format(0, 5, ["bold": true])
        try alice.getMap("meta").set("title", "Greeting")

        let bob = Doc(clientID: 2)
        try bob.applyUpdate(alice.encodeStateAsUpdate())   // any order, any number of times
        #expect(try bob.getText("body").string == "Hello world")
        #expect(try bob.getMap("meta").get("title")?.value == "Greeting")
        #expect(try bob.getText("body").delta.count == 2)
    }

    @Test func readmeShowsThisExample() throws {
        let readme = try String(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("README.md"), encoding: .utf8)
        for line in [
            "let alice = Doc(clientID: 1)",
            "let text = try alice.getText(\"body\")",
            "try text.insert(0, \"Hello world\")",
            "try text.format(0, 5, [\"bold\": true])",
            "try alice.getMap(\"meta\").set(\"title\", \"Greeting\")",
            "let bob = Doc(clientID: 2)",
            "try bob.applyUpdate(alice.encodeStateAsUpdate())   // any order, any number of times",
            "print(try bob.getText(\"body\").string)              // Hello world",
        ] {
            #expect(readme.contains(line), "README example lost the line: \(line)")
        }
    }
}
