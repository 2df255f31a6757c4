import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing
@testable import AccordServer

/// `accord serve` as a process: killed with SIGKILL while clients push, every update it
/// acked is there after a restart; stopped with SIGTERM, everything it applied is.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct ServeCrashTests {
    static let rounds = ProcessInfo.processInfo.environment["ACCORD_SOAK"] == "1" ? 30 : 3

    /// One writer's edits: edit `i` appends `"<name>-<i>;"` and is update sequence i+1.
    private struct Writer {
        let name: String
        let client: SyncTestClient
        var tokens: [String] = []
    }

    @Test func everyAckedUpdateSurvivesKillNine() async throws {
        var rng = SplitMix64(seed: 20261129)
        let directory = try TemporaryDirectory()
        var totalAcked = 0
        for round in 0..<Self.rounds {
            let serve = try ServeProcess(dataDirectory: directory.path)
            var writers: [Writer] = []
            for index in 0..<3 {
                let document = DocumentID(rawValue: "crash-\(index % 2)")!
                let client = try await SyncTestClient.connect(port: serve.port, document: document, token: serve.token)
                client.sendsAccordUpdates = true
                writers.append(Writer(name: "r\(round)w\(index)", client: client))
            }
            let killAfter = Duration.milliseconds(200 + Int(rng.next() % 600))
            let start = ContinuousClock.now
            var step = 0
            while ContinuousClock.now - start < killAfter {
                for index in writers.indices {
                    let token = "\(writers[index].name)-\(step);"
                    let document = writers[index].client.endpoint.documentID!
                    try writers[index].client.edit(document) { doc in
                        let text = try doc.getText("t")
                        try text.insert(text.length, token)
                    }
                    writers[index].tokens.append(token)
                }
                step += 1
                try await Task.sleep(for: .milliseconds(2))
            }
            serve.kill()
            let acked = writers.map { writer in writer.tokens.prefix(Int(writer.client.acks.max() ?? 0)) }
            totalAcked += acked.map(\.count).reduce(0, +)

            let restarted = try ServeProcess(dataDirectory: directory.path)
            for document in ["crash-0", "crash-1"] as [DocumentID] {
                let reader = try await SyncTestClient.connect(port: restarted.port, document: document, token: restarted.token)
                let expected = writers.indices.filter { writers[$0].client.endpoint.documentID == document }.flatMap { acked[$0] }
                do {
                    try await eventually("acked edits of \(document) in round \(round)") {
                        let text = reader.text(document)
                        return expected.allSatisfy { text.contains($0) }
                    }
                } catch {
                    let text = reader.text(document)
                    Issue.record("round \(round): missing \(expected.filter { !text.contains($0) })")
                }
                reader.close()
            }
            #expect(restarted.terminate() == 0)
        }
        // The test means something only if the server acked work before the kills.
        #expect(totalAcked > 0)
    }

    @Test func sigtermFlushesEverythingApplied() async throws {
        let directory = try TemporaryDirectory()
        let serve = try ServeProcess(dataDirectory: directory.path)
        let writer = try await SyncTestClient.connect(port: serve.port, document: "doc", token: serve.token)
        let watcher = try await SyncTestClient.connect(port: serve.port, document: "doc", token: serve.token)
        for i in 0..<200 {
            try writer.edit("doc") { doc in try doc.getText("t").insert(doc.getText("t").length, "\(i),") }
        }
        let expected = writer.text("doc")
        try await eventually("relayed") { watcher.text("doc") == expected }
        #expect(serve.terminate() == 0)
        #expect(writer.closed == nil || writer.closed?.code == 1001)

        let restarted = try ServeProcess(dataDirectory: directory.path)
        let reader = try await SyncTestClient.connect(port: restarted.port, document: "doc", token: restarted.token)
        try await eventually("restored") { reader.text("doc") == expected }
        #expect(restarted.terminate() == 0)
    }
}

extension SyncEndpoint {
    var documentID: DocumentID? { if case .document(let id) = self { id } else { nil } }
}
