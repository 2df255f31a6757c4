import AccordCRDT
import AccordNet
import AccordStore
import AccordTesting
import Foundation
import Testing
@testable import AccordServer

/// Issue 14 item 3: clients that never read their socket. On the old server, 60 tiny
/// step 1 frames on a 10 MB document queued 60 copies of it (537 MB), and every update
/// fanned out to a stalled reader stayed in memory for as long as it lived.
@Suite(.timeLimit(.minutes(2)))
struct SlowConsumerServerTests {
    static let megabyte = 1 << 20
    static let cap = WebSocketServer.defaultMaxQueuedBytes

    /// A document of `megabytes` MiB written by a client that stays connected (its Doc
    /// keeps the text); returns once the server has stored every update.
    private func largeDocument(
        _ server: TestServer, _ id: DocumentID, megabytes: Int
    ) async throws -> SyncTestClient {
        let writer = try await server.client("ada", document: id)
        try await eventually("writer joined") { writer.frames.contains { if case .sync(.step1) = $0.frame { true } else { false } } }
        let before = server.server.metrics.snapshot.persistCount
        for index in 0..<megabytes {
            try append(megabytes: 1, index: index, to: writer, id)
        }
        try await eventually("stored", timeout: .seconds(60)) {
            server.server.metrics.snapshot.persistCount >= before + megabytes
        }
        return writer
    }

    private func append(megabytes: Int, index: Int, to writer: SyncTestClient, _ id: DocumentID) throws {
        let chunk = String(repeating: Character(UnicodeScalar(UInt8(97 + index % 26))), count: megabytes * Self.megabyte)
        try writer.edit(id) { doc in try doc.getText("t").insert(doc.getText("t").length, chunk) }
    }

    private func length(_ client: SyncTestClient, _ id: DocumentID) -> Int {
        client.edit(id) { (try? $0.getText("t").length) ?? 0 }
    }

    /// Signed in as the documents' owner: access is not what these tests are about.
    private func stalledReader(_ server: TestServer, _ id: DocumentID) async throws -> StalledReader {
        let path = "/v1/sync/\(id.rawValue)?token=\(server.token("ada"))"
        return try await onThread { try StalledReader(port: server.port, path: path) }
    }

    private static let stepOne = ProtocolFrame.sync(.step1(stateVector: Doc().encodeStateVector())).encode()

    @Test func aReaderThatNeverReadsGetsOneCopyOfTheDocumentThenIsClosedAsASlowConsumer() async throws {
        let server = try TestServer()
        let id: DocumentID = "big"
        let writer = try await largeDocument(server, id, megabytes: 8)
        let documentBytes = 8 * Self.megabyte
        let baseline = residentBytes()

        let reader = try await stalledReader(server, id)
        try await onThread { try reader.send(Self.stepOne) }
        try await eventually("step 2 queued") { server.server.metrics.snapshot.queuedBytes >= documentBytes }
        // 59 more step 1s while that step 2 waits, then a query for awareness, answered
        // in order after them: once its answer is sent, every step 1 was handled.
        let sentBefore = server.server.metrics.snapshot.messagesOut
        try await onThread {
            for _ in 0..<59 { try reader.send(Self.stepOne) }
            try reader.send(ProtocolFrame.queryAwareness.encode())
        }
        try await eventually("barrier answered") { server.server.metrics.snapshot.messagesOut > sentBefore }
        let held = server.server.metrics.snapshot
        #expect(held.messagesOut == sentBefore + 1, "only the awareness answer; no step 2 copies")
        #expect(held.queuedBytes < documentBytes + 64 * 1024, "\(held.queuedBytes) bytes queued")
        #expect(held.slowConsumerCloses == 0)
        #if os(Linux)
        // The old server grew by about 60 copies of the document here.
        let growth = residentBytes() - baseline
        #expect(growth < 96 * Self.megabyte, "resident memory grew by \(growth / Self.megabyte) MiB")
        #else
        _ = baseline
        #endif

        // What the room fans out to it now counts against the cap: past it, it is closed.
        for index in 0..<6 { try append(megabytes: 1, index: index, to: writer, id) }
        try await eventually("slow consumer closed") { server.server.metrics.snapshot.slowConsumerCloses == 1 }
        try await eventually("connection gone") {
            let snapshot = server.server.metrics.snapshot
            return snapshot.connections == 1 && snapshot.queuedBytes < Self.cap
        }
        let after = server.server.metrics.snapshot
        #expect(after.peakConnectionQueuedBytes <= Self.cap + documentBytes + 64 * 1024)
        #expect(server.server.metrics.render().contains("accord_slow_consumer_closes_total 1"))
        #expect(try await onThread { reader.readUntilClosed() })
        #expect(writer.errorCodes.isEmpty)
        try await server.stop()
    }

    @Test func aClientJoiningADocumentLargerThanTheCapSyncs() async throws {
        let server = try TestServer()
        let id: DocumentID = "big"
        let writer = try await largeDocument(server, id, megabytes: 8)
        #expect(8 * Self.megabyte > Self.cap)
        let reader = try await server.client("ada", document: id)
        try await eventually("synced", timeout: .seconds(60)) { length(reader, id) == 8 * Self.megabyte }
        #expect(reader.text(id) == writer.text(id))
        #expect(reader.closed == nil)
        #expect(server.server.metrics.snapshot.slowConsumerCloses == 0)
        try await server.stop()
    }

    @Test func stalledReadersInARoomAreClosedWhileGoodClientsConverge() async throws {
        let server = try TestServer()
        let id: DocumentID = "busy"
        let writer = try await server.client("ada", document: id)
        let readers = [try await server.client("ada", document: id), try await server.client("ada", document: id)]
        var stalled: [StalledReader] = []
        for _ in 0..<5 { stalled.append(try await stalledReader(server, id)) }
        try await eventually("all joined") { server.server.metrics.snapshot.connections == 8 }

        // 10 MiB written, each stalled reader's share stops at the cap.
        for index in 0..<10 { try append(megabytes: 1, index: index, to: writer, id) }
        try await eventually("stalled readers closed") { server.server.metrics.snapshot.slowConsumerCloses == 5 }
        for reader in readers {
            try await eventually("converged", timeout: .seconds(60)) { length(reader, id) == 10 * Self.megabyte }
            #expect(reader.text(id) == writer.text(id))
            #expect(reader.closed == nil)
        }
        // Refused at the cap, they leave once their close frame went out or its grace passed.
        try await eventually("stalled readers gone") { server.server.metrics.snapshot.connections == 3 }
        let snapshot = server.server.metrics.snapshot
        // No message here exceeds the cap, so no connection ever held more than it.
        #expect(snapshot.peakConnectionQueuedBytes <= Self.cap)
        #expect(snapshot.queuedBytes < 3 * Self.cap)
        for reader in stalled { #expect(try await onThread { reader.readUntilClosed() }) }
        try await server.stop()
    }

    @Test func theCloseCodeAndReasonNameTheErrorCode() {
        #expect(WebSocketServer.slowConsumerReason == ErrorCode.slowConsumer.rawValue)
        #expect(SyncCloseCode.slowConsumer == 4408)
    }
}

/// The process's resident set (Linux: /proc/self/statm), 0 elsewhere.
private func residentBytes() -> Int {
    #if os(Linux)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    #else
    return 0
    #endif
}
