import Testing
import AccordCRDT
import AccordPostgres
import AccordStore

/// The PostgreSQL adapter keeps every promise of `StorageAdapter`, across reopen.
@Suite struct PostgresConformanceTests {
    @Test func postgresAdapterConformsAcrossReopen() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let report = runStorageConformance(.persistent { slot in try database.adapter(slot) })
        #expect(report.passed, "\(report)")
        #expect(report.result(of: .reopen)?.outcome == .passed)
        #expect(report.results.count == StorageConformanceCheck.all.count)
    }

    /// Two adapters on one schema (two nodes) see each other's commits at once.
    @Test func twoAdaptersOnOneSchemaShareTheirData() throws {
        let database = try PostgresTestDatabase()
        defer { try? database.dropSchemas() }
        let first = try database.adapter()
        let second = try database.adapter()
        try first.commit([
            .put(StorageCategory("doc.meta"), key: "notes", value: [1, 2, 3]),
            .append(StorageCategory("doc.log"), key: "notes", sequence: 1, value: [9]),
        ])
        #expect(try second.read(StorageCategory("doc.meta"), key: "notes") == [1, 2, 3])
        #expect(try second.lastSequence(StorageCategory("doc.log"), key: "notes") == 1)
        // The sequence rule holds across writers: the second cannot append behind the first.
        let error = #expect(throws: AccordError.self) {
            try second.commit([.append(StorageCategory("doc.log"), key: "notes", sequence: 1, value: [8])])
        }
        #expect(error?.code == .invalidArgument)
        #expect(try first.readLog(StorageCategory("doc.log"), key: "notes").map(\.value) == [[9]])
    }
}
