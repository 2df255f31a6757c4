import CWebSockets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a server WebSocket's bytes to its socket itself, keeping what the kernel did
/// not take until the next `RAW_WRITEABLE`.
///
/// Why not `lws_write`: on a raw socket lws keeps the rest of a short write in its own
/// buffer and, while that buffer is not empty, reads nothing from the socket ("pending
/// truncated sends have uber priority", lws' raw-skt POLLIN handler). A client that
/// stops reading while a large message waits would then also stop being heard: its
/// later frames, its close reply. Writing with `send` keeps lws' buffer empty, so
/// reading goes on; the frame stays counted by the outbound ledger until it is all
/// with the kernel (or, over TLS, encrypted and with the kernel), as before.
final class SocketWriter {
    let transport: ServerTransport
    private var pending: [UInt8] = []
    private var offset = 0

    init(transport: ServerTransport) {
        self.transport = transport
    }

    /// Nothing waits for the socket.
    var isEmpty: Bool { offset >= pending.count }

    /// Queues one frame (`opcode` nil: bytes already framed, the 101) and writes what
    /// the socket takes now. False on a socket error (the connection is gone).
    func write(_ wsi: OpaquePointer, opcode: UInt8?, _ payload: [UInt8]) -> Bool {
        let header = opcode == nil ? 0 : ServerFrame.headerCount(payload: payload.count)
        var bytes = [UInt8](repeating: 0, count: header)
        if let opcode {
            bytes.withUnsafeMutableBytes { ServerFrame.writeHeader(opcode: opcode, payload: payload.count, into: $0.baseAddress!) }
        }
        if isEmpty {
            pending = bytes + payload
            offset = 0
        } else {
            pending += bytes + payload
        }
        return flush(wsi)
    }

    /// Writes what waits until the socket would block. False on a socket error.
    func flush(_ wsi: OpaquePointer) -> Bool {
        while offset < pending.count {
            let sent = pending.withUnsafeBytes { bytes in
                transport.send(wsi, bytes.baseAddress! + offset, bytes.count - offset)
            }
            if sent > 0 {
                offset += sent
                continue
            }
            if sent == 0 { break }  // would block
            return false
        }
        if isEmpty {
            pending = []
            offset = 0
        } else {
            lws_callback_on_writable(wsi)
        }
        return true
    }
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension SocketWriter: Sendable {}
