import Foundation
import Testing
import Accord
import AccordServer
import AccordTesting
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `client.me.ownedDocuments(waitForLoad:)`: the local-first listing answers from the
/// device at once (a document just created included), refreshes in the background, and
/// `.network` waits for the server or fails; it never answers stale rows.
@Suite(.timeLimit(.minutes(1))) struct LocalListingTests {
    let directory: TemporaryDirectory
    let tokens: TokenAuthority

    init() throws {
        directory = try TemporaryDirectory(prefix: "accord-local-listing")
        tokens = try TokenAuthority(secret: Array("accord-local-listing-secret-0123456789".utf8))
    }

    private func client(_ user: String, port: Int) throws -> AccordClient {
        let token = tokens.mint(subject: user, ttl: 3600)
        return try AccordClient(serverURL: "ws://127.0.0.1:\(port)", storePath: directory.file("\(user)-\(UUID()).sqlite")) { _ in
            token
        }
    }

    private func startServer() throws -> (AccordServer, DocumentStore) {
        var configuration = AccordServer.Configuration()
        configuration.port = 0
        let store = try DocumentStore(path: directory.file("server-\(UUID()).sqlite"))
        return (try AccordServer(configuration: configuration, documents: store, tokens: tokens), store)
    }

    @Test func aDocumentJustCreatedIsListedOnItsDeviceBeforeTheServerKnowsIt() async throws {
        let (fd, port) = try listeningSocket()
        defer { close(fd) }
        let olivia = try client("olivia", port: port)   // never started: offline
        _ = try await olivia.documents.create("b", title: "Second", tags: ["work"])
        _ = try await olivia.documents.create("a", title: "First", tags: ["home"], metadata: .object(["n": .int(1)]))
        _ = try await olivia.documents.create("private", localOnly: true)

        let page = try await olivia.me.ownedDocuments()
        #expect(page.documents.map(\.id) == ["b", "a"])   // oldest first; local-only documents are not on the server
        #expect(page.documents.map(\.title) == ["Second", "First"])
        #expect(page.documents.allSatisfy { $0.permission == .owner })
        #expect(page.documents.last?.metadata == .object(["n": .int(1)]))
        #expect(try await olivia.me.ownedDocuments(tag: "home").documents.map(\.id) == ["a"])

        // Paging locally: every document once.
        let first = try await olivia.me.ownedDocuments(limit: 1)
        let cursor = try #require(first.nextCursor)
        let second = try await olivia.me.ownedDocuments(limit: 1, cursor: cursor)
        #expect(first.documents.map(\.id) + second.documents.map(\.id) == ["b", "a"] && second.nextCursor == nil)
        let bad = await #expect(throws: AccordError.self) { try await olivia.me.ownedDocuments(cursor: "local:x") }
        #expect(bad?.code == .invalidArgument)

        // The network listing waits for an answer that never comes, and fails.
        let started = ContinuousClock.now
        let timedOut = await #expect(throws: AccordError.self) {
            try await olivia.me.ownedDocuments(waitForLoad: .network, timeout: .milliseconds(300))
        }
        #expect(timedOut?.code == .networkTimeout)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func theLocalListingCatchesUpWithTheServerInTheBackground() async throws {
        let (server, serverStore) = try startServer()
        let laptop = try client("olivia", port: server.port)
        let phone = try client("olivia", port: server.port)
        await laptop.start()
        let synced = laptop.expectEvent(DocumentSyncStateChangedEvent.self) { $0.state == .synced }
        _ = try await laptop.documents.create("notes", title: "Notes")
        _ = try await synced.value()
        #expect(try serverStore.metadata("notes").title == "Notes")

        // The phone (not connected, nothing cached) lists nothing locally, then learns of
        // it from the background refresh the listing started.
        let learned = phone.expectEvent(DocumentMetadataChangedEvent.self) { $0.documentID == "notes" }
        #expect(try await phone.me.ownedDocuments().documents.isEmpty)
        #expect(try await learned.value(timeout: .seconds(5)).document?.title == "Notes")
        #expect(try await phone.me.ownedDocuments().documents.map(\.title) == ["Notes"])
        #expect(try await phone.me.ownedDocuments(waitForLoad: .localElseNetwork).documents.map(\.id) == ["notes"])

        // Confirmed by the server, the laptop's entry is the server's (owner known).
        try await waitUntil { (try? await laptop.cachedDocument("notes"))?.owner == "olivia" }
        #expect(try await laptop.me.ownedDocuments().documents.map(\.owner) == ["olivia"])
        // A network page is the server's, and is cached.
        let network = try await phone.me.ownedDocuments(waitForLoad: .network)
        #expect(network.documents.map(\.id) == ["notes"])
        await laptop.stop()
        await phone.stop()
        try await server.stop()
        try serverStore.close()
    }

    private func waitUntil(_ condition: () async -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else { throw AccordError(.unavailable, "timed out") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// A TCP socket on 127.0.0.1 that accepts connections (in the kernel's backlog) and
    /// never answers.
    private func listeningSocket() throws -> (fd: Int32, port: Int) {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw AccordError(.ioError, "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw AccordError(.ioError, "bind failed")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
