/// The client-to-server half of RFC 6455 framing (§5) as a pure state machine: bytes
/// in, events out, no sockets. The server owns this side itself because libwebsockets
/// 4.1 never checks the mask bit of client frames (§5.1 requires failing the connection
/// with 1002), and after a handover to its WebSocket role nothing else sees the frames.
///
/// Data payloads are unmasked in place and handed out as they arrive (a frame may span
/// many reads and is never buffered here), so memory per connection stays a few dozen
/// bytes plus at most one control frame (≤ 125 bytes). Whole messages are assembled by
/// `WebSocketPeer`, which also enforces the message size limit (1009).
///
/// Everything §5 makes a protocol error fails the connection with ``Event/protocolError(code:reason:)``
/// and the parser then ignores every later byte: unmasked frames, RSV bits (no extension is
/// ever negotiated), unknown opcodes, fragmented or over-long control frames, a continuation
/// with no message started, a new message inside a fragmented one, a 64-bit length with the
/// most significant bit set, and a malformed close payload.
struct WebSocketFrameParser {
    enum Event {
        /// A piece of a text or binary message, already unmasked. `first`: it starts
        /// the message; `last`: it ends it. Valid only during the callback.
        case data(UnsafeRawBufferPointer, first: Bool, last: Bool)
        case ping([UInt8])
        case pong([UInt8])
        /// The peer's close; nil code when the frame carried none (report 1005).
        /// Nothing after it is parsed (§5.5.1: no data frames after a close).
        case close(code: UInt16?, reason: String)
        /// Fail the connection with `code` (1002, or 1007 for a close reason that is
        /// not UTF-8). Nothing after it is parsed.
        case protocolError(code: UInt16, reason: String)
    }

    private enum Stage {
        case header
        case payload
        /// After a close or a protocol error: every byte is dropped.
        case done
    }

    private static let maxHeaderCount = 14
    private static let maxControlPayload = 125

    private var stage = Stage.header
    /// Header bytes of the frame being read (at most 14).
    private var header: [UInt8] = []
    private var opcode: UInt8 = 0
    private var isFinal = false
    /// Payload bytes of the current frame not yet read.
    private var remaining: UInt64 = 0
    private var mask: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
    /// Payload bytes of the current frame already unmasked (indexes the mask).
    private var maskOffset = 0
    /// A text or binary message whose final frame has not arrived.
    private var inMessage = false
    /// The next data piece starts a message.
    private var startsMessage = false
    /// The payload of the control frame being read.
    private var control: [UInt8] = []

    /// True once a close or a protocol error was seen: later input is ignored.
    var isDone: Bool {
        if case .done = stage { return true }
        return false
    }

    /// Parses `input`, unmasking data payloads in place, and reports each event to
    /// `emit` in order.
    mutating func parse(_ input: UnsafeMutableRawBufferPointer, _ emit: (Event) -> Void) {
        var index = 0
        while index < input.count {
            switch stage {
            case .done:
                return
            case .header:
                header.append(input[index])
                index += 1
                if let error = headerProgress() {
                    stage = .done
                    emit(.protocolError(code: 1002, reason: error))
                    return
                }
                if case .payload = stage, remaining == 0 { finishFrame(emit) }
            case .payload:
                let count = Int(min(UInt64(input.count - index), remaining))
                let piece = UnsafeMutableRawBufferPointer(rebasing: input[index..<(index + count)])
                unmask(piece)
                index += count
                remaining -= UInt64(count)
                if opcode & 0x8 != 0 {
                    control.append(contentsOf: piece)
                    if remaining == 0 { finishFrame(emit) }
                } else {
                    let last = remaining == 0 && isFinal
                    emit(.data(UnsafeRawBufferPointer(piece), first: startsMessage, last: last))
                    startsMessage = false
                    if remaining == 0 {
                        stage = .header
                        if isFinal { inMessage = false }
                    }
                }
            }
        }
    }

    /// Checks the header bytes read so far; moves to `.payload` once it is complete.
    /// Returns the reason of a protocol error.
    private mutating func headerProgress() -> String? {
        if header.count == 1 {
            let first = header[0]
            if first & 0x70 != 0 { return "reserved bits set" }
            opcode = first & 0x0F
            isFinal = first & 0x80 != 0
            switch opcode {
            case 0x0:
                if !inMessage { return "continuation without a message" }
            case 0x1, 0x2:
                if inMessage { return "new message inside a fragmented one" }
            case 0x8, 0x9, 0xA:
                if !isFinal { return "fragmented control frame" }
            default:
                return "unknown opcode"
            }
            return nil
        }
        let second = header[1]
        if header.count == 2 {
            if second & 0x80 == 0 { return "unmasked client frame" }
            if opcode & 0x8 != 0, second & 0x7F > Self.maxControlPayload { return "control frame over 125 bytes" }
        }
        let lengthBytes = switch second & 0x7F {
        case 126: 2
        case 127: 8
        default: 0
        }
        if lengthBytes == 8, header.count == 3, header[2] & 0x80 != 0 { return "64-bit length with the top bit set" }
        guard header.count == 2 + lengthBytes + 4 else { return nil }
        remaining = switch lengthBytes {
        case 0: UInt64(second & 0x7F)
        default: header[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let key = 2 + lengthBytes
        mask = (header[key], header[key + 1], header[key + 2], header[key + 3])
        maskOffset = 0
        header.removeAll(keepingCapacity: true)
        stage = .payload
        if opcode == 0x1 || opcode == 0x2 {
            inMessage = true
            startsMessage = true
        }
        if opcode & 0x8 != 0 { control.removeAll(keepingCapacity: false) }
        return nil
    }

    /// The current frame's payload has been read in full.
    private mutating func finishFrame(_ emit: (Event) -> Void) {
        stage = .header
        switch opcode {
        case 0x8:
            stage = .done
            emit(closeEvent())
        case 0x9:
            emit(.ping(control))
        case 0xA:
            emit(.pong(control))
        default:
            // An empty data frame: still a (possibly first and last) piece.
            emit(.data(UnsafeRawBufferPointer(start: nil, count: 0), first: startsMessage, last: isFinal))
            startsMessage = false
        }
        if opcode & 0x8 != 0 {
            control = []
        } else if isFinal {
            inMessage = false
        }
    }

    /// §5.5.1 and §7.4: a close payload is empty or a valid code then UTF-8.
    private func closeEvent() -> Event {
        guard !control.isEmpty else { return .close(code: nil, reason: "") }
        guard control.count >= 2 else { return .protocolError(code: 1002, reason: "close payload of one byte") }
        let code = UInt16(control[0]) << 8 | UInt16(control[1])
        guard Self.isValidCloseCode(code) else { return .protocolError(code: 1002, reason: "invalid close code") }
        let reasonBytes = control[2...]
        let reason = String(decoding: reasonBytes, as: UTF8.self)
        // Decoding replaces invalid sequences, so a round trip that differs was not UTF-8.
        guard reason.utf8.elementsEqual(reasonBytes) else {
            return .protocolError(code: 1007, reason: "close reason is not UTF-8")
        }
        return .close(code: code, reason: reason)
    }

    /// Codes a peer may send (§7.4.1, §7.4.2): 1000-1003, 1007-1011 and 3000-4999.
    /// 1005, 1006 and 1015 are reserved for reports, never for the wire.
    static func isValidCloseCode(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    private mutating func unmask(_ bytes: UnsafeMutableRawBufferPointer) {
        var offset = maskOffset
        withUnsafeBytes(of: mask) { key in
            for index in bytes.indices {
                bytes[index] ^= key[offset & 3]
                offset &+= 1
            }
        }
        maskOffset = offset & 3
    }
}
