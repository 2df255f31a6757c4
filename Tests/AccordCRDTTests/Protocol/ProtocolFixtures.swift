import Foundation
@testable import AccordCRDT

/// Accessors for the protocol cases of `vectors.json`.
enum ProtocolFixtures {
    static var sync: [String: Any] { SharedFixtures.vectorCase("sync_protocol_messages") }
    static var awareness: [String: Any] { SharedFixtures.vectorCase("awareness_protocol") }

    static func syncBytes(_ key: String) -> [UInt8] { Hex.decode(sync[key] as! String) }
    static func awarenessBytes(_ key: String) -> [UInt8] { Hex.decode(awareness[key] as! String) }

    /// A vector's JSON state as an ``AnyValue`` (key order is irrelevant to equality).
    static func state(_ json: Any) throws -> AnyValue {
        let data = try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])
        return try AnyValue(jsonText: String(decoding: data, as: UTF8.self))
    }

    /// `update_entries` / `multi_client_entries` as model entries.
    static func entries(_ key: String) throws -> [AwarenessUpdate.Entry] {
        try (awareness[key] as! [[String: Any]]).map { e in
            AwarenessUpdate.Entry(
                clientID: (e["client"] as! NSNumber).uint64Value,
                clock: (e["clock"] as! NSNumber).uint64Value,
                state: try state(e["state"]!))
        }
    }

    /// Every golden frame of both cases, for the malformed-input tests.
    static var goldenFrames: [(name: String, bytes: [UInt8])] {
        let syncKeys = ["sync_step1_from_A_hex", "sync_step2_from_B_hex", "sync_step1_from_B_hex",
                        "sync_step2_from_A_hex", "update_message_hex", "empty_doc_step1_hex"]
        let awarenessKeys = ["websocket_frame_hex", "removal_websocket_frame_hex", "query_awareness_frame_hex"]
        var frames = syncKeys.map { ($0, syncBytes($0)) } + awarenessKeys.map { ($0, awarenessBytes($0)) }
        let multi = awarenessBytes("multi_client_update_hex")
        frames.append(("multi_client_frame", ProtocolFrame.awareness(multi).encode()))
        frames.append(("auth_denied", ProtocolFrame.auth(.permissionDenied(reason: "no access")).encode()))
        frames.append(("auth_granted", ProtocolFrame.auth(.permissionGranted).encode()))
        return frames
    }

    /// Every golden awareness update body.
    static var goldenAwarenessUpdates: [(name: String, bytes: [UInt8])] {
        ["update_hex", "removal_update_hex", "multi_client_update_hex"].map { ($0, awarenessBytes($0)) }
    }
}
