import AccordCRDT
import AccordStore
import AccordSync
import Foundation

/// `AccordClient`s of a case, each over its own SQLite store file with the default
/// options (WAL, `synchronous=FULL`, 10 ms flush delay), as an app would run it.
struct BenchClients {
    let server: RunningServer
    let directory: String

    var url: String { "ws://127.0.0.1:\(server.port)" }

    /// A new client over `<directory>/<name>.sqlite` (created or reopened), not started.
    func client(_ name: String) throws -> (AccordClient, DocumentStore) {
        let store: DocumentStore
        do {
            store = try DocumentStore(path: (directory as NSString).appendingPathComponent("\(name).sqlite"))
        } catch {
            throw BenchFailure("cannot open the store of client \(name): \(error)")
        }
        let token = server.token ?? ""
        return (AccordClient(serverURL: url, store: store) { token }, store)
    }

    /// Polls `condition` every millisecond until it holds; throws after `timeout`.
    static func waitUntil(
        _ what: String, timeout: Duration = .seconds(60), _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw BenchFailure("timed out after \(timeout): \(what)") }
            try await Task.sleep(for: .milliseconds(1))
        }
    }
}
