import AccordCRDT
import AccordStore
import Foundation
import Testing
@testable import AccordServer

/// A refused connection learns why, even while its first messages are still in flight
/// as the server closes. The server sends its close frame, reads and drops what the
/// client sent, and closes the socket only after the client's close reply (or 2 s).
/// Closing earlier, with the client's bytes unread or still arriving, makes Linux
/// reset the connection; a client whose write or read meets the reset before it
/// parsed the close frame (browsers, Node's `ws`) reports 1006 and no reason.
@Suite(.timeLimit(.minutes(2)))
struct RefusalCloseTests {
    /// What a y-websocket client sends as soon as its socket opens: sync step 1 and
    /// its awareness state, here in a single write. The state is large (256 KiB, a
    /// long selection list, say), so the server cannot have read it all by the time
    /// it refuses: the bytes are still arriving when it closes.
    static let firstMessages: [UInt8] = {
        let step1 = ProtocolFrame.sync(.step1(stateVector: Doc().encodeStateVector())).encode()
        let ranges = String(repeating: "0123456789abcdef", count: 16 * 1024)
        let presence = AwarenessUpdate([.init(clientID: 31337, clock: 1, state: .object(["ranges": .string(ranges)]))])
        return RawWebSocket.frame(opcode: 2, step1) + RawWebSocket.frame(opcode: 2, ProtocolFrame.awareness(presence.encode()).encode())
    }()

    /// One client as browsers and Node's `ws` behave: it writes its first messages,
    /// then reads. A write that fails (the server reset the connection) ends it with
    /// 1006 before anything received is parsed.
    static func refusedConnection(port: Int, token: String?) throws -> RawWebSocket.Transcript {
        let socket = try RawWebSocket(port: port, sendBufferBytes: 16 * 1024)
        let (status, rest) = try socket.upgrade(path: "/v1/sync/secret" + (token.map { "?token=\($0)" } ?? ""))
        guard status.contains(" 101 ") else { throw TestFailure("upgrade refused: \(status)") }
        guard socket.write(firstMessages) else { return RawWebSocket.Transcript(end: .reset) }
        return socket.readToEnd(after: rest)
    }

    @Test func everyRefusedConnectionGets4401AndAnOrderlyCloseWhileItsFirstMessagesAreInFlight() async throws {
        let server = try TestServer()
        let owner = try await server.client("ada", document: "secret")
        try owner.edit("secret") { try $0.getText("t").insert(0, "classified") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }
        let forged = try TokenAuthority(secret: Array("another-secret-another-secret-000".utf8)).mint(subject: "ada", ttl: 60)
        let tokens: [String?] = [forged, "garbage", nil]
        let port = server.port

        // 100 connections: four threads of 25 in a row each, side by side.
        let transcripts = try await withThrowingTaskGroup(of: [RawWebSocket.Transcript].self) { group in
            for batch in 0..<4 {
                group.addTask {
                    try await onThread {
                        try (0..<25).map { index in
                            try Self.refusedConnection(port: port, token: tokens[(batch * 25 + index) % tokens.count])
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(transcripts.count == 100)
        let codes = transcripts.map { $0.close?.code ?? 1006 }
        #expect(codes.allSatisfy { $0 == 4401 }, "close codes: \(codes.filter { $0 != 4401 })")
        #expect(transcripts.allSatisfy { $0.close?.reason == "UNAUTHENTICATED" })
        let ends = transcripts.map(\.end)
        #expect(ends.allSatisfy { $0 == .endOfStream }, "\(ends.filter { $0 != .endOfStream }.count) connections not closed in order: \(Set(ends.map { "\($0)" }))")
        for transcript in transcripts {
            // A stock client gets the y-protocols refusal and nothing of the document.
            let frames = transcript.messages.compactMap { try? ProtocolFrame.decode($0) }
            #expect(frames.count == transcript.messages.count)
            #expect(frames.allSatisfy { if case .auth(.permissionDenied) = $0 { true } else { false } }, "\(frames)")
        }
        try await server.stop()
    }
}
