import AccordCRDT
import AccordStore
@testable import AccordSync

/// Frames and updates the sync tests build, and ways to read actions.
enum SyncFixture {
    static let id: DocumentID = "notes"
    static let hello = ServerHello(serverVersion: "test", maxFrameBytes: 1 << 20, heartbeatSeconds: 20)

    static func update(_ sequence: UInt64, _ bytes: [UInt8] = [1, 2, 3]) -> OutboundUpdate {
        OutboundUpdate(sequence: sequence, bytes: bytes + [UInt8(truncatingIfNeeded: sequence)])
    }

    static func accord(_ message: AccordMessage) throws -> ProtocolFrame { try message.frame() }

    static func ack(_ through: UInt64) throws -> ProtocolFrame {
        try AccordMessage.ack(documentID: id.rawValue, through: through).frame()
    }

    static func error(_ code: String) throws -> ProtocolFrame {
        try AccordMessage.error(code: code, message: "refused", documentID: id.rawValue).frame()
    }

    /// The sequences of the Accord `update` messages among `actions`, in order.
    static func sentSequences(_ actions: [DocumentSyncAction]) -> [UInt64] {
        actions.compactMap { action in
            guard case .send(let frame) = action, case .update(_, let sequence, _)? = try? AccordMessage.decode(frame: frame)
            else { return nil }
            return sequence
        }
    }

    static func emitted(_ actions: [DocumentSyncAction]) -> [DocumentSyncEvent] {
        actions.compactMap { if case .emit(let event) = $0 { event } else { nil } }
    }

    static func sendsStepOne(_ actions: [DocumentSyncAction]) -> Bool { actions.contains(.sendStepOne) }

    /// Anything that would put bytes on the wire.
    static func sendsAnything(_ actions: [DocumentSyncAction]) -> Bool {
        actions.contains { action in
            switch action {
            case .send, .sendStepOne, .answerStepOne: true
            default: false
            }
        }
    }
}
