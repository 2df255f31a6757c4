import Testing
import AccordCRDT
import AccordNet
import AccordStore
@testable import AccordSync

/// Everything a stream yields, collected as it comes, and whether it finished.
actor Collected<Element: Sendable> {
    private(set) var items: [Element] = []
    private(set) var isFinished = false

    init(_ stream: AsyncStream<Element>) {
        Task { await self.consume(stream) }
    }

    private func consume(_ stream: AsyncStream<Element>) async {
        for await item in stream { items.append(item) }
        isFinished = true
    }
}

/// A stock y-websocket peer on the single-document endpoint `/v1/sync/{id}`, speaking
/// only the awareness part of y-protocols with AccordCRDT's `Awareness` (the rules of
/// y-protocols `awareness.js`): what a Yjs browser tab in the same room would do.
actor YjsAwarenessPeer {
    private let socket: WebSocketClient
    private(set) var awareness: Awareness

    init(url: String, clientID: ClientID) async throws {
        socket = try await WebSocketClient.connect(to: url)
        awareness = Awareness(localClientID: clientID, now: 0)
        awareness.setLocalState(nil, now: 0)
        let events = socket.events
        Task { await self.read(events) }
    }

    private func read(_ events: AsyncStream<WebSocketClient.Event>) async {
        for await event in events {
            guard case .message(let bytes) = event, case .awareness(let update)? = try? ProtocolFrame.decode(bytes) else { continue }
            _ = try? awareness.apply(encoded: update, now: 0)
        }
    }

    /// Sets our state and sends our entry, as `awareness.setLocalState` and y-websocket do.
    func set(_ state: AnyValue) {
        awareness.setLocalState(state, now: 0)
        socket.send(ProtocolFrame.awareness(awareness.encodeUpdate(clients: [awareness.localClientID])).encode())
    }

    func close() { socket.close() }
}

extension AccordClient {
    /// The awareness client id of a document: its `Doc`'s client id.
    func clientID(_ id: DocumentID) throws -> ClientID {
        try withDocument(id) { $0.clientID }
    }
}
