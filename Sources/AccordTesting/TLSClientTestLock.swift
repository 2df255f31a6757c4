import Foundation

/// Runs tests that make TLS client contexts (a `wss://` `WebSocketClient`, an
/// `HTTPClient(tls:)`, an `AccordClient` to `wss://`) one at a time across suites.
///
/// Why: libwebsockets 4.1 takes a new OpenSSL ex-data index each time a context is
/// created with `LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT` and keeps it in one global, so a
/// context created while another context's handshake is in flight makes that handshake
/// look its connection up under the new index, find nothing ("can't get wsi from ssl
/// privdata") and fail with "connect SSL err 1". Swift Testing runs suites in parallel
/// in one process; see docs/net.md for what this means for applications.
public final class TLSClientTestLock: @unchecked Sendable {
    public static let shared = TLSClientTestLock()

    // Invariant behind @unchecked Sendable: `held` and `waiters` are only touched under `lock`.
    private let lock = NSLock()
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// `body`'s result, run while no other `withLock` body runs.
    public func withLock<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            if held {
                waiters.append(continuation)
                lock.unlock()
            } else {
                held = true
                lock.unlock()
                continuation.resume()
            }
        }
    }

    private func release() {
        lock.lock()
        guard !waiters.isEmpty else {
            held = false
            lock.unlock()
            return
        }
        let next = waiters.removeFirst()
        lock.unlock()
        next.resume()  // `held` stays true: the lock passes to `next`
    }
}
