import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import AccordServer

/// `accord_dashboard_cpu_seconds_total`: the dashboard's own CPU time, counted where
/// its work runs. The page-driven parts stay exactly where they were while no page is
/// open, and move once one is.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct DashboardCPUTests {
    static func dashboardCPU(_ server: TestServer) async throws -> [String: Double] {
        let metrics = try await DashboardAPITests.call(server, "GET", "/metrics", token: nil)
        #expect(metrics.status == 200)
        var parts: [String: Double] = [:]
        let prefix = "accord_dashboard_cpu_seconds_total{part=\""
        for line in String(decoding: metrics.body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            guard let quote = rest.firstIndex(of: "\""), let value = Double(rest[rest.index(quote, offsetBy: 3)...]) else { continue }
            parts[String(rest[..<quote])] = value
        }
        return parts
    }

    @Test func theThreadClockIsReadHere() {
        #if os(Linux)
        #expect(DashboardCPU.isSupported)
        #endif
        let cpu = DashboardCPU()
        // Busy work the clock must see (thread CPU time, not wall time).
        let sum = cpu.measure(.routes) { (0..<2_000_000).reduce(0) { $0 &+ $1 &* 31 } }
        #expect(sum != 0)
        if DashboardCPU.isSupported {
            #expect(cpu.seconds[.routes]! > 0)
        }
        #expect(cpu.seconds[.live] == 0 && cpu.seconds[.sampler] == 0 && cpu.seconds[.hooks] == 0)
    }

    @Test func briefWorkIsTimedOnEveryCallAndAgreesWithTheThreadClock() {
        guard DashboardCPU.isSupported else { return }
        let cpu = DashboardCPU()
        func work() -> Int { (0..<200_000).reduce(0) { $0 &+ $1 &* 31 } }
        #expect(cpu.measureBrief(.hooks, work) != 0)
        let once = cpu.seconds[.hooks]!
        #expect(once > 0, "the first call is timed")
        #expect(cpu.measureBrief(.hooks, work) != 0)
        let twice = cpu.seconds[.hooks]!
        #expect(twice > once, "and the second")
        // The same work on the thread clock: the two agree within a wide margin (a
        // preemption would only add to the monotonic figure).
        #expect(cpu.measure(.routes, work) != 0)
        let threadClock = cpu.seconds[.routes]!
        #expect(once > threadClock / 4 && once < threadClock * 4, "monotonic \(once) s vs thread clock \(threadClock) s")
        // An empty call costs next to nothing: the clock's own cost is taken off.
        let before = cpu.seconds[.sampler]!
        for _ in 0..<1000 { cpu.measureBrief(.sampler) {} }
        #expect(cpu.seconds[.sampler]! - before < 0.001, "1,000 empty calls counted as \(cpu.seconds[.sampler]! - before) s")
    }

    @Test func theCounterMovesWhenAPageWorksAndStaysFlatWhenNoneIsOpen() async throws {
        guard DashboardCPU.isSupported else { return }
        // A short heartbeat: the raw socket below answers no ping, so the server hangs
        // up after three seconds, which ends its transcript.
        let server = try TestServer { $0.heartbeatSeconds = 1 }
        let client = try await server.client("alice", document: "watched")
        try client.edit("watched") { doc in try doc.getText("t").insert(0, "hello") }
        try await eventually("stored") { (try? server.documents.metadata("watched").size) ?? 0 > 0 }

        let before = try await Self.dashboardCPU(server)
        #expect(Set(before.keys) == ["sampler", "routes", "live", "hooks"])
        // No page: traffic and samples go on, the page's parts do not move at all.
        // Two hook calls per stored update (the hub's and the store's), one in 16 timed.
        for index in 0..<16 {
            try client.edit("watched") { doc in try doc.getText("t").insert(0, "\(index)") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let idle = try await Self.dashboardCPU(server)
        #expect(idle["routes"] == 0 && idle["live"] == 0, "\(idle)")
        #expect(idle["sampler"]! > before["sampler"]!, "the sampler runs with or without a page: \(before) \(idle)")
        #expect(idle["hooks"]! > 0, "every stored update goes through the dashboard's hook")

        // A page: its live socket, the table, the document.
        let admin = DashboardAPITests.admin(server)
        let ticket = try #require(try await DashboardAPITests.call(server, "POST", "/v1/admin/dashboard/ticket", token: admin)
            .result?["ticket"] as? String)
        let afterTicket = try await Self.dashboardCPU(server)
        #expect(afterTicket["routes"]! > 0)
        let socket = try RawWebSocket(port: server.port, timeoutSeconds: 2)
        let (status, rest) = try socket.upgrade(path: DashboardMonitor.livePath + "?ticket=" + ticket)
        #expect(status.contains("101"))
        #expect(try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/documents", token: admin).status == 200)
        #expect(try await DashboardAPITests.call(server, "GET", "/v1/admin/dashboard/document?id=watched", token: admin).status == 200)
        try client.edit("watched") { doc in try doc.getText("t").insert(0, "seen") }
        let transcript = socket.readToEnd(after: rest)
        #expect(transcript.messages.count >= 2, "hello and at least one sample or notice")
        let working = try await Self.dashboardCPU(server)
        #expect(working["routes"]! > afterTicket["routes"]!, "\(afterTicket) \(working)")
        #expect(working["live"]! > 0, "the ticket check and the messages sent: \(working)")
        client.close()
        try await server.stop()
    }
}
