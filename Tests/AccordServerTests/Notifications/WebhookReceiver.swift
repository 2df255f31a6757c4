import Foundation
import AccordNet

/// A webhook on 127.0.0.1 for tests: answers 500 to the first `failFirst` POSTs, and
/// acts on each idempotency key once (what a well-behaved receiver does), answering 200
/// to a key it has acted on already. With `actBeforeFailing`, a failing POST still
/// acts first (the receiver did the work, then its answer was lost).
final class WebhookReceiver: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: the vars are only touched under `lock`.
    struct Post: Sendable {
        var key: String
        var attempt: String
        var body: [UInt8]
        var contentType: String
    }

    private let lock = NSLock()
    private var failuresLeft: Int
    private let actBeforeFailing: Bool
    private var posts: [Post] = []
    /// Key → acted on (once, by construction; the test checks which keys arrived).
    private var effects: [String: Int] = [:]
    private var server: WebSocketServer?
    private let scheme: String

    /// `https://localhost…` when it serves TLS (the test certificate names localhost).
    var url: String {
        "\(scheme)://\(scheme == "https" ? "localhost" : "127.0.0.1"):\(lock.withLock { server?.port ?? 0 })/hook"
    }

    /// - Parameter tls: serve `https://` with this certificate; nil, plain `http://`.
    init(failFirst: Int, actBeforeFailing: Bool = false, tls: ServerTLS? = nil) throws {
        scheme = tls == nil ? "http" : "https"
        failuresLeft = failFirst
        self.actBeforeFailing = actBeforeFailing
        var routes = HTTPRoutes()
        routes.add(.post, "/hook") { [weak self] request in self?.receive(request) ?? HTTPResponse(status: 503, text: "gone\n") }
        var configuration = WebSocketServer.Configuration(
            routes: routes, customHeaders: ["idempotency-key", "accord-delivery-attempt"], shouldUpgrade: { _ in false })
        configuration.tls = tls
        let server = try WebSocketServer(configuration)
        lock.withLock { self.server = server }
    }

    private func receive(_ request: HTTPRequest) -> HTTPResponse {
        lock.withLock {
            let key = request.header("idempotency-key") ?? ""
            posts.append(Post(
                key: key, attempt: request.header("accord-delivery-attempt") ?? "", body: request.body,
                contentType: request.header("content-type") ?? ""))
            let failing = failuresLeft > 0
            if failing { failuresLeft -= 1 }
            // A key seen before is not acted on again: that is what makes it idempotent.
            if (!failing || actBeforeFailing) && effects[key] == nil { effects[key] = 1 }
            return failing ? HTTPResponse(status: 500, text: "try later\n") : HTTPResponse(status: 200, text: "ok\n")
        }
    }

    var allPosts: [Post] { lock.withLock { posts } }
    var acted: [String: Int] { lock.withLock { effects } }

    func stop() async {
        let server = lock.withLock { self.server }
        await server?.stop(gracePeriod: .milliseconds(100))
    }
}
