import AccordTesting

/// One step of a fault soak: an edit by one client, or a fault (or its end). Positions
/// are raw random numbers, resolved against the document's length when the step runs,
/// since that length depends on what has arrived by then.
enum SoakStep: CustomStringConvertible {
    case edit(client: Int, document: Int, SoakEdit)
    /// Lets time pass between steps, so timers, reconnects and deliveries interleave.
    case pause(milliseconds: Int)
    /// Closes the client's connection at the proxy (the client sees 1006).
    case cut(client: Int)
    /// The proxy accepts and closes new connections (on) or forwards them again (off).
    case refuse(client: Int, Bool)
    /// Message faults at the client's proxy from now on; `.none` ends them.
    case messageFaults(client: Int, toServer: FaultProxy.MessageFaults, toClient: FaultProxy.MessageFaults)
    /// The client's live connection goes silent both ways for good; only its heartbeat notices.
    case freeze(client: Int)
    case goOffline(client: Int)
    case goOnline(client: Int)
    case useAutomaticMode(client: Int)
    case serverDown
    case serverUp
    /// The client goes away and a new instance opens its store file: `graceful` with
    /// `stop()`, otherwise released without it (the store is closed after, as a process
    /// exit would leave the file).
    case restartClient(client: Int, graceful: Bool)

    var isEdit: Bool { if case .edit = self { true } else { false } }

    var description: String {
        switch self {
        case .edit(let client, let document, let edit): "c\(client) d\(document) \(edit)"
        case .pause(let ms): "pause \(ms) ms"
        case .cut(let client): "cut c\(client)"
        case .refuse(let client, let on): "refuse c\(client) \(on)"
        case .messageFaults(let client, let up, let down): "faults c\(client) up \(up) down \(down)"
        case .freeze(let client): "freeze c\(client)"
        case .goOffline(let client): "goOffline c\(client)"
        case .goOnline(let client): "goOnline c\(client)"
        case .useAutomaticMode(let client): "auto c\(client)"
        case .serverDown: "server down"
        case .serverUp: "server up"
        case .restartClient(let client, let graceful): "restart c\(client)\(graceful ? "" : " (no stop)")"
        }
    }
}

/// An edit of one soak document's roots (see ``DocumentSnapshot``).
enum SoakEdit: CustomStringConvertible {
    /// Inserts `text` into the text root at `position` modulo (length + 1).
    case insertText(position: UInt64, text: String)
    /// Deletes up to `count` characters at `position` modulo the length (nothing when empty).
    case deleteText(position: UInt64, count: Int)
    case setMap(key: String, value: Int64)
    case deleteMapKey(String)
    /// Appends a value unique to the whole run to the array root, so the end state can
    /// show that no push was lost or applied twice.
    case pushArray

    var description: String {
        switch self {
        case .insertText(let position, let text): "insert \(position) \"\(text)\""
        case .deleteText(let position, let count): "delete \(position) \(count)"
        case .setMap(let key, let value): "set \(key)=\(value)"
        case .deleteMapKey(let key): "unset \(key)"
        case .pushArray: "push"
        }
    }
}
