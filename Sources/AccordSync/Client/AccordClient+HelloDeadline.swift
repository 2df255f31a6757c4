extension AccordClient {
    /// Gives a new connection the handshake budget to deliver the server's hello.
    ///
    /// The heartbeat alone does not cover it: a server whose hello never comes (it is
    /// wedged past the upgrade, or the hello was lost on the way) may still answer
    /// pings, and pongs count as heard, so the connection would stay up, never online,
    /// with every document waiting. The timer is not kept: it only acts on the
    /// connection it was armed for, and only while that one has no hello.
    func armHelloDeadline(generation attempt: UInt64) {
        _ = timer(at: now + handshakeBudget) { client in client.helloOverdue(generation: attempt) }
    }

    private func helloOverdue(generation attempt: UInt64) {
        guard let current = connection, current.generation == attempt, current.hello == nil else { return }
        current.socket.close(code: 4000, reason: "no hello within \(handshakeBudget) ms")
        connectionLost()
    }
}
