/// What ``AccordClient/open(_:waitForLoad:enableNetworkSync:syncMode:)`` waits for
/// before it returns.
public enum WaitForLoad: Hashable, Sendable {
    /// Return at once with what the store holds (a document missing locally is created
    /// empty and fills as it syncs).
    case local
    /// Return once the server's state has been applied. Fails fast with
    /// `DOCUMENT_UNAVAILABLE_OFFLINE` while offline and with `NETWORK_TIMEOUT` when the
    /// server does not answer within the handshake budget.
    case network
    /// `local` when the store holds the document, else `network`.
    case localElseNetwork
}

/// What ``AccordClient/close(_:evictLocal:)`` did.
public struct CloseResult: Hashable, Sendable {
    /// Whether the local content was evicted. False when eviction was not asked for, or
    /// was skipped because the server has not acknowledged every local edit yet, or the
    /// document is local-only (its content exists nowhere else).
    public var evicted: Bool

    public init(evicted: Bool) { self.evicted = evicted }
}
