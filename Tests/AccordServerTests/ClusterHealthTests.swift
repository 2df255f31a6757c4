import Foundation
import Testing
import AccordPostgres
import AccordTesting
@testable import AccordServer

/// `/readyz` on a cluster node follows its LISTEN connection: while that connection is
/// down the node is not ready (it would miss the other nodes' edits), and it is ready
/// again by itself once the listener has reconnected.
@Suite(.serialized) struct ClusterHealthTests {
    @Test func readyzSaysNotReadyWhileTheListenConnectionIsDown() async throws {
        var cluster = try ClusterServeTests.Cluster()
        defer { cluster.drop() }
        try cluster.start(0)
        let port = cluster.nodes[0].port
        // Ready once its LISTEN connection is up (a moment after it starts listening).
        var ready = false
        let start = ContinuousClock.now + .seconds(10)
        while !ready, ContinuousClock.now < start {
            ready = try await recordsCall(port: port, "GET", "/readyz", token: nil).status == 200
            if !ready { try await Task.sleep(for: .milliseconds(20)) }
        }
        try #require(ready, "the node never became ready")

        // Cut the node's LISTEN backend again and again (it reconnects after 100 ms or
        // more each time), until a /readyz lands while it is down.
        let database = try PostgresConnection(url: cluster.url)
        let listen = PostgresValue.text("LISTEN \"\(cluster.schema)\"")
        var refusal: RecordsResponse?
        let deadline = ContinuousClock.now + .seconds(20)
        while refusal == nil, ContinuousClock.now < deadline {
            _ = try database.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1", [listen])
            for _ in 0..<5 {
                let answer = try await recordsCall(port: port, "GET", "/readyz", token: nil)
                if answer.status != 200 {
                    refusal = answer
                    break
                }
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        let notReady = try #require(refusal, "/readyz never answered other than 200 while LISTEN was being cut")
        #expect(notReady.status == 503)
        #expect(notReady.errorCode == "SERVER_NOT_READY")
        #expect(
            ((notReady.json as? [String: Any])?["error"] as? [String: Any])?["message"].map { "\($0)" }?
                .contains("not listening") == true)

        // Left alone, the listener reconnects and the node is ready again.
        var readyAgain = false
        let recovery = ContinuousClock.now + .seconds(15)
        while !readyAgain, ContinuousClock.now < recovery {
            readyAgain = (try? await recordsCall(port: port, "GET", "/readyz", token: nil).status) == 200
            if !readyAgain { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(readyAgain, "not ready 15 s after the last cut")
        let reconnected = try database.query("SELECT count(*) FROM pg_stat_activity WHERE query = $1", [listen]).firstInt64
        #expect(reconnected == 1)
    }
}
