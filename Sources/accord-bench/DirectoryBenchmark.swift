import AccordCRDT
import AccordNet
import AccordServer
import AccordStore
import Foundation

/// `accord-bench directory`: the server's directory in process, on a SQLite file.
///
/// - `owned_list_10k`: a user owning `documents` documents asks for the first page of
///   50 (`GET /v1/me/documents`, the whole handler: listing, details, JSON); p50/p99.
/// - `owned_list_10k_middle`: the same for a page in the middle (a cursor).
/// - `shared_list_10k`: the first page of 50 of the `documents` documents shared with
///   another user by direct grants (`GET /v1/me/shared`).
/// - `alias_race_20`: 20 threads call get-or-create on one new alias at once, until all
///   have their answer; checks exactly one created it.
struct DirectoryBenchmark {
    var documents = 10_000
    var samples = 200
    var directory = FileManager.default.temporaryDirectory.path
    /// Members of the group in `grant_fanout`; 0 skips it.
    var members = 1_000

    static let usage = """
          accord-bench directory [--documents N] [--samples N] [--members M] [--dir DIR]
              The server's document directory in process on a SQLite file in DIR:
              owned_list_10k and owned_list_10k_middle (a page of 50 of a user's N owned
              documents through the REST handler; p50_ms, p99_ms; target p99 under 10 ms),
              shared_list_10k (a page of 50 of N documents granted to another user),
              alias_race_20 (20 threads racing get-or-create on one alias; exactly one
              creates), grant_fanout (a grant to a group of M members until every one of
              them, connected on /v1/sync, has its PermissionEvent; target under 1 s).
              Default N 10000, M 1000 (--members M; 0 skips it).
        """

    func run() throws -> Int32 {
        let path = directory + "/accord-bench-directory-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try DocumentStore(path: path)
        let directory = DocumentDirectory(documents: store, access: AccessStore(storage: store.storage))
        let api = DocumentsAPI(
            directory: directory,
            authenticate: { request throws(AccordError) in
                guard let user = request.header("x-user") else { throw AccordError(.invalidArgument, "no user") }
                return user
            },
            accessChanged: { _ in })
        for index in 0..<documents {
            try directory.create(DocumentID(validating: "doc-\(index)"), owner: "olivia", title: "Document \(index)")
        }
        try store.flush()

        for index in 0..<documents {
            let grant = api.respond(to: HTTPRequest(
                method: .put, path: "/v1/documents/doc-\(index)/permissions", headers: ["x-user": "olivia"],
                body: Array(#"{"user":"rita","role":"reader"}"#.utf8)))
            guard grant.status == 200 else { throw BenchFailure("grant answered \(grant.status)") }
        }
        try store.flush()

        func page(_ cursor: String?, path: String = "/v1/me/documents", user: String = "olivia") throws -> HTTPResponse {
            var query = [QueryItem(name: "limit", value: "50")]
            if let cursor { query.append(QueryItem(name: "cursor", value: cursor)) }
            let response = api.respond(to: HTTPRequest(method: .get, path: path, query: query, headers: ["x-user": user]))
            guard response.status == 200 else { throw BenchFailure("listing answered \(response.status)") }
            return response
        }
        let (first, firstResponse) = try Timing.measure(samples: samples) { try page(nil) }
        emit("owned_list_10k", first, bytes: firstResponse.body.count)
        // The cursor of the page halfway through: walk there once.
        var cursor: String?
        for _ in 0..<(documents / 50 / 2) {
            let object = try AnyValue(jsonText: String(decoding: try page(cursor).body, as: UTF8.self))
            cursor = object.objectValue?["nextCursor"]?.stringValue
        }
        let (middle, middleResponse) = try Timing.measure(samples: samples) { try page(cursor) }
        emit("owned_list_10k_middle", middle, bytes: middleResponse.body.count)
        let (shared, sharedResponse) = try Timing.measure(samples: samples) { try page(nil, path: "/v1/me/shared", user: "rita") }
        emit("shared_list_10k", shared, bytes: sharedResponse.body.count)

        var round = 0
        let (race, created) = try Timing.measure(samples: max(samples / 10, 5)) { () throws -> Int in
            round += 1
            let key = "race-\(round)"
            let tally = CreatedTally()
            DispatchQueue.concurrentPerform(iterations: 20) { _ in
                if (try? directory.documentForAlias(user: "racer", key: key).created) == true { tally.add() }
            }
            return tally.count
        }
        guard created == 1 else { throw BenchFailure("alias_race_20: \(created) calls created the document") }
        emit("alias_race_20", race, bytes: nil)
        guard members > 0 else { return 0 }
        let fanout = GrantFanoutCase(members: members, samples: max(3, min(samples / 20, 10)), directory: self.directory)
        return AsyncCases.run {
            do {
                try await fanout.run().emit()
                return 0
            } catch {
                TraceBenchmark.log("grant_fanout: \(error)")
                return 1
            }
        }
    }

    private func emit(_ name: String, _ timing: Timing, bytes: Int?) {
        var record = BenchRecord(name: name, trace: "directory_\(documents)", timing: timing)
        let sorted = timing.samples.sorted()
        record["p50_ms"] = BenchRecord.rounded(sorted[sorted.count / 2])
        record["p99_ms"] = BenchRecord.rounded(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))])
        if let bytes { record["bytes"] = BenchRecord.int(bytes) }
        record.emit()
    }

    static func parse(_ args: [String]) throws(BenchFailure) -> DirectoryBenchmark {
        var bench = DirectoryBenchmark()
        var words = BenchArguments(args)
        while let arg = words.next() {
            switch arg {
            case "--documents": bench.documents = try words.count(arg)
            case "--samples": bench.samples = try words.count(arg)
            case "--dir": bench.directory = try words.value(arg)
            case "--members":
                let text = try words.value(arg)
                guard let members = Int(text), members >= 0 else {
                    throw BenchFailure.usage("--members needs a whole number >= 0, not '\(text)'")
                }
                bench.members = members
            default: throw BenchFailure.usage("unexpected argument '\(arg)'")
            }
        }
        return bench
    }
}

/// How many racing calls reported `created`, counted from many threads.
private final class CreatedTally: @unchecked Sendable {
    // Invariant: `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
