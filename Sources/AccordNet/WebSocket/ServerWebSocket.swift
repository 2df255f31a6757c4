import CWebSockets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One server WebSocket, carried on the raw lws socket its HTTP stage started on.
///
/// Why not lws' WebSocket role (what `HTTPFront` handed upgrades to before): lws 4.1
/// never checks the mask bit of client frames, and RFC 6455 §5.1 requires a server to
/// fail the connection (1002) on an unmasked one. So the server side of RFC 6455 is
/// ours: the 101 (`UpgradeResponse`), client frames (`WebSocketFrameParser`), pings,
/// pongs and both close handshakes here, server frames (`ServerFrame`), the idle rule
/// (`IdleWatch`). What the connection queues for the application (reassembly, budgets,
/// the outbound ledger, our close and its wait for the reply) stays in `WebSocketPeer`,
/// shared with the client side, which keeps lws' WebSocket client role.
///
/// Each `RAW_WRITEABLE` writes at most one thing, in this order: the 101, the close
/// echoing the peer's, a pong, an idle ping, then the peer's queue and our close.
/// Service thread only.
final class ServerWebSocket {
    let connection: WebSocketConnection
    let peer: WebSocketPeer
    let wsi: OpaquePointer
    /// Its `partialBytesGroup`, whose budget its partial message counts against.
    let group: String?
    var parser = WebSocketFrameParser()
    var idle: IdleWatch?

    /// The 101 head until it is written.
    private var handshake: [UInt8]?
    /// The payload of the latest ping to answer (§5.5.3: answering only the most
    /// recent of several is allowed).
    private var pong: [UInt8]?
    private var idlePingDue = false
    private var reply = Reply.none
    private var failure = Failure.none

    private enum Reply {
        case none
        /// The peer closed first; our echo waits to be written.
        case pending
        /// The echo was written; the socket closes once lws has flushed it.
        case written
    }

    private enum Failure {
        case none
        /// A protocol error: our close frame goes out, then our side shuts down.
        case closing
        /// Shut down for writing; reading (and dropping) until the peer closes or the
        /// close timeout passes, so unread input cannot turn the close into a reset
        /// that destroys our close frame in the peer's kernel.
        case shutDown
    }

    init(connection: WebSocketConnection, peer: WebSocketPeer, wsi: OpaquePointer, group: String?, handshake: [UInt8]) {
        self.connection = connection
        self.peer = peer
        self.wsi = wsi
        self.group = group
        self.handshake = handshake
    }

    /// A closing handshake is under way: the application gets no more messages.
    var isClosing: Bool { peer.closeSent || failure != .none || reply != .none }

    func wantWrite() { lws_callback_on_writable(wsi) }

    /// A ping from the peer: answered with a pong carrying its payload.
    func answerPing(_ payload: [UInt8]) {
        guard !isClosing else { return }
        pong = payload
        wantWrite()
    }

    /// The peer closed first (§5.5.1): nothing queued goes out, our close echoes its
    /// code, and the socket closes once the echo is flushed.
    func answerClose() {
        peer.dropQueue()
        pong = nil
        reply = .pending
        // Echo at once when nothing is ahead of it, as lws' own server did: many
        // clients (lws' client among them) close their socket right after their close
        // frame, and an echo that waits a service round may find it gone.
        if handshake == nil, peer.writer?.isEmpty ?? false {
            reply = .written
            // A failed write leaves the rest to the next RAW_WRITEABLE, which closes.
            _ = write(ServerFrame.close, closeEchoPayload)
        }
        wantWrite()
    }

    /// Our echo of the peer's close: its code, or nothing when it sent none.
    private var closeEchoPayload: [UInt8] {
        peer.peerClose.flatMap { $0.code == 1005 ? nil : [UInt8($0.code >> 8), UInt8($0.code & 0xFF)] } ?? []
    }

    /// A protocol error: fail the connection with `code` (§7.1.7).
    func fail(code: UInt16, reason: String) {
        peer.fail(code: code, reason: reason)
        pong = nil
        failure = .closing
        wantWrite()
    }

    func sendIdlePing() {
        guard !isClosing else { return }
        idlePingDue = true
        wantWrite()
    }

    /// One `RAW_WRITEABLE`. Returns the callback result (-1 closes the socket).
    func writeNext() -> Int32 {
        // Whatever the socket did not take comes first; the states below assume what
        // was written last is with the kernel.
        if let writer = peer.writer, !writer.isEmpty {
            guard writer.flush(wsi) else { return -1 }
            if !writer.isEmpty { return 0 }
        }
        if case .written = reply { return -1 }
        if case .closing = failure, peer.closeSent {
            failure = .shutDown
            peer.writer?.transport.shutdownWrite(wsi)
            return 0
        }
        if case .shutDown = failure { return 0 }
        if let head = handshake {
            handshake = nil
            guard write(nil, head) else { return -1 }
            wantWrite()
            return 0
        }
        if case .pending = reply {
            reply = .written
            guard write(ServerFrame.close, closeEchoPayload) else { return -1 }
            wantWrite()
            return 0
        }
        if let payload = pong {
            pong = nil
            guard write(ServerFrame.pong, payload) else { return -1 }
            wantWrite()
            return 0
        }
        if idlePingDue {
            idlePingDue = false
            guard write(ServerFrame.ping, []) else { return -1 }
            if peer.hasPendingWrites { wantWrite() }
            return 0
        }
        let result = peer.writeNext(wsi)
        if case .closing = failure, peer.closeSent { wantWrite() }
        return result
    }

    private func write(_ opcode: UInt8?, _ payload: [UInt8]) -> Bool {
        peer.writer?.write(wsi, opcode: opcode, payload) ?? false
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension ServerWebSocket: Sendable {}
