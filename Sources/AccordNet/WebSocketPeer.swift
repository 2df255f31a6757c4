import CWebSockets

/// A frame waiting to be written.
enum OutgoingFrame: Sendable {
    case binary([UInt8])
    case ping([UInt8])

    /// Payload bytes, what an `OutboundBudget` counts.
    var byteCount: Int {
        switch self {
        case .binary(let payload), .ping(let payload): payload.count
        }
    }
}

/// A frame in a peer's write queue, with its number in the connection's budget (0 on
/// clients, which have none).
struct QueuedFrame {
    var frame: OutgoingFrame
    var ticket: UInt64
}

/// Where a server peer reports the bytes it no longer holds (its connection's budget).
struct OutboundAccount {
    let ledger: OutboundLedger
    let connection: UInt64

    func settle(_ frame: QueuedFrame) { ledger.settle(connection, bytes: frame.frame.byteCount, ticket: frame.ticket) }
}

/// Reassembly and write queue of one WebSocket connection, server or client side.
/// Service thread only.
final class WebSocketPeer {

    private var incoming: [UInt8] = []
    private var incomingTooLarge = false
    private var incomingOverBudget = false
    private var outgoing: [QueuedFrame] = []
    private var outgoingHead = 0
    /// The last frame written while lws still buffers part of it: it stays counted
    /// until lws has flushed it.
    private var inFlight: QueuedFrame?
    /// Server connections settle their budget as frames leave; clients have none.
    private let account: OutboundAccount?
    /// Close we were asked to send once the queue is written.
    private(set) var closeRequest: (code: UInt16, reason: String)?
    /// Close the peer sent us.
    private(set) var peerClose: (code: UInt16, reason: String)?
    /// Our close frame went out (server side) and we wait for the peer's reply.
    private(set) var closeSent = false
    let maxMessageSize: Int
    /// Server side: after our close frame, wait this long for the peer's close reply
    /// before the socket is closed (see ``writeClose(_:_:)``). Nil: lws closes at once.
    let closeReplyTimeoutSeconds: Int32?
    /// Server connections frame and write their bytes themselves (`ServerWebSocket`);
    /// nil: lws' WebSocket role does (clients).
    let writer: SocketWriter?

    init(
        maxMessageSize: Int, account: OutboundAccount? = nil, closeReplyTimeoutSeconds: Int32? = nil,
        writer: SocketWriter? = nil
    ) {
        self.maxMessageSize = maxMessageSize
        self.account = account
        self.closeReplyTimeoutSeconds = closeReplyTimeoutSeconds
        self.writer = writer
    }

    var hasPendingWrites: Bool {
        outgoingHead < outgoing.count || (closeRequest != nil && !closeSent) || inFlight != nil
    }

    func enqueue(_ frame: OutgoingFrame, ticket: UInt64 = 0) {
        let queued = QueuedFrame(frame: frame, ticket: ticket)
        guard closeRequest == nil else {  // nothing goes out after a close
            account?.settle(queued)
            return
        }
        outgoing.append(queued)
    }

    /// The slow-consumer close: drops every queued frame at once (waiting for a peer
    /// that does not read to take them is what the limit prevents), then closes.
    /// A frame lws already holds in part stays counted until the wsi goes.
    func abandonQueue(closeCode code: UInt16, reason: String) {
        dropQueue()
        requestClose(code: code, reason: reason)
    }

    /// Settles and forgets every queued frame (a closing connection sends none of them).
    func dropQueue() {
        while outgoingHead < outgoing.count {
            account?.settle(takeNext())
        }
    }

    /// Failing the connection (a protocol error): the queue is dropped and this close
    /// replaces any the application asked for, unless that one already went out.
    func fail(code: UInt16, reason: String) {
        dropQueue()
        if !closeSent { closeRequest = (code, reason) }
    }

    func requestClose(code: UInt16, reason: String) {
        if closeRequest == nil { closeRequest = (code, reason) }
    }

    enum Received {
        case partial
        case message([UInt8])
        case tooLarge
        case overBudget
    }

    /// Bytes of the message being received, held until it completes.
    var partialBytes: Int { incoming.count }

    /// One `RECEIVE` callback. lws hands over a message in pieces (frame fragments and
    /// rx-buffer-sized slices of frames); a message is complete on the final fragment
    /// with no payload left. `allowance`: how many more bytes this connection may hold
    /// (its group's budget left); a message that would need more is discarded.
    func receive(
        _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int, allowance: Int = .max
    ) -> Received {
        receive(
            UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length),
            first: lws_is_first_fragment(wsi) != 0,
            last: lws_is_final_fragment(wsi) != 0 && lws_remaining_packet_payload(wsi) == 0, allowance: allowance)
    }

    /// One piece of a message: `first` starts it, `last` ends it (server connections
    /// get these from `WebSocketFrameParser`, clients from lws).
    func receive(_ piece: UnsafeRawBufferPointer, first: Bool, last: Bool, allowance: Int = .max) -> Received {
        let length = piece.count
        if first {
            incoming.removeAll(keepingCapacity: true)
            incomingTooLarge = false
            incomingOverBudget = false
        }
        if incoming.count + length > maxMessageSize { incomingTooLarge = true }
        if !incomingTooLarge, !incomingOverBudget, length > allowance {
            incomingOverBudget = true
            incoming = []  // give the budget back now, not when the message ends
        }
        if !incomingTooLarge, !incomingOverBudget, length > 0 {
            incoming.append(contentsOf: piece)
        }
        guard last else { return .partial }
        if incomingTooLarge || incomingOverBudget {
            incoming = []
            return incomingTooLarge ? .tooLarge : .overBudget
        }
        let message = incoming
        incoming = []
        return .message(message)
    }

    /// `WS_PEER_INITIATED_CLOSE`: the payload is a big-endian code then a UTF-8 reason.
    func peerClosed(_ input: UnsafeMutableRawPointer?, _ length: Int) {
        guard let input, length >= 2 else {
            peerClose = (1005, "")  // no status code present
            return
        }
        let bytes = UnsafeRawBufferPointer(start: input, count: length)
        let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        peerClose = (code, String(decoding: bytes[2...], as: UTF8.self))
    }

    /// The peer's close frame, parsed by `WebSocketFrameParser` (nil code: none sent).
    func peerClosed(code: UInt16?, reason: String) {
        peerClose = (code ?? 1005, reason)
    }

    /// The close to report when the connection ends: ours when we closed first (the
    /// peer's reply echoes it at best), else the peer's, else 1006 (no close frame).
    var finalClose: (code: UInt16, reason: String) {
        if closeSent, let closeRequest { return closeRequest }
        return peerClose ?? closeRequest ?? (1006, "")
    }

    /// One `*_WRITEABLE` callback: writes one frame, or the close once the queue is
    /// empty. Returns the callback's result (-1 closes the connection).
    func writeNext(_ wsi: OpaquePointer) -> Int32 {
        // lws drains what it buffered of a short write before it calls WRITEABLE again
        // (lws_partial_buffered is "never set at the start of a writeable callback"),
        // so the frame in flight has reached the kernel by now.
        // Our own writer keeps its rest itself: the frame in flight is settled once
        // the writer is empty.
        if let writer, !writer.isEmpty {
            guard writer.flush(wsi) else { return -1 }
            if !writer.isEmpty { return 0 }
        }
        if let frame = inFlight {
            account?.settle(frame)
            inFlight = nil
        }
        if outgoingHead < outgoing.count {
            let queued = takeNext()
            let ok: Bool
            switch queued.frame {
            case .binary(let payload): ok = write(wsi, payload, LWS_WRITE_BINARY)
            case .ping(let payload): ok = write(wsi, payload, LWS_WRITE_PING)
            }
            guard ok else { return -1 }
            // lws reports a short write as complete and keeps the rest in its own buffer:
            // that copy counts until the next WRITEABLE says it is flushed.
            if writer.map({ !$0.isEmpty }) ?? (lws_partial_buffered(wsi) != 0) {
                inFlight = queued
            } else {
                account?.settle(queued)
            }
            if hasPendingWrites { lws_callback_on_writable(wsi) }
            return 0
        }
        if let close = closeRequest, !closeSent {
            if closeReplyTimeoutSeconds != nil { return writeClose(wsi, close) }
            var reason = Array(close.reason.utf8.prefix(123))  // control frames carry <= 125 bytes
            reason.withUnsafeMutableBufferPointer { buffer in
                lws_close_reason(wsi, lws_close_status(rawValue: UInt32(close.code)), buffer.baseAddress, buffer.count)
            }
            return -1
        }
        return 0
    }

    /// Removes the oldest queued frame, releasing the queue's reference to its payload
    /// at once (a queue that never empties must not keep written payloads alive).
    private func takeNext() -> QueuedFrame {
        let frame = outgoing[outgoingHead]
        outgoing[outgoingHead].frame = .binary([])
        outgoingHead += 1
        if outgoingHead == outgoing.count {
            outgoing.removeAll(keepingCapacity: true)
            outgoingHead = 0
        } else if outgoingHead >= 1024, outgoingHead * 2 >= outgoing.count {
            outgoing.removeFirst(outgoingHead)
            outgoingHead = 0
        }
        return frame
    }

    /// Writes our close frame and keeps the socket open until the peer's close reply
    /// (``peerClosed(_:_:)``, after which the owner returns -1) or the timeout.
    ///
    /// Why not `lws_close_reason` and -1: lws 4.1 then writes the close frame and
    /// closes the socket in the same service pass, without waiting for the reply
    /// (its "await close ack" state is never reached on that path, and its staged
    /// shutdown is skipped). Whatever the client sent meanwhile (a y-websocket client's
    /// sync step 1 and awareness follow the upgrade at once) is still unread in the
    /// kernel, and Linux answers `close()` with unread data by a RST, which discards
    /// our close frame in the client's kernel: the client sees 1006, not our code.
    /// Waiting for the reply reads (and drops) everything the client sent before it.
    private func writeClose(_ wsi: OpaquePointer, _ close: (code: UInt16, reason: String)) -> Int32 {
        let payload = [UInt8(close.code >> 8), UInt8(close.code & 0xff)] + Array(close.reason.utf8.prefix(123))
        guard write(wsi, payload, Self.writeClose) else { return -1 }
        closeSent = true
        // lws closes the connection when the timeout passes (its CLOSED callback follows).
        lws_set_timeout(wsi, PENDING_TIMEOUT_CLOSE_ACK, closeReplyTimeoutSeconds ?? 0)
        return 0
    }

    /// lws' `LWS_WRITE_CLOSE`: `lws_write` frames the payload as a close frame. lws 4.x
    /// keeps the name private (`lib/roles/ws/private-lib-roles-ws.h`, "handled by
    /// lws_close_reason()" in the public enum), but the value is the one its own close
    /// path passes to `lws_write`, unchanged since lws 2.
    private static let writeClose = lws_write_protocol(rawValue: 4)

    /// One frame of `kind`: framed by lws, or by us on a raw socket.
    private func write(_ wsi: OpaquePointer, _ payload: [UInt8], _ kind: lws_write_protocol) -> Bool {
        guard let writer else { return Self.write(wsi, payload, kind) }
        let opcode = switch kind {
        case LWS_WRITE_PING: ServerFrame.ping
        case Self.writeClose: ServerFrame.close
        default: ServerFrame.binary
        }
        return writer.write(wsi, opcode: opcode, payload)
    }

    /// `lws_write` needs `LWS_PRE` writable bytes before the payload.
    private static func write(_ wsi: OpaquePointer, _ payload: [UInt8], _ kind: lws_write_protocol) -> Bool {
        let pre = accord_lws_pre()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pre + max(payload.count, 1), alignment: 16)
        defer { buffer.deallocate() }
        let body = buffer.baseAddress! + pre
        payload.withUnsafeBytes { source in
            if let base = source.baseAddress { body.copyMemory(from: base, byteCount: source.count) }
        }
        let written = lws_write(wsi, body.assumingMemoryBound(to: UInt8.self), payload.count, kind)
        return written >= payload.count
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension WebSocketPeer: Sendable {}
