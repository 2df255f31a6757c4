public import AccordCRDT

/// Which messages a sync connection's client understands, so it never receives a
/// frame it cannot parse.
///
/// Stock y-websocket clients handle outer types 0–3 only; anything else makes
/// y-websocket log "Unable to compute message" (and other clients may fail harder).
/// Accord's own messages (type 100: hello, acks, coded errors, broadcasts) therefore
/// go only to clients that ask for them. On `/v1/sync` every client is an Accord
/// client (the envelope is Accord's); on `/v1/sync/{id}` an Accord client adds
/// `accord=1` to the URL's query (``queryParameter``). A query parameter, not a
/// WebSocket subprotocol: browsers and every client library can add one, and lws
/// refuses the upgrade of a client naming a subprotocol its vhost does not list.
public enum SyncDialect: Hashable, Sendable {
    /// y-protocols only: sync, awareness, auth, query awareness. A refusal reaches
    /// such a client as an auth "permission denied" and the close code and reason;
    /// other coded errors are counted in the metrics but not sent.
    case yProtocols
    /// y-protocols plus Accord's messages.
    case accord

    /// The query parameter of `/v1/sync/{id}` that selects ``accord`` (`accord=1`).
    public static let queryParameter = "accord"

    /// The dialect of a connection to `endpoint` whose URL carries `parameter` as the
    /// value of ``queryParameter`` (nil: absent). `/v1/sync` is always ``accord``.
    /// Throws `INVALID_ARGUMENT` for a value other than `0` or `1`.
    public init(endpoint: SyncEndpoint, parameter: String?) throws(AccordError) {
        if endpoint == .multiplexed {
            self = .accord
            return
        }
        switch parameter {
        case nil, "0": self = .yProtocols
        case "1": self = .accord
        case let value?:
            throw AccordError(
                .invalidArgument, "query parameter \(Self.queryParameter) must be 0 or 1, not '\(value.prefix(32))'",
                details: ["parameter": Self.queryParameter])
        }
    }
}
