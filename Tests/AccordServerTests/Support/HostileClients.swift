import AccordCRDT
import AccordTesting
import Foundation

/// The attacks of the hostile-client soak, each a loop that plays one kind of bad
/// client against a running server until `deadline`, on a thread of its own (blocking
/// sockets; the cooperative pool stays free for the good clients). Each returns how
/// often it attacked and what the server did that it must never do.
struct HostileClients: Sendable {
    let port: Int
    let deadline: Date
    /// A valid token per user name.
    let token: @Sendable (String) -> String

    struct Report: Sendable {
        var name: String
        var attempts = 0
        var violations: [String] = []
        /// Bad-token connections whose refusal came after 3 s (see `badTokens`).
        var lateRefusals = 0
        mutating func violation(_ text: String) {
            if violations.count < 5 { violations.append(text) }
        }
    }

    var running: Bool { Date() < deadline }

    /// Two pipelined requests with bodies: at most one response each, never a loop.
    func pipelinedBodies() -> Report {
        var report = Report(name: "pipelined bodies")
        while running {
            report.attempts += 1
            guard let connection = try? RawTCPConnection(port: port) else { continue }
            let request = "PUT /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nA"
            connection.send(request + request)
            let answer = connection.receive(for: 500)
            if answer.bytes.count > 4096 {
                report.violation("\(answer.bytes.count) bytes answered two 1-byte requests")
            }
            connection.close()
        }
        return report
    }

    /// Connections that send a CONNECT head (or half a request) and nothing more; the
    /// server must close them after its header timeout. Holds up to `hold` at a time.
    func idlePartialRequests(hold: Int, headerTimeout: TimeInterval) -> Report {
        var report = Report(name: "idle partial requests")
        var open: [(connection: RawTCPConnection, since: Date)] = []
        while running {
            while open.count < hold, running {
                report.attempts += 1
                guard let connection = try? RawTCPConnection(port: port) else { break }
                let partial = report.attempts % 2 == 0 ? "CONNECT x:1 HTTP/1.1\r\n\r\n" : "GET /healthz HTTP/1.1\r\nHost: x\r\n"
                connection.send(partial)
                open.append((connection, Date()))
            }
            Thread.sleep(forTimeInterval: 0.2)
            open.removeAll { entry in
                // Whatever the server answered (a 501 for CONNECT), then its close.
                let result = entry.connection.receive(for: 1)
                if result.closed { return true }
                if Date().timeIntervalSince(entry.since) > headerTimeout + 5 {
                    report.violation("a partial request stayed open \(Int(Date().timeIntervalSince(entry.since))) s")
                    return true
                }
                return false
            }
        }
        return report
    }

    /// WebSocket readers that never read, asking for the whole (large) document again
    /// and again; the server must close them rather than queue copies.
    func stalledReaders(document: String, user: String, count: Int) -> Report {
        var report = Report(name: "stalled readers")
        let stepOne = WebSocketBytes.frame(ProtocolFrame.sync(.step1(stateVector: [0])).encode())
        while running {
            var sockets: [RawTCPConnection] = []
            for _ in 0..<count {
                report.attempts += 1
                guard let connection = try? RawTCPConnection(port: port, receiveBuffer: 4096) else { continue }
                connection.send(WebSocketBytes.upgradeRequest(path: "/v1/sync/\(document)?token=\(token(user))"))
                sockets.append(connection)
            }
            // Until the server gives up on them (a send fails) or time runs out.
            var sent = 0
            while running, !sockets.isEmpty, sent < 2000 {
                sockets.removeAll { !$0.send(stepOne) }
                sent += 1
                Thread.sleep(forTimeInterval: 0.01)
            }
            sockets.forEach { $0.close() }
        }
        return report
    }

    /// Connections that announce a large message and send part of it, then wait.
    func partialMessages(user: String, connections: Int, announced: Int, sent: Int) -> Report {
        var report = Report(name: "partial messages")
        while running {
            var sockets: [RawTCPConnection] = []
            for _ in 0..<connections where running {
                report.attempts += 1
                guard let connection = try? RawTCPConnection(port: port) else { continue }
                connection.send(WebSocketBytes.upgradeRequest(path: "/v1/sync/partial-\(user)?token=\(token(user))"))
                let frame = WebSocketBytes.frame([UInt8](repeating: 0x41, count: sent), final: true, announcedLength: announced)
                connection.send(frame)
                sockets.append(connection)
            }
            let until = Date().addingTimeInterval(3)
            while running, Date() < until { Thread.sleep(forTimeInterval: 0.1) }
            sockets.forEach { $0.close() }
        }
        return report
    }

    /// Forged, garbage and missing tokens, with sync step 1 and awareness sent at once:
    /// every one must end with 4401 and never see document content.
    func badTokens(document: String) -> Report {
        var report = Report(name: "bad tokens")
        let forged = token("mallory").dropLast(4) + "AAAA"
        let variants = ["?token=\(forged)", "?token=garbage", ""]
        let early = WebSocketBytes.frame(ProtocolFrame.sync(.step1(stateVector: [0])).encode())
            + WebSocketBytes.frame([1, 1, 0])
        while running {
            let query = variants[report.attempts % variants.count]
            report.attempts += 1
            guard let connection = try? RawTCPConnection(port: port) else { continue }
            connection.send(WebSocketBytes.upgradeRequest(path: "/v1/sync/\(document)\(query)") + early)
            let closeFrame: ([UInt8]) -> Bool = { bytes in
                WebSocketBytes.splitResponse(bytes).map { WebSocketBytes.frames(in: $0.rest).contains { $0.opcode == 0x8 } } ?? false
            }
            var answer = connection.receive(for: 3000, until: closeFrame)
            if !answer.closed, !closeFrame(answer.bytes), WebSocketBytes.splitResponse(answer.bytes)?.status == 101 {
                // Upgraded, and the refusal not there yet: the sync hub decides it, on
                // its one queue, which a debug build on a loaded machine can hold for
                // seconds (answering stalled readers' step 1 with the 4 MB document).
                // Late is counted; never refused is the violation.
                let more = connection.receive(for: 20_000) { closeFrame(answer.bytes + $0) }
                answer = (answer.bytes + more.bytes, more.closed)
                report.lateRefusals += 1
            }
            let response = WebSocketBytes.splitResponse(answer.bytes)
            let frames = response.map { WebSocketBytes.frames(in: $0.rest) } ?? []
            if let close = frames.first(where: { $0.opcode == 0x8 }) {
                if close.closeCode != 4401 { report.violation("refusal closed with \(close.closeCode.map(String.init) ?? "none")") }
            } else {
                let status = response.map { String($0.status) } ?? "no HTTP response"
                report.violation(
                    "no close frame for token variant \(report.attempts % variants.count) within 23 s (\(status), \(answer.bytes.count) bytes)")
            }
            if frames.contains(where: { $0.opcode == 0x2 && $0.payload.first == 0 }) {
                report.violation("an unauthenticated connection received a sync frame")
            }
            connection.close()
        }
        return report
    }

    /// One user opening many connections at once: past the per-user cap they are refused.
    func connectionFlood(user: String, count: Int) -> Report {
        var report = Report(name: "connection flood")
        while running {
            var sockets: [RawTCPConnection] = []
            for index in 0..<count where running {
                report.attempts += 1
                guard let connection = try? RawTCPConnection(port: port) else { continue }
                connection.send(WebSocketBytes.upgradeRequest(path: "/v1/sync/flood-\(index % 4)?token=\(token(user))"))
                sockets.append(connection)
            }
            let until = Date().addingTimeInterval(2)
            while running, Date() < until { Thread.sleep(forTimeInterval: 0.1) }
            sockets.forEach { $0.close() }
        }
        return report
    }

    /// Requests the HTTP layer must answer with a status, never a loop or a hang:
    /// chunked bodies, oversized headers, unknown methods, ids that cannot be addressed,
    /// unmasked frames, frames glued to the upgrade.
    func malformedRequests(user: String) -> Report {
        var report = Report(name: "malformed requests")
        let auth = "Authorization: Bearer \(token(user))\r\n"
        let requests: [String] = [
            "POST /v1/documents HTTP/1.1\r\nHost: x\r\n\(auth)Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 40_000))\r\n\r\n",
            "BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET /v1/documents/x/../y HTTP/1.1\r\nHost: x\r\n\(auth)\r\n",
            "GET /v1/documents/abc%0adef HTTP/1.1\r\nHost: x\r\n\(auth)\r\n",
            "POST /v1/documents HTTP/1.1\r\nHost: x\r\n\(auth)Content-Type: application/json\r\nContent-Length: 21\r\n\r\n{\"id\":\"a\",\"id\":\"../\"}",
        ]
        while running {
            let index = report.attempts % (requests.count + 2)
            report.attempts += 1
            guard let connection = try? RawTCPConnection(port: port) else { continue }
            if index < requests.count {
                connection.send(requests[index])
                let answer = connection.receive(for: 3000) { WebSocketBytes.splitResponse($0) != nil }
                guard let status = WebSocketBytes.splitResponse(answer.bytes)?.status else {
                    report.violation("request \(index) got no response head")
                    continue
                }
                if !(400..<600).contains(status) { report.violation("request \(index) answered \(status)") }
            } else {
                // A frame without a mask, or two frames glued to the upgrade request.
                let stepOne = ProtocolFrame.sync(.step1(stateVector: [0])).encode()
                let frames = index == requests.count
                    ? WebSocketBytes.frame(stepOne, masked: false)
                    : WebSocketBytes.frame(stepOne) + WebSocketBytes.frame(stepOne)
                connection.send(WebSocketBytes.upgradeRequest(path: "/v1/sync/glued-\(user)?token=\(token(user))") + frames)
                _ = connection.receive(for: 300)
            }
            connection.close()
        }
        return report
    }
}
