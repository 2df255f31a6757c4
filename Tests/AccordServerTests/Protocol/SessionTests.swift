import Testing
import AccordCRDT
import AccordStore
@testable import AccordServer

/// The per-connection rules, driven without sockets.
@Suite struct SessionTests {
    private let limits = Session.Limits(maxFrameBytes: 1000, messagesPerSecond: 10, burst: 3, heartbeatSeconds: 30)

    private func signedIn(_ endpoint: SyncEndpoint) -> Session {
        var session = Session(endpoint: endpoint, limits: limits, now: 0)
        _ = session.opened(user: .success("ada"))
        return session
    }

    /// The Accord error in a sent message, decoded as a client of `endpoint` would.
    private func sentError(_ action: SessionAction?, endpoint: SyncEndpoint) throws -> (code: String, document: String?) {
        guard case .sendError(let bytes, let code) = action else { throw TestFailure("not an error: \(String(describing: action))") }
        let frame: ProtocolFrame
        switch endpoint {
        case .multiplexed: frame = try MultiplexedFrame.decode(bytes).frame
        case .document: frame = try ProtocolFrame.decode(bytes)
        }
        guard case .error(let sent, _, let document) = try AccordMessage.decode(frame: frame), sent == code.rawValue else {
            throw TestFailure("not an error with code \(code)")
        }
        return (sent, document)
    }

    private func step1(_ id: String) throws -> [UInt8] {
        try MultiplexedFrame(documentID: id, frame: .sync(.step1(stateVector: [0]))).encode()
    }

    @Test func unauthenticatedConnectionGetsOnlyTheErrorAndClose4401() throws {
        var session = Session(endpoint: .document("notes"), limits: limits, now: 0)
        let actions = session.opened(user: .failure(AccordError(.unauthenticated, "token expired")))
        #expect(actions.count == 2)
        #expect(try sentError(actions.first, endpoint: .document("notes")).code == "UNAUTHENTICATED")
        #expect(actions.last == .close(code: 4401, reason: "UNAUTHENTICATED"))
        #expect(session.received([0, 0, 1, 0], now: 1).isEmpty)
    }

    @Test func signedInConnectionGetsHelloAndJoinsItsDocument() throws {
        var session = Session(endpoint: .document("notes"), limits: limits, now: 0)
        let actions = session.opened(user: .success("ada"))
        guard case .send(let hello) = actions.first else { Issue.record("no hello"); return }
        #expect(try AccordMessage.decode(hello) == .hello(serverVersion: Session.serverVersion, maxFrameBytes: 1000, heartbeatSeconds: 30))
        #expect(actions.last == .join("notes", then: nil))
    }

    @Test func multiplexedFramesJoinOnFirstUseThenDeliver() throws {
        var session = signedIn(.multiplexed)
        let frame = ProtocolFrame.sync(.step1(stateVector: [0]))
        #expect(session.received(try step1("a"), now: 1) == [.join("a", then: frame)])
        #expect(session.joined("a", outcome: .joined(canWrite: true), then: frame) == [.deliver("a", frame)])
        #expect(session.received(try step1("a"), now: 2) == [.deliver("a", frame)])
        #expect(session.documents == ["a"])
    }

    @Test func leaveTakesTheConnectionOutOfOneRoomAndNeverJoins() throws {
        var session = signedIn(.multiplexed)
        _ = session.joined("a", outcome: .joined(canWrite: true), then: nil)
        _ = session.joined("b", outcome: .joined(canWrite: true), then: nil)
        let leave = try MultiplexedFrame(AccordMessage.leave(documentID: "a")).encode()
        #expect(session.received(leave, now: 1) == [.leave("a")])
        #expect(session.documents == ["b"])
        #expect(session.received(leave, now: 2).isEmpty)  // not joined: nothing, not a join
        #expect(session.received(try step1("a"), now: 3) == [.join("a", then: .sync(.step1(stateVector: [0])))])
    }

    @Test func refusedDocumentOnMultiplexedConnectionLeavesTheOthersAlone() throws {
        var session = signedIn(.multiplexed)
        _ = session.joined("a", outcome: .joined(canWrite: true), then: nil)
        let refusal = session.joined("b", outcome: .refused(AccordError(.docAccessDenied, "no")), then: nil)
        #expect(refusal.count == 1)
        let error = try sentError(refusal.first, endpoint: .multiplexed)
        #expect(error.code == "DOC_ACCESS_DENIED")
        #expect(error.document == "b")
        #expect(session.documents == ["a"])
        #expect(!session.isClosed)
    }

    @Test func refusedDocumentEndpointClosesWith4403AndAuthDenied() throws {
        var session = signedIn(.document("notes"))
        let actions = session.joined("notes", outcome: .refused(AccordError(.docAccessDenied, "no")), then: nil)
        #expect(try sentError(actions.first, endpoint: .document("notes")).code == "DOC_ACCESS_DENIED")
        #expect(actions[1] == .send(ProtocolFrame.auth(.permissionDenied(reason: "no")).encode()))
        #expect(actions.last == .close(code: 4403, reason: "DOC_ACCESS_DENIED"))
    }

    @Test func malformedFrameClosesOnlyThisConnectionWith4400() throws {
        var session = signedIn(.multiplexed)
        _ = session.joined("a", outcome: .joined(canWrite: true), then: nil)
        let actions = session.received([5, 1, 2], now: 1)
        #expect(actions.first == .leave("a"))
        #expect(try sentError(actions[1], endpoint: .multiplexed).code == "MALFORMED_MESSAGE")
        #expect(actions.last == .close(code: 4400, reason: "MALFORMED_MESSAGE"))
        #expect(session.isClosed)
    }

    @Test func brokenAccordMessageClosesBothEndpointsAlike() throws {
        // Type 100, subtype 1 (update), then a document id length past the end.
        let broken: [UInt8] = [100, 1, 50, 1]
        var single = signedIn(.document("notes"))
        #expect(single.received(broken, now: 1).last == .close(code: 4400, reason: "MALFORMED_MESSAGE"))
        var multiplexed = signedIn(.multiplexed)
        #expect(multiplexed.received([5] + Array("notes".utf8) + broken, now: 1).last
            == .close(code: 4400, reason: "MALFORMED_MESSAGE"))
    }

    @Test func rateLimitDropsWithOneErrorThenRecovers() throws {
        var session = signedIn(.multiplexed)
        _ = session.joined("a", outcome: .joined(canWrite: true), then: nil)
        for _ in 0..<3 { #expect(session.received(try step1("a"), now: 0).count == 1) }
        let limited = session.received(try step1("a"), now: 0)
        #expect(try sentError(limited.first, endpoint: .multiplexed).code == "RATE_LIMITED")
        #expect(session.received(try step1("a"), now: 0).isEmpty)  // dropped quietly
        // 10 per second: one token back after 100 ms.
        #expect(session.received(try step1("a"), now: 100).first.map { if case .deliver = $0 { true } else { false } } == true)
    }

    @Test func oversizedMessageIsAnErrorNotAClose() throws {
        var session = signedIn(.multiplexed)
        let actions = session.received([UInt8](repeating: 0, count: 1001), now: 0)
        #expect(try sentError(actions.first, endpoint: .multiplexed).code == "MESSAGE_TOO_LARGE")
        #expect(session.tooLarge().count == 1)
        #expect(!session.isClosed)
    }

    @Test func revokedAccessLeavesTheRoomAtOnce() throws {
        var session = signedIn(.multiplexed)
        _ = session.joined("a", outcome: .joined(canWrite: true), then: nil)
        let actions = session.accessRevoked("a", AccordError(.docAccessDenied, "revoked"))
        #expect(actions.first == .leave("a"))
        #expect(try sentError(actions.last, endpoint: .multiplexed).code == "DOC_ACCESS_DENIED")
        #expect(session.documents.isEmpty)
        #expect(session.accessRevoked("a", AccordError(.docAccessDenied, "again")).isEmpty)
    }

    @Test func aStockClientOnTheDocumentEndpointGetsOnlyYProtocols() throws {
        var session = Session(endpoint: .document("notes"), dialect: .yProtocols, limits: limits, now: 0)
        #expect(session.opened(user: .success("ada")) == [.join("notes", then: nil)])  // no hello
        // Errors are counted, not sent; Accord messages from the room are not sent.
        #expect(session.error(AccordError(.awarenessClientTaken, "taken"), document: "notes") == .countError(.awarenessClientTaken))
        #expect(session.tooLarge() == [.countError(.messageTooLarge)])
        let ack = try AccordMessage.ack(documentID: "notes", through: 3).frame()
        #expect(session.frame(ack, document: "notes") == nil)
        #expect(session.frame(.queryAwareness, document: "notes") == .send(ProtocolFrame.queryAwareness.encode()))
        // A refusal is the auth "permission denied" and the close.
        let refusal = session.joined("notes", outcome: .refused(AccordError(.documentNotFound, "no such document")), then: nil)
        #expect(refusal == [.countError(.documentNotFound),
                            .send(ProtocolFrame.auth(.permissionDenied(reason: "no such document")).encode()),
                            .close(code: 4404, reason: "DOCUMENT_NOT_FOUND")])
    }

    @Test func aStockClientWithoutAValidTokenGetsAuthDeniedAnd4401() throws {
        var session = Session(endpoint: .document("notes"), dialect: .yProtocols, limits: limits, now: 0)
        let actions = session.opened(user: .failure(AccordError(.unauthenticated, "token expired")))
        #expect(actions == [.countError(.unauthenticated),
                            .send(ProtocolFrame.auth(.permissionDenied(reason: "token expired")).encode()),
                            .close(code: 4401, reason: "UNAUTHENTICATED")])
    }

    @Test func theDialectComesFromTheQueryOnTheDocumentEndpointOnly() throws {
        #expect(try SyncDialect(endpoint: .document("a"), parameter: nil) == .yProtocols)
        #expect(try SyncDialect(endpoint: .document("a"), parameter: "0") == .yProtocols)
        #expect(try SyncDialect(endpoint: .document("a"), parameter: "1") == .accord)
        #expect(try SyncDialect(endpoint: .multiplexed, parameter: nil) == .accord)
        let error = #expect(throws: AccordError.self) { try SyncDialect(endpoint: .document("a"), parameter: "yes") }
        #expect(error?.code == .invalidArgument)
        // A multiplexed session is always Accord's, whatever it was given.
        #expect(Session(endpoint: .multiplexed, dialect: .yProtocols, limits: limits, now: 0).dialect == .accord)
    }

    @Test func syncPathsParse() throws {
        #expect(try SyncEndpoint(path: "/v1/sync") == .multiplexed)
        #expect(try SyncEndpoint(path: "/v1/sync/a/b") == .document("a/b"))
        #expect(try SyncEndpoint(path: "/v1/other") == nil)
        #expect(throws: AccordError.self) { try SyncEndpoint(path: "/v1/sync/") }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
