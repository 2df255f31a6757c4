import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import AccordServer

/// An in-process server on 127.0.0.1, port 0, over a SQLite store in a temporary
/// directory, with a fixed secret so tests mint tokens for any user.
final class TestServer: @unchecked Sendable {
    static let secret = Array("accord-test-secret-0123456789abcdef".utf8)
    let directory: TemporaryDirectory
    let tokens: TokenAuthority
    let configuration: AccordServer.Configuration
    private(set) var documents: DocumentStore
    private(set) var server: AccordServer
    private var isRunning = true

    var port: Int { server.port }
    var path: String { directory.path + "/accord.sqlite" }

    init(_ configure: (inout AccordServer.Configuration) -> Void = { _ in }) throws {
        directory = try TemporaryDirectory()
        tokens = try TokenAuthority(secret: Self.secret)
        var configuration = AccordServer.Configuration()
        configure(&configuration)
        self.configuration = configuration
        documents = try DocumentStore(path: directory.path + "/accord.sqlite")
        server = try AccordServer(configuration: configuration, documents: documents, tokens: tokens)
    }

    func token(_ user: String) -> String { tokens.mint(subject: user, ttl: 3600) }

    /// A test client as `user` (nil: no token); on `/v1/sync/{id}` it asks for
    /// Accord's messages unless `accordMessages` is false (a stock client).
    func client(_ user: String?, document: DocumentID?, accordMessages: Bool = true) async throws -> SyncTestClient {
        try await SyncTestClient.connect(
            port: port, document: document, token: user.map(token), accordMessages: accordMessages)
    }

    /// Stops the server and reopens the same files on a new port, as after a restart.
    func restart() async throws {
        try await stop()
        documents = try DocumentStore(path: path)
        server = try AccordServer(configuration: configuration, documents: documents, tokens: tokens)
        isRunning = true
    }

    func stop() async throws {
        guard isRunning else { return }
        isRunning = false
        try await server.stop()
        try documents.close()
    }

    // MARK: REST

    struct Response {
        var status: Int
        var json: Any?
        var body: String
        var errorCode: String? { ((json as? [String: Any])?["error"] as? [String: Any])?["code"] as? String }
    }

    func request(_ method: String, _ path: String, user: String?, json: Any? = nil) async throws -> Response {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
        request.httpMethod = method
        if let user { request.setValue("Bearer \(token(user))", forHTTPHeaderField: "Authorization") }
        if let json {
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        return Response(status: status, json: try? JSONSerialization.jsonObject(with: data), body: String(decoding: data, as: UTF8.self))
    }
}
