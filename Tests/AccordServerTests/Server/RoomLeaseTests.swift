import AccordCRDT
import AccordStore
import Dispatch
import Foundation
import Testing
@testable import AccordServer

/// REST work on one document (a records bulk write, an export) borrows its room off the
/// hub's queue: sync for every other document, other REST calls and `/healthz` go on
/// meanwhile, and the document's own sync frames wait and are applied after it, in order.
/// The long operation is made long by a hook that holds the lease until the test lets go.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RoomLeaseTests {
    /// Holds REST work on `document` at the start of its lease until `release()`.
    final class LeaseGate: @unchecked Sendable {
        // Invariant: `held` is only touched under `lock`.
        private let lock = NSLock()
        private let gate = DispatchSemaphore(value: 0)
        private var held = 0
        private var isOpen = false
        let document: DocumentID

        init(_ document: DocumentID) { self.document = document }

        var holding: Int { lock.withLock { held } }

        func hook(_ document: DocumentID) {
            guard document == self.document, lock.withLock({ () -> Bool in
                held += 1
                return !isOpen
            }) else { return }
            gate.wait()
        }

        /// Lets the REST work holding the room (or the next to take it) go on.
        func release() { gate.signal() }

        /// Lets this and every later REST work on the document go on without holding.
        func open() {
            lock.withLock { isOpen = true }
            gate.signal()
        }
    }

    static func server(_ gate: LeaseGate) async throws -> TestServer {
        let server = try TestServer { $0.adminUsers = ["admin"] }
        try await server.prepareRecords("alpha")
        try await server.prepareRecords("gamma")
        server.server.hub.leaseStarted = { gate.hook($0) }
        return server
    }

    /// Starts a long REST call on alpha and waits until it holds alpha's room.
    static func startHeld<T: Sendable>(
        _ gate: LeaseGate, _ call: @escaping @Sendable () async throws -> T
    ) async throws -> Task<T, any Error> {
        let task = Task { try await call() }
        try await eventually("the REST call holds alpha's room") { gate.holding == 1 }
        return task
    }

    @Test func syncAndHealthGoOnWhileABulkWriteHoldsADocument() async throws {
        let gate = LeaseGate("alpha")
        let server = try await Self.server(gate)
        let port = server.port
        let carl = try await server.client("olivia", document: "alpha")
        let dave = try await server.client("olivia", document: "alpha")
        try await eventually("alpha's clients joined") { !carl.accordMessages.isEmpty && !dave.accordMessages.isEmpty }

        let bulk = try await Self.startHeld(gate) {
            try await recordsCall(port: port, "POST", "/v1/documents/alpha/records/bulk", token: server.token("olivia"), body: """
                {"operations":[{"op":"create","model":"tasks","id":"t1","value":{"title":"bulk"}}]}
                """)
        }

        // Another document syncs: an edit reaches its second client.
        let ada = try await server.client("ada", document: "beta")
        let bob = try await server.client("ada", document: "beta")
        try ada.edit("beta") { try $0.getText("t").insert(0, "meanwhile") }
        try await eventually("bob sees ada's edit while alpha is held", timeout: .seconds(5)) { bob.text("beta") == "meanwhile" }
        // The network thread answers, and REST work on another document runs.
        let health = try await server.request("GET", "/healthz", user: nil)
        #expect(health.status == 200)
        let other = try await server.call("POST", "/v1/documents/gamma/records/tasks", user: "olivia", body: #"{"id":"g1"}"#)
        #expect(other.status == 201, "\(other.text)")

        // Alpha's own frames wait for the lease...
        for piece in ["1", "2", "3"] {
            try carl.edit("alpha") { try $0.getText("t").insert($0.getText("t").length, piece) }
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(dave.text("alpha") == "", "a frame for alpha was applied while its room was leased")
        #expect(gate.holding == 1)

        // ...and are applied after it, in order, with the bulk write's record.
        gate.open()
        let response = try await bulk.value
        #expect(response.status == 200, "\(response.text)")
        try await eventually("dave gets carl's edits after the lease") { dave.text("alpha") == "123" }
        try await eventually("dave gets the bulk write's record") {
            dave.edit("alpha") { doc in (try? doc.getMap("tasks").get("t1")) != nil }
        }
        try await eventually("the edits are stored") {
            let stored = Doc()
            try stored.applyUpdate(server.documentState("alpha"))
            return try stored.getText("t").string == "123"
        }
        let record = try await server.call("GET", "/v1/documents/alpha/records/tasks/t1", user: "olivia")
        #expect(record.record["title"] as? String == "bulk")
        #expect(carl.errorCodes.isEmpty && dave.errorCodes.isEmpty && ada.errorCodes.isEmpty)
        try await server.stop()
    }

    /// A second REST call on the same document waits for the first; a client joining the
    /// document during the lease joins after it and gets everything.
    @Test func anExportWaitsItsTurnAndAJoinDuringTheLeaseCatchesUp() async throws {
        let gate = LeaseGate("alpha")
        let server = try await Self.server(gate)
        let port = server.port
        let export = try await Self.startHeld(gate) {
            try await recordsCall(port: port, "GET", "/v1/admin/documents/alpha/export", token: server.token("admin"))
        }
        let write = Task {
            try await recordsCall(port: port, "POST", "/v1/documents/alpha/records/tasks", token: server.token("olivia"),
                                  body: #"{"id":"t2","title":"second"}"#)
        }
        let late = try await server.client("olivia", document: "alpha")
        try await Task.sleep(for: .milliseconds(300))
        #expect(gate.holding == 1, "the second call took alpha's room while the export held it")

        gate.release()  // the export
        let exported = try await export.value
        #expect(exported.status == 200, "\(exported.text)")
        try await eventually("the write took the room") { gate.holding == 2 }
        gate.release()  // the write
        #expect(try await write.value.status == 201)
        try await eventually("the late client has the write") {
            late.edit("alpha") { doc in (try? doc.getMap("tasks").get("t2")) != nil }
        }
        try await server.stop()
    }

    /// Stopping the server while REST work holds a room does not wait for it; the work,
    /// let go afterwards, stores nothing and ends.
    @Test func stopDoesNotWaitForALease() async throws {
        let gate = LeaseGate("alpha")
        let server = try await Self.server(gate)
        let port = server.port
        let before = try server.documentState("alpha")
        let write = try await Self.startHeld(gate) {
            try? await recordsCall(port: port, "POST", "/v1/documents/alpha/records/tasks", token: server.token("olivia"),
                                   body: #"{"id":"t3"}"#)
        }
        try await server.server.hub.stopOffQueue()
        gate.release()
        _ = try await write.value
        #expect(try server.documentState("alpha") == before, "a write stored after the hub stopped")
        try await server.stop()
    }
}

extension SyncHub {
    /// ``stop()`` from a dispatch thread (it waits for the queue).
    func stopOffQueue() async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                do { try self.stop(); done.resume() } catch { done.resume(throwing: error) }
            }
        }
    }
}
