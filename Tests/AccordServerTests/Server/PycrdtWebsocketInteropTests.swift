import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing

/// Interop with clients no one here wrote: pycrdt-websocket (PyPI) clients and a Swift
/// client edit one document through a real `accord serve`, and all converge, with
/// y-websocket clients (``YWebsocketTestClient``) sharing presence in the same room.
/// pycrdt-websocket's `Provider` speaks only the sync part of y-protocols: it ignores
/// awareness (it sends none and applies none), so presence is the y-websocket clients'.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct PycrdtWebsocketInteropTests {
    private static var clientScript: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/pycrdt_ws_client.py").path
    }

    /// Starts `scripts/pycrdt_ws_client.py`; stdout carries its final JSON line.
    private static func startPythonClient(url: String, name: String, edits: Int, expectLength: Int) throws -> (Process, Pipe, Pipe) {
        guard let python = ProcessInfo.processInfo.environment["ACCORD_PYTHON"], !python.isEmpty else {
            throw TestFailure("ACCORD_PYTHON is not set; run `make test`, which sets up the pycrdt-websocket venv")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [clientScript, "--url", url, "--name", name, "--edits", String(edits),
                             "--expect-length", String(expectLength), "--timeout", "60"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    @Test func pycrdtWebsocketClientsAndASwiftClientConvergeThroughAccordServe() async throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(dataDirectory: directory.path)
        let url = "ws://127.0.0.1:\(serve.port)/v1/sync/interop?token=\(serve.token)"
        let swift = try await SyncTestClient.connect(port: serve.port, document: "interop", token: serve.token)
        // Each client inserts "<name>-<i>;" three times: 18 characters each, 54 in all.
        let pythons = try ["py1", "py2"].map { try Self.startPythonClient(url: url, name: $0, edits: 3, expectLength: 54) }
        // Two y-websocket clients in the room set presence and see each other's; one
        // drops and comes back. Their awareness traffic reaches the pycrdt clients too.
        let ywsA = try await YWebsocketTestClient.connect(port: serve.port, document: "interop", token: serve.token, clientID: 701)
        let ywsB = try await YWebsocketTestClient.connect(port: serve.port, document: "interop", token: serve.token, clientID: 702)
        ywsA.setState(.object(["name": .string("a")]))
        ywsB.setState(.object(["name": .string("b")]))
        try await eventually("presence shared", timeout: .seconds(1)) {
            ywsA.states[702] == .object(["name": .string("b")]) && ywsB.states[701] == .object(["name": .string("a")])
        }
        ywsB.drop()
        try await eventually("b's removal reached a", timeout: .seconds(1)) { ywsA.states[702] == nil }
        try await eventually("b is back for a, and a for b", timeout: .seconds(2)) {
            ywsA.states[702] == .object(["name": .string("b")]) && ywsB.states[701] == .object(["name": .string("a")])
        }
        for i in 0..<3 {
            try swift.edit("interop") { doc in
                let text = try doc.getText("text")
                try text.insert(text.length, "swf-\(i);")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await eventually("swift client has every edit", timeout: .seconds(60)) { swift.text("interop", "text").count == 54 }
        let final = swift.text("interop", "text")
        for (process, output, errors) in pythons {
            let result = try await onThread { () -> (Int32, String, String) in
                process.waitUntilExit()
                let out = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                return (process.terminationStatus, out, err)
            }
            #expect(result.0 == 0, "pycrdt client failed: \(result.2)")
            let line = try #require(result.1.split(separator: "\n").last)
            let json = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(json?["text"] as? String == final)
            #expect((json?["foreign_types"] as? [Int]) == [], "pycrdt client received non-y-protocols frames: \(line)")
        }
        #expect(ywsA.foreignFrames.isEmpty && ywsB.foreignFrames.isEmpty)
        try await eventually("the y-websocket clients converged") { ywsA.text("text") == final && ywsB.text("text") == final }
        ywsA.stop()
        ywsB.stop()
        for name in ["py1", "py2", "swf"] {
            for i in 0..<3 { #expect(final.contains("\(name)-\(i);")) }
        }
        // And the server stored the same document.
        #expect(serve.terminate() == 0)
        let store = try DocumentStore(path: directory.path + "/accord.sqlite")
        #expect(try store.load("interop").getText("text").string == final)
        try store.close()
    }
}

/// Runs blocking work on its own thread, so no Swift concurrency thread blocks.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
