import AccordNet
import AccordTesting
import Foundation
import Testing

/// `FaultProxy` between an AccordNet `WebSocketClient` and an echo `WebSocketServer`.
@Suite(.timeLimit(.minutes(1)))
struct FaultProxyTests {
    @Test func passesMessagesOfEverySizeUnchanged() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        let client = try await RecordedClient.connect(port: proxy.port)
        let sizes = [0, 1, 125, 126, 65535, 65536, 200_000, 1 << 20, 3 << 20]
        let sent = sizes.enumerated().map { pattern($0.element, seed: UInt8($0.offset)) }
        for message in sent { client.client.send(message) }
        let echoed = try await client.messages(count: sent.count)
        #expect(echoed.map(\.count) == sizes)
        #expect(echoed == sent)
        #expect(echo.messages == sent)
        client.client.close()
        #expect(try await client.closed() == 1000)
        #expect(try await echo.log.wait("server closed") { _ in echo.closeCodes.first } == 1000)
        // Counted once the proxy has forwarded everything, the server's close echo
        // included: the server may report its close before the proxy passed the echo on.
        _ = try await eventually("proxy connection closed") { proxy.openConnections == 0 ? true : nil }
        let counters = proxy.counters
        #expect(counters.connectionsAccepted == 1)
        #expect(counters.clientToServer.messagesForwarded == sizes.count)
        #expect(counters.serverToClient.messagesForwarded == sizes.count)
        #expect(counters.clientToServer.controlFramesForwarded == 1)  // the close, then its echo
        #expect(counters.serverToClient.controlFramesForwarded == 1)
        await proxy.stop()
        await echo.server.stop()
    }

    /// `WebSocketClient` never fragments, so a raw client sends fragmented messages with
    /// a ping between fragments. Duplicating a fragment instead of the whole message
    /// would break the framing and the server would close; dropping one would leave
    /// the rest of the message as a protocol error.
    @Test func actsOnWholeFragmentedMessages() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        try await onThread {
            let socket = try RawWebSocket(port: proxy.port)
            var controls: [RawWebSocket.Frame] = []

            let first = pattern(100_000, seed: 1)
            try socket.sendFragmented(first, pieces: 3, pingAfterFirst: [1, 2, 3])
            #expect(try socket.receiveMessage(controls: &controls) == first)
            #expect(controls == [.init(fin: true, opcode: 0xA, payload: [1, 2, 3])])

            proxy.setFaults(.init(duplicateProbability: 1), .clientToServer)
            let second = pattern(70_000, seed: 2)
            try socket.sendFragmented(second, pieces: 4)
            #expect(try socket.receiveMessage(controls: &controls) == second)
            #expect(try socket.receiveMessage(controls: &controls) == second)

            proxy.setFaults(.init(dropProbability: 1), .clientToServer)
            try socket.sendFragmented(pattern(90_000, seed: 3), pieces: 5, pingAfterFirst: [4])
            let pong = try socket.receive()  // the ping between the dropped fragments passed
            #expect(pong == .init(fin: true, opcode: 0xA, payload: [4]))
            let deadline = ContinuousClock.now + .seconds(5)
            while proxy.counters.clientToServer.messagesDropped == 0, ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }

            proxy.setFaults(.none, .clientToServer)
            let last = pattern(10, seed: 4)
            try socket.sendFragmented(last, pieces: 2)
            #expect(try socket.receiveMessage(controls: &controls) == last)  // not the dropped one
            #expect(echo.closeCodes.isEmpty)  // the framing stayed valid
        }
        #expect(echo.messages.map(\.count) == [100_000, 70_000, 70_000, 10])
        let counters = proxy.counters.clientToServer
        #expect(counters.messagesForwarded == 3)
        #expect(counters.messagesDuplicated == 1)
        #expect(counters.messagesDropped == 1)
        #expect(counters.controlFramesForwarded == 2)
        await proxy.stop()
        await echo.server.stop()
    }

    /// Plain HTTP is no upgrade: it passes as raw bytes, untouched by message faults,
    /// and the server's close reaches the client.
    @Test func passesPlainHTTPThrough() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        proxy.setFaults(.init(dropProbability: 1))
        let response = try await onThread {
            try exchange(port: proxy.port, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        }
        #expect(response.hasPrefix("HTTP/1.1 200"))
        #expect(response.hasSuffix("ok"))
        #expect(proxy.counters.clientToServer.messagesDropped == 0)
        _ = try await eventually("proxy connection closed") { proxy.openConnections == 0 ? true : nil }
        await proxy.stop()
        await echo.server.stop()
    }

    @Test func cutAllClosesBothSidesAndNewConnectionsWork() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        let first = try await RecordedClient.connect(port: proxy.port)
        let second = try await RecordedClient.connect(port: proxy.port)
        first.client.send([1])
        second.client.send([2])
        _ = try await first.messages(count: 1)
        _ = try await second.messages(count: 1)

        proxy.cutAll()
        #expect(try await first.closed() == 1006)
        #expect(try await second.closed() == 1006)
        let serverCodes = try await echo.log.wait("server saw both closes") { _ in
            echo.closeCodes.count == 2 ? echo.closeCodes : nil
        }
        #expect(serverCodes == [1006, 1006])
        _ = try await eventually("proxy connections closed") { proxy.openConnections == 0 ? true : nil }

        let third = try await RecordedClient.connect(port: proxy.port)
        third.client.send([3])
        #expect(try await third.messages(count: 1) == [[3]])
        #expect(proxy.counters.connectionsAccepted == 3)
        await proxy.stop()
        #expect(try await third.closed() == 1006)  // stop cuts what is still open
        await echo.server.stop()
    }

    @Test func refuseNewClosesNewConnectionsOnly() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        let live = try await RecordedClient.connect(port: proxy.port)

        proxy.refuseNew = true
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(proxy.port)/refused")
        }
        #expect(proxy.counters.connectionsRefused == 1)
        #expect(echo.openedCount == 1)  // the refused connection never reached the server
        live.client.send([7])
        #expect(try await live.messages(count: 1) == [[7]])

        proxy.refuseNew = false
        let later = try await RecordedClient.connect(port: proxy.port)
        later.client.send([8])
        #expect(try await later.messages(count: 1) == [[8]])
        #expect(proxy.counters.connectionsAccepted == 2)
        await proxy.stop()
        await echo.server.stop()
    }

    @Test func halfOpenSilencesBothWaysWithoutAClose() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        let client = try await RecordedClient.connect(port: proxy.port)
        client.client.send([1])
        _ = try await client.messages(count: 1)

        proxy.halfOpen = true
        for byte: UInt8 in 2...4 { client.client.send([byte]) }
        client.client.ping([9])
        _ = try await eventually("frames swallowed") {
            proxy.counters.clientToServer.framesSwallowed == 4 ? true : nil
        }
        try await Task.sleep(for: .milliseconds(300))
        #expect(client.messages == [[1]])
        #expect(client.pongs.isEmpty)
        #expect(client.closeCode == nil)
        #expect(echo.messages == [[1]])
        #expect(echo.closeCodes.isEmpty)
        #expect(proxy.openConnections == 1)

        proxy.halfOpen = false
        client.client.send([5])
        client.client.ping([10])
        #expect(try await client.messages(count: 2) == [[1], [5]])  // what was swallowed stays lost
        #expect(try await client.log.wait("pong") { _ in client.pongs.first } == [10])
        #expect(client.closeCode == nil)
        await proxy.stop()
        await echo.server.stop()
    }

    @Test func frozenConnectionsStaySilentWhileNewOnesWork() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        let frozen = try await RecordedClient.connect(port: proxy.port)
        frozen.client.send([1])
        _ = try await frozen.messages(count: 1)
        proxy.freezeOpenConnections()
        frozen.client.send([2])
        _ = try await eventually("frame swallowed") {
            proxy.counters.clientToServer.framesSwallowed >= 1 ? true : nil
        }
        let fresh = try await RecordedClient.connect(port: proxy.port)
        fresh.client.send([3])
        #expect(try await fresh.messages(count: 1) == [[3]])
        try await Task.sleep(for: .milliseconds(200))
        #expect(frozen.messages == [[1]])
        #expect(frozen.closeCode == nil)
        #expect(!proxy.halfOpen)
        await proxy.stop()
        await echo.server.stop()
    }

    /// The case heartbeats exist for: the server's idle policy pings, gets no pong
    /// through the half-open proxy and hangs up, yet the client hears nothing of it
    /// until half-open ends.
    @Test func halfOpenHoldsBackTheServersHangUp() async throws {
        let echo = try EchoServer(pingAfterSeconds: 1, hangUpAfterSeconds: 2)
        let proxy = try FaultProxy(targetPort: echo.port)
        let client = try await RecordedClient.connect(port: proxy.port)
        proxy.halfOpen = true
        let code = try await echo.log.wait("server hung up", timeout: .seconds(15)) { _ in echo.closeCodes.first }
        #expect(code == 1006)
        try await Task.sleep(for: .milliseconds(300))
        #expect(client.closeCode == nil)
        #expect(proxy.openConnections == 1)
        proxy.halfOpen = false
        #expect(try await client.closed() == 1006)
        await proxy.stop()
        await echo.server.stop()
    }

    @Test func droppingEveryMessageStillLetsPingsThrough() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        proxy.setFaults(.init(dropProbability: 1))
        let client = try await RecordedClient.connect(port: proxy.port)
        for index in 0..<20 { client.client.send(numbered(index)) }
        client.client.ping([42])
        #expect(try await client.log.wait("pong") { _ in client.pongs.first } == [42])
        _ = try await eventually("20 dropped") { proxy.counters.clientToServer.messagesDropped == 20 ? true : nil }
        // Let anything wrongly forwarded arrive, then let the server's echoes be dropped too.
        proxy.setFaults(.none, .clientToServer)
        client.client.send([99])
        _ = try await eventually("echo dropped") { proxy.counters.serverToClient.messagesDropped == 1 ? true : nil }
        #expect(echo.messages == [[99]])
        #expect(client.messages.isEmpty)
        #expect(client.closeCode == nil)
        let counters = proxy.counters
        #expect(counters.clientToServer.messagesForwarded == 1)
        #expect(counters.clientToServer.controlFramesForwarded == 1)
        #expect(counters.serverToClient.controlFramesForwarded == 1)
        await proxy.stop()
        await echo.server.stop()
    }

    @Test func duplicatingEveryMessageDeliversEachTwiceInOrder() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        proxy.setFaults(.init(duplicateProbability: 1), .clientToServer)
        let client = try await RecordedClient.connect(port: proxy.port)
        let sent = (0..<10).map { numbered($0, size: 100 + $0 * 1000) }
        for message in sent { client.client.send(message) }
        let echoed = try await client.messages(count: 20)
        #expect(echoed == sent.flatMap { [$0, $0] })
        try await Task.sleep(for: .milliseconds(100))
        #expect(client.messages.count == 20)
        let counters = proxy.counters
        #expect(counters.clientToServer.messagesForwarded == 10)
        #expect(counters.clientToServer.messagesDuplicated == 10)
        #expect(counters.serverToClient.messagesForwarded == 20)
        #expect(counters.serverToClient.messagesDuplicated == 0)
        await proxy.stop()
        await echo.server.stop()
    }

    @Test func delaysKeepOrder() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port, seed: 3)
        let client = try await RecordedClient.connect(port: proxy.port)

        proxy.setFaults(.init(delay: .milliseconds(150)), .serverToClient)
        let started = ContinuousClock.now
        client.client.send([0, 0])
        _ = try await client.messages(count: 1)
        #expect(ContinuousClock.now - started >= .milliseconds(150))

        proxy.setFaults(.init(delay: .zero ... .milliseconds(60)), .clientToServer)
        proxy.setFaults(.init(delay: .zero ... .milliseconds(20)), .serverToClient)
        let sent = (1...200).map { numbered($0) }
        for message in sent { client.client.send(message) }
        let echoed = try await client.messages(count: 201)
        #expect(echoed.dropFirst().map(number(of:)) == Array(1...200))
        #expect(echo.messages.dropFirst().map(number(of:)) == Array(1...200))
        await proxy.stop()
        await echo.server.stop()
    }

    /// Which messages a seeded run drops and duplicates depends on the seed only.
    @Test func seededRunsReplay() async throws {
        let first = try await deliveredNumbers(seed: 7)
        let again = try await deliveredNumbers(seed: 7)
        let other = try await deliveredNumbers(seed: 8)
        #expect(first == again)
        #expect(first != other)
        let distinct = Set(first).count
        #expect((60...140).contains(distinct), "about half of 200 dropped, got \(distinct) through")
        #expect(first.count > distinct, "some were duplicated")
        #expect(first == first.sorted(), "order kept")
    }

    /// Sends 200 numbered messages through a proxy with random drops, duplicates and
    /// delays, and returns the numbers the client got back, in order.
    private func deliveredNumbers(seed: UInt64) async throws -> [Int] {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port, seed: seed)
        proxy.setFaults(
            .init(dropProbability: 0.5, duplicateProbability: 0.3, delay: .zero ... .milliseconds(5)), .clientToServer)
        let client = try await RecordedClient.connect(port: proxy.port)
        for index in 0..<200 { client.client.send(numbered(index)) }
        let expected = try await eventually("every message decided") { () -> Int? in
            let counters = proxy.counters.clientToServer
            guard counters.messagesForwarded + counters.messagesDropped == 200 else { return nil }
            return counters.messagesForwarded + counters.messagesDuplicated
        }
        let echoed = try await client.messages(count: expected)
        await proxy.stop()
        await echo.server.stop()
        return echoed.map(number(of:))
    }

    @Test func stopFreesThePort() async throws {
        let echo = try EchoServer()
        let proxy = try FaultProxy(targetPort: echo.port)
        let client = try await RecordedClient.connect(port: proxy.port)
        let port = proxy.port
        await proxy.stop()
        #expect(try await client.closed() == 1006)
        await #expect(throws: NetError.self) {
            _ = try await WebSocketClient.connect(to: "ws://127.0.0.1:\(port)/")
        }
        let again = try FaultProxy(targetPort: echo.port, port: port)  // rebinds the same port
        #expect(again.port == port)
        await again.stop()
        await echo.server.stop()
    }
}
