import AccordCRDT
import AccordStore
import AccordNet

extension AccordClient {
    /// Carries out the network machine's actions.
    func perform(_ actions: [NetworkModeAction]) {
        for action in actions {
            switch action {
            case .connect:
                beginConnecting()
            case .disconnect:
                dropConnection(closeSocket: true)
            case .scheduleReconnect(let at):
                reconnectTimer?.cancel()
                reconnectTimer = timer(at: at) { client in client.perform(client.network.tick(now: client.now)) }
            case .emit(let event):
                bus.emit(.network(event))
                if event.isOnline { blobNetworkRestored() }
            }
        }
    }

    /// Asks for a token and opens the socket off the client; the result comes back
    /// through ``socketOpened(_:generation:)`` or ``attemptFailed(generation:)``.
    private func beginConnecting() {
        guard !isStopped else { return }
        generation += 1
        let attempt = generation
        let provider = tokenProvider
        let base = serverURL
        let tls = self.tls
        let reason = authRefusal.map(TokenRequestReason.unauthenticated) ?? .connect
        Task { [weak self] in
            do {
                let token = try await provider(reason)
                let url = base + SyncPath.multiplexed + "?token=" + SyncPath.queryEscaped(token)
                let socket = try await WebSocketClient.connect(to: url, tls: tls)
                guard let self else {
                    socket.close()
                    return
                }
                await self.socketOpened(socket, generation: attempt)
            } catch let error as NetError where error.code == .tlsCertificateInvalid {
                // Said at every attempt: an app shows it (the server or the trust
                // settings must change); the client still retries, a certificate may be fixed.
                await self?.certificateRefused(error, generation: attempt)
            } catch {
                await self?.attemptFailed(generation: attempt)
            }
        }
    }

    private func socketOpened(_ socket: WebSocketClient, generation attempt: UInt64) {
        // Abandoned meanwhile (goOffline, stop, a newer attempt): not wanted.
        guard attempt == generation, !isStopped, network.isConnecting else {
            socket.close()
            return
        }
        let events = socket.events
        let reader = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.received(event, generation: attempt)
            }
        }
        // Until the hello says otherwise, the default interval: a server that never
        // says hello is dropped like a silent one.
        connection = Connection(
            socket: socket, generation: attempt, hello: nil,
            heartbeat: HeartbeatMonitor(heartbeatSeconds: nil, now: now), reader: reader)
        scheduleHeartbeat()
        armHelloDeadline(generation: attempt)
    }

    private func certificateRefused(_ error: NetError, generation attempt: UInt64) {
        guard attempt == generation, !isStopped else { return }
        bus.emit(.connectionError(ServerErrorMapping.certificateRefused(error)))
        attemptFailed(generation: attempt)
    }

    private func attemptFailed(generation attempt: UInt64) {
        guard attempt == generation, !isStopped else { return }
        perform(network.connectionLost(now: now, random: &random))
    }

    private func received(_ event: WebSocketClient.Event, generation attempt: UInt64) {
        guard connection?.generation == attempt else { return }
        switch event {
        case .message(let bytes):
            connection?.heartbeat.heard(now: now)
            receivedMessage(bytes)
        case .pong:
            connection?.heartbeat.heard(now: now)
        case .closed:
            connectionLost()
        }
    }

    private func receivedMessage(_ bytes: [UInt8]) {
        let multiplexed: MultiplexedFrame
        do throws(AccordError) {
            multiplexed = try MultiplexedFrame.decode(bytes)
        } catch {
            bus.emit(.failure(nil, error))
            return
        }
        guard let rawID = multiplexed.documentID else {
            switch multiplexed.accordMessage {
            case .hello(let version, let maxFrame, let heartbeat)?:
                helloReceived(ServerHello(serverVersion: version, maxFrameBytes: maxFrame, heartbeatSeconds: heartbeat))
            case .error(let code, let message, _)?:
                connectionErrorReceived(AccordError(ErrorCode(rawValue: code), message))
            case .directory(let message)? where connection?.hello != nil:
                directoryMessageReceived(message)
            case .channel(let message)? where connection?.hello != nil:
                receivedChannel(message)
            default:
                break
            }
            return
        }
        // Frames for a document closed meanwhile are dropped.
        guard connection?.hello != nil, let id = DocumentID(rawValue: rawID), let document = documents[id] else { return }
        perform(document.machine.received(multiplexed.frame, now: now), for: document)
    }

    private func connectionErrorReceived(_ error: AccordError) {
        bus.emit(.connectionError(error))
        // The server closes after refusing a token; the next attempt asks for a fresh one.
        guard error.code == TokenRequestReason.refusalCode else { return }
        authRefusal = error
        authAttempts += 1
        bus.emit(.authError(AuthErrorEvent(error: error, attempt: authAttempts)))
    }

    private func helloReceived(_ hello: ServerHello) {
        guard var current = connection, current.hello == nil else { return }
        authRefusal = nil
        authAttempts = 0
        current.hello = hello
        current.heartbeat = HeartbeatMonitor(heartbeatSeconds: hello.heartbeatSeconds, now: now)
        connection = current
        scheduleHeartbeat()
        perform(network.connected())
        // The machine may have refused the connection (pinned offline meanwhile).
        guard network.isOnline, connection?.hello != nil else { return }
        channelsConnected()
        for id in documents.keys.sorted() {
            if let document = documents[id] { ready(document, hello: hello) }
        }
    }

    /// The connection closed or died: documents stop, the network machine schedules a reconnect.
    func connectionLost() {
        dropConnection(closeSocket: false)
        perform(network.connectionLost(now: now, random: &random))
    }

    /// Forgets the connection and tells every document; events still arriving from the
    /// socket are ignored from now on.
    func dropConnection(closeSocket: Bool) {
        generation += 1
        heartbeatTimer?.cancel()
        heartbeatTimer = nil
        if let current = connection {
            if closeSocket { current.socket.close() }
            current.reader.cancel()
            connection = nil
        }
        channelsConnectionLost()
        for document in documents.values {
            document.tickTimer?.cancel()
            document.tickTimer = nil
            perform(document.machine.connectionLost(), for: document)
            presenceConnectionLost(document)
        }
    }

    // MARK: Heartbeat

    private func scheduleHeartbeat() {
        guard let current = connection else { return }
        heartbeatTimer?.cancel()
        let attempt = current.generation
        heartbeatTimer = timer(at: current.heartbeat.nextDeadline) { client in client.heartbeatDue(generation: attempt) }
    }

    private func heartbeatDue(generation attempt: UInt64) {
        guard var current = connection, current.generation == attempt else { return }
        let action = current.heartbeat.tick(now: now)
        connection = current
        switch action {
        case .ping?:
            current.socket.ping()
        case .dead?:
            // Half-open: close our side and rebuild.
            current.socket.close(code: 4000, reason: "no frame or pong for three heartbeat intervals")
            connectionLost()
            return
        case nil:
            break
        }
        scheduleHeartbeat()
    }

    // MARK: Sending

    /// Takes the connection out of the document's room on the server: it stops relaying
    /// the document here, and the next frame about it joins again (role looked up afresh).
    func sendLeave(_ id: DocumentID) {
        // A valid DocumentID is all encoding checks, so this cannot fail.
        if let leave = try? AccordMessage.leave(documentID: id.rawValue).frame() { send(leave, for: id) }
    }

    /// Sends one frame under a document, if the connection is ready.
    func send(_ frame: ProtocolFrame, for id: DocumentID) {
        guard let current = connection, current.hello != nil else { return }
        announceCreateIfPending(id, before: frame, on: current)
        do throws(AccordError) {
            current.socket.send(try MultiplexedFrame(documentID: id.rawValue, frame: frame).encode())
        } catch {
            bus.emit(.failure(id, error))
        }
    }
}

/// The server's multiplexed sync path, and the token's place in its query.
enum SyncPath {
    static let multiplexed = "/v1/sync"

    /// Percent-encodes everything but RFC 3986 unreserved characters (a JWT uses only
    /// those and dots, so it normally passes unchanged).
    static func queryEscaped(_ value: String) -> String {
        var result = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%"
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return result
    }
}
