import AccordCRDT

/// One request line sent to a differential peer and the reply line it gave.
public struct PeerExchange: Hashable, Sendable {
    public var request: String
    public var reply: String

    public init(request: String, reply: String) {
        self.request = request
        self.reply = reply
    }

    /// A transcript as JSON lines: one `[request, reply]` pair per exchange, each side
    /// the protocol's own JSON text.
    public static func jsonLines(_ exchanges: [PeerExchange]) -> String {
        exchanges.map { AnyValue.array([.string($0.request), .string($0.reply)]).jsonText + "\n" }.joined()
    }

    /// Reads ``jsonLines(_:)``.
    public static func parse(jsonLines text: Substring) throws -> [PeerExchange] {
        try text.split(separator: "\n").map { line in
            guard case .array(let pair) = try AnyValue(jsonText: String(line)), pair.count == 2,
                  let request = pair[0].stringValue, let reply = pair[1].stringValue
            else { throw PycrdtPeer.Failure("a transcript line is not [request, reply]: \(line.prefix(200))") }
            return PeerExchange(request: request, reply: reply)
        }
    }
}

/// Plays a recorded transcript back (`PycrdtPeer(replaying:)`).
final class PeerReplay {
    private let exchanges: [PeerExchange]
    private var next = 0

    init(_ exchanges: [PeerExchange]) { self.exchanges = exchanges }

    /// The recorded reply to `request`, which must be the request recorded next: a
    /// scenario that asks something else is no longer the recorded one, and nothing
    /// recorded can answer it.
    func answer(_ request: String) throws -> String {
        if request == #"{"cmd":"quit"}"# { return #"{"ok":true}"# }
        guard next < exchanges.count else {
            throw PycrdtPeer.Failure("the scenario went past the \(exchanges.count) recorded exchanges with \(request.prefix(200))")
        }
        let recorded = exchanges[next]
        guard recorded.request == request else {
            throw PycrdtPeer.Failure(
                "exchange \(next) differs from the recording: sent \(request.prefix(300)), recorded \(recorded.request.prefix(300)). "
                    + "Record the transcript again if the scenario changed on purpose (docs/testing.md)")
        }
        next += 1
        return recorded.reply
    }

    /// Every recorded exchange was asked.
    var isFinished: Bool { next == exchanges.count }
}
