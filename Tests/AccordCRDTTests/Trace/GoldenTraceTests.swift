import Foundation
import Testing
import AccordCRDT
import AccordTesting

/// The automerge-paper trace, replayed as Yjs and Yrs replay it, must give their bytes.
@Suite struct GoldenTraceTests {
    @Test func automergePaperMatchesYjsBytes() throws {
        let trace = try EditingTrace.load("automerge-paper.json.gz")
        let doc = Doc(clientID: 3_000_000_000)
        let text = try doc.getText("text")
        try trace.replay(into: doc)
        #expect(text.string == trace.endContent)
        let update = doc.encodeStateAsUpdate()
        #expect(update.count == 311_038)
        #expect(SHA256.hex(update) == "5250bd37950f7e0fb1969cdc24dab04d88d51dad6c73773c5d18afe8b61ef3b5")

        let loaded = Doc()
        try loaded.applyUpdate(update)
        #expect(try loaded.getText("text").string == trace.endContent)
        #expect(loaded.encodeStateAsUpdate() == update)
    }
}
