/// Cuts one direction of a proxied TCP stream into the units ``FaultProxy`` acts on: the
/// HTTP head, whole WebSocket messages (every frame of a fragmented message together),
/// control frames, and raw bytes. Sans-I/O: feed it what `recv` returned, act on what
/// comes back. Bytes are never changed, so a unit's `bytes` can be written as they are
/// (client frames keep their masks).
///
/// The stream starts in HTTP. After the head (up to the blank line) it switches to
/// WebSocket framing if the head was an upgrade: a request with `Upgrade: websocket`
/// (client to server) or a `101` status (server to client). Any other head, and any
/// framing error (reserved opcode, fragmented control frame, continuation outside a
/// message, a frame over ``maxFrameLength``), turns the rest of the stream into raw
/// bytes, passed through unparsed, so fuzz tests can still send garbage through a proxy.
struct WebSocketStreamSplitter {
    enum Unit: Equatable {
        /// The HTTP request or response head, blank line included.
        case head([UInt8])
        /// One whole data message: the bytes of all its frames, in order (control frames
        /// that arrived between its fragments are their own units, emitted earlier).
        case message([UInt8], frames: Int)
        /// One ping (opcode 0x9), pong (0xA) or close (0x8) frame.
        case control([UInt8], opcode: UInt8)
        /// Bytes outside WebSocket framing (not an upgrade, or after a framing error).
        case raw([UInt8])
    }

    enum Side {
        /// Parses requests: the head is an upgrade if it asks for `Upgrade: websocket`.
        case client
        /// Parses responses: the head is an upgrade if its status is 101.
        case server
    }

    private enum Mode {
        case head
        case frames
        case raw
    }

    /// A head longer than this is not HTTP as we know it: the stream turns raw.
    static let maxHeadLength = 64 << 10
    /// A frame announcing more payload than this is treated as a framing error.
    static let maxFrameLength = 1 << 31

    let side: Side
    private var mode = Mode.head
    private var buffer: [UInt8] = []
    private var start = 0
    /// Frames of the data message in progress, and their count.
    private var message: [UInt8] = []
    private var messageFrames = 0

    init(side: Side) { self.side = side }

    /// True once the stream is cut into WebSocket frames.
    var isFraming: Bool { mode == .frames }

    /// Takes the next bytes of the stream and returns every unit they complete.
    mutating func feed(_ bytes: some Collection<UInt8>) -> [Unit] {
        if mode == .raw { return bytes.isEmpty ? [] : [.raw(Array(bytes))] }
        buffer.append(contentsOf: bytes)
        var units: [Unit] = []
        while true {
            switch mode {
            case .raw:
                let rest = Array(buffer[start...])
                clearBuffer()
                if !rest.isEmpty { units.append(.raw(rest)) }
                return units
            case .head:
                guard let end = headEnd() else {
                    // Bytes no HTTP head starts with (another protocol, say PostgreSQL's
                    // startup packet or its one-byte answer) make the stream raw at once,
                    // rather than holding it back for a blank line that never comes.
                    if buffer.count - start > Self.maxHeadLength || !Self.couldBeHead(buffer[start...], side: side) {
                        toRaw(&units)
                    }
                    else { compact(); return units }
                    continue
                }
                let head = Array(buffer[start..<end])
                start = end
                units.append(.head(head))
                mode = Self.isUpgrade(head, side: side) ? .frames : .raw
            case .frames:
                switch nextFrame() {
                case .incomplete:
                    compact()
                    return units
                case .invalid:
                    toRaw(&units)
                case .frame(let range, let fin, let opcode):
                    if opcode & 0x8 != 0 {
                        units.append(.control(Array(buffer[range]), opcode: opcode))
                    } else {
                        message.append(contentsOf: buffer[range])
                        messageFrames += 1
                        if fin {
                            units.append(.message(message, frames: messageFrames))
                            message = []
                            messageFrames = 0
                        }
                    }
                    start = range.upperBound
                }
            }
        }
    }

    /// Whether `bytes` could be the start of an HTTP head: text (printable ASCII, tab,
    /// CR, LF) that begins like a request line (a method in capitals, then a space) on
    /// the client side, or like a status line (`HTTP/`) on the server side.
    static func couldBeHead(_ bytes: ArraySlice<UInt8>, side: Side) -> Bool {
        guard bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }) else {
            return false
        }
        switch side {
        case .server:
            let status = Array("HTTP/".utf8)
            let count = min(bytes.count, status.count)
            return bytes.prefix(count).elementsEqual(status.prefix(count))
        case .client:
            for byte in bytes {
                if byte == 0x20 { return true }
                if byte < 0x41 || byte > 0x5A { return false }
            }
            return true
        }
    }

    private enum Frame {
        case incomplete
        case invalid
        case frame(Range<Int>, fin: Bool, opcode: UInt8)
    }

    /// The frame at `start` (RFC 6455 §5.2), checked against the message in progress.
    private func nextFrame() -> Frame {
        let available = buffer.count - start
        guard available >= 2 else { return .incomplete }
        let first = buffer[start], second = buffer[start + 1]
        let fin = first & 0x80 != 0
        let opcode = first & 0x0F
        let masked = second & 0x80 != 0
        var headerLength = 2
        var payloadLength = Int(second & 0x7F)
        if payloadLength == 126 {
            guard available >= 4 else { return .incomplete }
            payloadLength = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            headerLength = 4
        } else if payloadLength == 127 {
            guard available >= 10 else { return .incomplete }
            var length: UInt64 = 0
            for byte in buffer[(start + 2)..<(start + 10)] { length = length << 8 | UInt64(byte) }
            guard length <= UInt64(Self.maxFrameLength) else { return .invalid }
            payloadLength = Int(length)
            headerLength = 10
        }
        switch opcode {
        case 0x0: guard messageFrames > 0 else { return .invalid }
        case 0x1, 0x2: guard messageFrames == 0 else { return .invalid }
        case 0x8, 0x9, 0xA: guard fin, payloadLength <= 125 else { return .invalid }
        default: return .invalid
        }
        let total = headerLength + (masked ? 4 : 0) + payloadLength
        guard available >= total else { return .incomplete }
        return .frame(start..<(start + total), fin: fin, opcode: opcode)
    }

    /// Index just past the head's blank line, if the buffer holds it.
    private func headEnd() -> Int? {
        var index = max(start, 0)
        while index + 3 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    /// From here on, bytes pass through unparsed; a partial message goes out as it came.
    private mutating func toRaw(_ units: inout [Unit]) {
        let rest = message + buffer[start...]
        message = []
        messageFrames = 0
        clearBuffer()
        mode = .raw
        if !rest.isEmpty { units.append(.raw(rest)) }
    }

    private mutating func clearBuffer() {
        buffer = []
        start = 0
    }

    /// Drops consumed bytes once they are the larger part of the buffer.
    private mutating func compact() {
        if start > 0, start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
    }

    static func isUpgrade(_ head: [UInt8], side: Side) -> Bool {
        let lines = String(decoding: head, as: UTF8.self).lowercased().split(separator: "\r\n")
        guard let first = lines.first else { return false }
        switch side {
        case .client:
            return lines.dropFirst().contains { line in
                line.hasPrefix("upgrade:") && line.contains("websocket")
            }
        case .server:
            let parts = first.split(separator: " ")
            return parts.count >= 2 && parts[0].hasPrefix("http/") && parts[1] == "101"
        }
    }
}
