import Testing
import Foundation
import AccordCRDT
import AccordStore
import AccordServer
@testable import AccordSync

/// An expired token: the server answers `UNAUTHENTICATED`, the client reports an
/// `AuthErrorEvent` and asks its provider again with the reason.
@Suite(.timeLimit(.minutes(1))) struct TokenRefreshTests {
    actor Reasons {
        var seen: [TokenRequestReason] = []
        func record(_ reason: TokenRequestReason) -> Int {
            seen.append(reason)
            return seen.count
        }
    }

    @Test func anExpiredTokenIsRefreshedWithTheReason() async throws {
        let server = try ClientTestServer()
        let reasons = Reasons()
        let expired = server.tokens.mint(subject: "alice", expiresAt: Date(timeIntervalSinceNow: -60))
        let fresh = server.token("alice")
        let client = AccordClient(
            serverURL: server.url, store: memoryStore(), reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400)
        ) { reason in
            await reasons.record(reason) == 1 ? expired : fresh
        }
        let authError = client.expectEvent(AuthErrorEvent.self)
        await client.start()
        let event = try await authError.value()
        #expect(event.error.code == TokenRequestReason.refusalCode)
        #expect(event.attempt == 1)
        try await eventually("online with the fresh token") { await client.isOnline }
        let seen = await reasons.seen
        #expect(seen.count == 2)
        #expect(seen.first == .connect)
        if case .unauthenticated(let error)? = seen.last {
            #expect(error.code == TokenRequestReason.refusalCode)
        } else {
            Issue.record("the second request did not say why: \(seen)")
        }
        await client.stop()
    }

    @Test func refusalsInARowAreCountedAndResetOnceAccepted() async throws {
        let server = try ClientTestServer()
        let reasons = Reasons()
        let fresh = server.token("alice")
        let client = AccordClient(
            serverURL: server.url, store: memoryStore(), reconnect: ReconnectPolicy(initialDelay: 20, maxDelay: 100)
        ) { reason in
            await reasons.record(reason) <= 3 ? "not-a-token" : fresh
        }
        let log = EventLog(client)
        await client.start()
        try await eventually("online after three refusals") { await client.isOnline }
        let attempts = await log.events.compactMap { event -> Int? in
            if case .authError(let auth) = event { auth.attempt } else { nil }
        }
        #expect(attempts == [1, 2, 3])
        await client.stop()
    }
}
