@testable import AccordDatabase
import AccordCRDT
import AccordTesting
import Testing

/// Purges and expirations exist only in the document table (the rest of it is derived
/// from the store), so their commits are synced; the table's other commits are not.
@Suite struct DocumentTableSyncTests {
    @Test func durableTransactionsSyncTheirCommitAndOthersDoNot() throws {
        let folder = try TemporaryDirectory(prefix: "db")
        let table = try DocumentTable(path: folder.path + "/documents.sqlite")
        #expect(try table.synchronousLevel() == 1)
        var inside: Int64 = -1
        try table.durableTransaction { () throws(AccordError) in inside = try table.synchronousLevel() }
        #expect(inside == 2)
        #expect(try table.synchronousLevel() == 1)
        // A body that throws rolls back and still leaves the level as it was.
        #expect(throws: AccordError.self) {
            try table.durableTransaction { () throws(AccordError) in throw AccordError(.invalidArgument, "refused") }
        }
        #expect(try table.synchronousLevel() == 1)
    }
}
