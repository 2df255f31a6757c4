import AccordNet
import Foundation

/// The simulated clients of one load case, on one `WebSocketClientPool` (one lws context
/// and service thread for all of them).
///
/// One pool, not several: lws polls every fd of a context on each wakeup and keeps its
/// timers in one sorted list, so a context's cost per event grows with its connections;
/// but splitting ten thousand clients over eight pools measured more client CPU, not
/// less (each poll then carries fewer ready events), so the simple shape stays.
final class ClientFleet: Sendable {
    let pool: WebSocketClientPool

    /// - Parameter trusting: a CA file for wss:// servers (`--tls`); nil, plain ws:// only.
    init(trusting caFile: String? = nil) throws(BenchFailure) {
        do {
            pool = try WebSocketClientPool(
                name: "accord-bench.clients", tls: caFile.map { ClientTLS(trustedCertificatesFile: $0) })
        } catch {
            throw BenchFailure("cannot create the client pool: \(error)")
        }
    }

    /// Opens `count` clients (`make(i)` connected to `url(i)`) and waits for each to
    /// sync, with at most `window` connects in flight (a burst of thousands would only
    /// fill the server's accept backlog and time out). Returns the clients in order, nil
    /// where connecting or syncing failed, and the reasons of those failures.
    func open(
        count: Int, window: Int = 64, syncTimeout: Duration = .seconds(30),
        url: @escaping @Sendable (Int) -> String, make: @escaping @Sendable (Int) throws -> SyncClient
    ) async -> (clients: [SyncClient?], failures: [String]) {
        let pool = self.pool
        return await withTaskGroup(of: (Int, Result<SyncClient, BenchFailure>).self) { group in
            var clients = [SyncClient?](repeating: nil, count: count)
            var failures: [String] = []
            var next = 0
            func addNext() {
                let index = next
                next += 1
                group.addTask {
                    do {
                        let client = try make(index)
                        try await client.connect(pool, to: url(index))
                        guard await client.waitSynced(timeout: syncTimeout) else {
                            client.close()
                            return (index, .failure(BenchFailure("client \(index) not synced within \(syncTimeout)")))
                        }
                        return (index, .success(client))
                    } catch {
                        return (index, .failure(BenchFailure("client \(index): \(error)")))
                    }
                }
            }
            while next < min(window, count) { addNext() }
            for await (index, result) in group {
                switch result {
                case .success(let client): clients[index] = client
                case .failure(let failure): failures.append(failure.description)
                }
                if next < count { addNext() }
            }
            return (clients, failures)
        }
    }

    /// Closes every connection (1001) and ends the pool's thread.
    func stop() async { await pool.stop() }

    /// Checks `condition` every 2 ms until it holds (true) or `timeout` passes (false).
    static func poll(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }
}
