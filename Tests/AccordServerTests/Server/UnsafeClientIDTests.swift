import AccordCRDT
import AccordStore
import Foundation
import Testing
@testable import AccordServer

/// Client ids above 2^53 − 1 cannot be read exactly by JavaScript Yjs: the server refuses
/// updates and state vectors naming them, and the document stays byte-identical.
@Suite(.timeLimit(.minutes(2)))
struct UnsafeClientIDTests {
    static let big: ClientID = (1 << 60) + 1

    @Test func anUpdateWrittenWithAnUnsafeClientIDIsRefusedAndNothingIsStored() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "doc")
        try ada.edit("doc") { try $0.getText("t").insert(0, "base") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }
        let before = try server.storedState("doc")

        for accordUpdates in [false, true] {
            let writer = try await SyncTestClient.connect(
                port: server.port, document: "doc", token: server.token("ada"), opens: false)
            writer.sendsAccordUpdates = accordUpdates
            writer.open("doc", clientID: Self.big)
            try await eventually("writer synced") { writer.text("doc") == "base" }
            try writer.edit("doc") { try $0.getText("t").insert(0, "lost for JS ") }
            try await eventually("refused") { writer.errorCodes.contains("MALFORMED_UPDATE") }
            #expect(writer.closed == nil)
            #expect(writer.acks.isEmpty)
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(try server.storedState("doc") == before)
        #expect(ada.text("doc") == "base")
        try await server.stop()
    }

    @Test func aStateVectorNamingAnUnsafeClientIDIsMalformed() async throws {
        let server = try TestServer()
        let ada = try await server.client("ada", document: "doc")
        try ada.edit("doc") { try $0.getText("t").insert(0, "base") }
        try await eventually("stored") { server.server.metrics.snapshot.persistCount >= 1 }
        let before = try server.storedState("doc")
        let frames = ada.frames.count
        ada.send(.sync(.step1(stateVector: StateVector([Self.big: 3]).encode())), document: "doc")
        try await eventually("refused") { ada.errorCodes.contains("MALFORMED_MESSAGE") }
        // No step 2 answered it, and the connection stays.
        #expect(!ada.frames.dropFirst(frames).contains { if case .sync(.step2) = $0.frame { true } else { false } })
        #expect(ada.closed == nil)
        #expect(try server.storedState("doc") == before)
        try await server.stop()
    }
}
