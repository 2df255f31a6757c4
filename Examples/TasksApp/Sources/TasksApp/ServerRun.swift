import Accord
import Foundation

/// The demo against a sync server: write on one client, read on another.
enum ServerRun {
    static func run(server: String, token: String, folder: URL) async throws {
        let document = try DocumentID(validating: "tasksapp-\(UInt64(Date().timeIntervalSince1970 * 1000))")
        let writer = try AccordClient(serverURL: server, storePath: folder.appendingPathComponent("writer.sqlite").path) { _ in token }
        await writer.start()
        try await writer.create(document)
        try await writer.registerModels(Demo.types)
        try await Demo.run(in: document)
        // Wait (bounded) until the server acknowledged every write.
        for _ in 0..<500 where try writer.store.hasUnacknowledgedWrites(document) {
            try await _Concurrency.Task.sleep(nanoseconds: 20_000_000)
        }
        try check("server acknowledged the writes", try writer.store.hasUnacknowledgedWrites(document), false)
        await writer.stop()

        let reader = try AccordClient(serverURL: server, storePath: folder.appendingPathComponent("reader.sqlite").path) { _ in token }
        await reader.start()
        let records = try await reader.registerModels(Demo.types)
        try await reader.open(document, waitForLoad: .network)
        try check("the reader sees the tasks", try records.count("tasks"), 3)
        try check("and the relationships", try records.traverse("projects", id: records.findAll("projects")[0].id, in: document,
                                                                 relationship: "tasks").data.count, 3)
        await reader.stop()
    }
}
