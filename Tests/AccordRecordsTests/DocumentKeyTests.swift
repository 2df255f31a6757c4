@testable import AccordRecords
import AccordCRDT
import AccordStore
import Testing

/// The integer keys that stand for documents in the index's model tables.
@Suite struct DocumentKeyTests {
    /// A key made in a transaction that rolls back is forgotten with it: asked for
    /// again, the document gets a key that exists (a remembered one would file its rows
    /// under a number SQLite may then give to another document).
    @Test func aKeyMadeInARolledBackTransactionIsForgotten() throws {
        let index = try RecordIndex(path: ":memory:")
        #expect(throws: AccordError.self) {
            try index.locked { () throws(AccordError) in
                try index.transaction { () throws(AccordError) in
                    _ = try index.documentKey("first", creating: true)
                    throw AccordError(.invalidArgument, "refused on purpose")
                }
            }
        }
        let holder = try index.locked { () throws(AccordError) -> String? in
            var key: Int64?
            try index.transaction { () throws(AccordError) in key = try index.documentKey("first", creating: true) }
            var holder: String?
            try index.connection.prepare("SELECT document FROM accord_index_document_keys WHERE key = ?")
                .forEachRow([.integer(key ?? -1)]) { row in holder = row.text(0) }
            return holder
        }
        #expect(holder == "first")
    }

    /// Keys are found by the id's exact text: canonically equivalent ids are two documents.
    @Test func canonicallyEquivalentIdsGetTwoKeys() throws {
        let index = try RecordIndex(path: ":memory:")
        let keys = try index.locked { () throws(AccordError) -> [Int64?] in
            var keys: [Int64?] = []
            try index.transaction { () throws(AccordError) in
                for id: DocumentID in ["caf\u{E9}", "cafe\u{301}", "caf\u{E9}"] { keys.append(try index.documentKey(id, creating: true)) }
            }
            return keys
        }
        #expect(keys[0] != nil && keys[1] != nil)
        #expect(keys[0] != keys[1])
        #expect(keys[0] == keys[2])
    }
}
