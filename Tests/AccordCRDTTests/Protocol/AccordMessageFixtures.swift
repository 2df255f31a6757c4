import AccordTesting
@testable import AccordCRDT

/// Accord messages with their bytes written out by hand from the layout in
/// `docs/protocol.md`, so the tests check the format, not just encode/decode symmetry.
enum AccordMessageFixtures {
    static let golden: [(name: String, message: AccordMessage, hex: String)] = [
        // 64 type 100 · 00 hello · vs("accord/0.1") · vu(2^20) = 80 80 40 · vu(30)
        ("hello", .hello(serverVersion: "accord/0.1", maxFrameBytes: 1_048_576, heartbeatSeconds: 30),
         "64 00 0a 6163636f72642f302e31 808040 1e"),
        // 01 update · vs("notes") · vu(7) · vb([1, 2, 3])
        ("update", .update(documentID: "notes", sequence: 7, bytes: [1, 2, 3]),
         "64 01 05 6e6f746573 07 03 010203"),
        // 02 ack · vs("notes") · vu(300) = ac 02
        ("ack", .ack(documentID: "notes", through: 300), "64 02 05 6e6f746573 ac02"),
        // 03 error · vs("NOT_FOUND") · vs("no") · absent document = 00
        ("error without document", .error(code: "NOT_FOUND", message: "no", documentID: nil),
         "64 03 09 4e4f545f464f554e44 02 6e6f 00"),
        // 03 error · vs("E") · vs("") · present = 01 · vs("notes")
        ("error with document", .error(code: "E", message: "", documentID: "notes"),
         "64 03 01 45 00 01 05 6e6f746573"),
        // 04 broadcast · vs("notes") · vs("cursor") · vs("{\"x\":1}") · 01 · vs("alice")
        ("broadcast", .broadcast(documentID: "notes", topic: "cursor", payload: #"{"x":1}"#, sender: "alice"),
         "64 04 05 6e6f746573 06 637572736f72 07 7b2278223a317d 01 05 616c696365"),
        ("broadcast without sender", .broadcast(documentID: "notes", topic: "", payload: "[]", sender: nil),
         "64 04 05 6e6f746573 00 02 5b5d 00"),
        // 05 leave · vs("notes")
        ("leave", .leave(documentID: "notes"), "64 05 05 6e6f746573"),
    ]

    static let goldenMultiplexed: [(name: String, frame: MultiplexedFrame, hex: String)] = [
        // vs("notes") · sync frame: 00 sync · 00 step 1 · vb(empty state vector = 00)
        ("sync", MultiplexedFrame(documentID: "notes", frame: .sync(.step1(stateVector: [0]))),
         "05 6e6f746573 00 00 01 00"),
        // vs("notes") · awareness frame: 01 · vb(update with no entries = 00)
        ("awareness", MultiplexedFrame(documentID: "notes", frame: .awareness([0])),
         "05 6e6f746573 01 01 00"),
        // vs("") marks the connection · hello frame
        ("hello", MultiplexedFrame(documentID: nil,
                                   frame: .custom(type: 100, body: bytes("00 00 00 00"))),
         "00 64 00 00 00 00"),
        ("ack", MultiplexedFrame(documentID: "notes",
                                 frame: .custom(type: 100, body: bytes("02 05 6e6f746573 ac02"))),
         "05 6e6f746573 64 02 05 6e6f746573 ac02"),
    ]

    /// Hex with spaces for readability.
    static func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex.filter { $0 != " " }) }

    /// Every encoded example, for the truncation and mutation tests.
    static var allEncoded: [(name: String, bytes: [UInt8], multiplexed: Bool)] {
        golden.map { ($0.name, bytes($0.hex), false) } + goldenMultiplexed.map { ("mux " + $0.name, bytes($0.hex), true) }
    }
}
