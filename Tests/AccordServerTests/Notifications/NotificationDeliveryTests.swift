import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordNet
import AccordTesting
@testable import AccordServer

/// The notification outbox and its webhook (`docs/server-api.md`, Notifications): every
/// notification reaches the receiver exactly once in effect, across a failing receiver
/// and a server restart; without a webhook they are kept, bounded and counted.
@Suite(.serialized, .timeLimit(.minutes(1))) struct NotificationDeliveryTests {
    static func waitUntil(_ seconds: Double = 10, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { throw AccordError(.ioError, "timed out waiting") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private static func share(_ server: TestServer, _ user: String) async throws {
        let response = try await server.request(
            "PUT", "/v1/documents/plan/permissions", user: "olivia",
            json: ["user": user, "role": "reader", "sendEmail": true, "documentUrl": "https://app.example/d/plan"])
        #expect(response.status == 200, "\(response.body)")
    }

    @Test func eachNotificationIsDeliveredOnceInEffectAcrossARestartAndAFailingReceiver() async throws {
        // Fails the first 6 posts (acting on them first, as if its answer were lost).
        let receiver = try WebhookReceiver(failFirst: 6, actBeforeFailing: true)
        let server = try TestServer { configuration in
            configuration.notifyWebhookURL = receiver.url
            // Slow enough that no retry can succeed before the stop below.
            configuration.notificationRetryInitialMilliseconds = 500
            configuration.notificationRetryMaxMilliseconds = 2000
        }
        #expect(try await server.request("POST", "/v1/documents", user: "olivia", json: ["id": "plan"]).status == 201)
        for user in ["rita", "wes", "zoe"] { try await Self.share(server, user) }

        // Stop while the receiver is still failing: what is left must survive.
        try await Self.waitUntil { receiver.allPosts.count >= 2 }
        try await server.stop()
        let left = try NotificationOutbox(storage: try SerialStorage(path: server.path)).pending
        #expect(!left.isEmpty, "the receiver has not accepted anything yet, so all three are left")
        #expect(left.count == 3)

        try await server.restart()
        try await Self.waitUntil(20) { server.server.notifications.pending.isEmpty }
        // Let any stray retry arrive before counting.
        try await Task.sleep(for: .milliseconds(300))

        let posts = receiver.allPosts
        let keys = Set(posts.map(\.key))
        #expect(keys.count == 3, "one key per notification, the same on every attempt: \(posts.map(\.key))")
        #expect(receiver.acted.keys.sorted() == keys.sorted())
        #expect(posts.count >= 3 + 6, "six failed and each of three succeeded once")
        for key in keys {
            let bodies = Set(posts.filter { $0.key == key }.map(\.body))
            #expect(bodies.count == 1, "every attempt of \(key) carries the same bytes")
        }
        #expect(posts.allSatisfy { $0.contentType == "application/json" })
        // The body is the documented payload.
        let body = try #require(try JSONSerialization.jsonObject(with: Data(posts[0].body)) as? [String: Any])
        #expect(body["type"] as? String == "share" && body["document"] as? String == "plan")
        #expect(body["from"] as? String == "olivia" && body["permission"] as? String == "reader")
        #expect(body["documentUrl"] as? String == "https://app.example/d/plan" && body["id"] as? String == posts[0].key)
        #expect(Set(posts.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any])?["to"] as? [String: String] }.compactMap { $0["user"] }) == ["rita", "wes", "zoe"])
        let metrics = server.server.metrics.render()
        #expect(metrics.contains("accord_notifications_pending 0"))
        #expect(metrics.contains("accord_notifications_delivered_total \(left.count)"), "the restarted server delivered what was left")
        try await server.stop()
        await receiver.stop()
    }

    @Test func anHTTPSWebhookIsPostedToThroughItsTrustedAuthority() async throws {
        let pki = try TestPKI()
        let receiver = try WebhookReceiver(
            failFirst: 0, tls: try ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile))
        #expect(receiver.url.hasPrefix("https://"))
        let server = try TestServer { configuration in
            configuration.notifyWebhookURL = receiver.url
            configuration.notifyWebhookTrust = ClientTLS(trustedCertificatesFile: pki.caFile)
        }
        #expect(try await server.request("POST", "/v1/documents", user: "olivia", json: ["id": "plan"]).status == 201)
        try await Self.share(server, "rita")
        try await Self.waitUntil { server.server.notifications.pending.isEmpty }
        let posts = receiver.allPosts
        #expect(posts.count == 1)
        let post = try #require(posts.first)
        let body = try #require(try JSONSerialization.jsonObject(with: Data(post.body)) as? [String: Any])
        #expect((body["to"] as? [String: String])?["user"] == "rita")
        #expect(server.server.metrics.render().contains("accord_notifications_delivered_total 1"))
        try await server.stop()
        await receiver.stop()
    }

    @Test func anHTTPSWebhookWhoseCertificateIsNotTrustedGetsNothingAndIsRetried() async throws {
        let pki = try TestPKI()
        let receiver = try WebhookReceiver(
            failFirst: 0, tls: try ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile))
        let server = try TestServer { configuration in
            // The system's authorities: the test CA is not among them.
            configuration.notifyWebhookURL = receiver.url
            configuration.notificationRetryInitialMilliseconds = 50
            configuration.notificationRetryMaxMilliseconds = 50
        }
        #expect(try await server.request("POST", "/v1/documents", user: "olivia", json: ["id": "plan"]).status == 201)
        try await Self.share(server, "rita")
        try await Self.waitUntil {
            server.server.metrics.render().contains("accord_notification_delivery_failures_total 2")
        }
        #expect(receiver.allPosts.isEmpty, "nothing reaches a receiver whose certificate failed the check")
        #expect(server.server.notifications.pending.count == 1, "the notification waits for the next attempt")
        try await server.stop()
        await receiver.stop()
    }

    @Test func webhookURLsMustBeHTTPOrHTTPS() {
        #expect(WebhookDelivery.isHTTPURL("http://hooks.example:8080/accord"))
        #expect(WebhookDelivery.isHTTPURL("https://mailer.example/accord"))
        for url in ["ftp://x/y", "https:///path", "http:///x", "http://", "mailer.example/hook", "https://a b/c"] {
            #expect(!WebhookDelivery.isHTTPURL(url), "\(url)")
        }
    }

    @Test func withoutAWebhookNotificationsAreKeptBoundedAndCounted() async throws {
        let server = try TestServer { configuration in configuration.notificationOutboxCapacity = 2 }
        #expect(try await server.request("POST", "/v1/documents", user: "olivia", json: ["id": "plan"]).status == 201)
        for user in ["rita", "wes", "zoe"] { try await Self.share(server, user) }
        let kept = server.server.notifications.pending.map(\.notification.toUser)
        #expect(kept == ["wes", "zoe"], "the oldest goes when the outbox is full")
        let metrics = server.server.metrics.render()
        #expect(metrics.contains("accord_notifications_pending 2"))
        #expect(metrics.contains("accord_notifications_queued_total 3"))
        #expect(metrics.contains("accord_notifications_dropped_total 1"))
        // Kept across a restart.
        try await server.restart()
        #expect(server.server.notifications.pending.map(\.notification.toUser) == ["wes", "zoe"])
        try await server.stop()
    }

    @Test func theOutboxReloadsItsEntriesAndDropsAfterTheLastAttempt() throws {
        let storage = SerialStorage.inMemory()
        let outbox = try NotificationOutbox(storage: storage, capacity: 10, maxAttempts: 2)
        let first = ServerNotification(type: "share", document: "d", documentUrl: nil, from: "o", toUser: "a", createdAt: 5)
        let second = ServerNotification(type: "share", document: "d", documentUrl: nil, from: "o", toUser: "b", createdAt: 6)
        try outbox.enqueue(first, now: 100)
        try outbox.enqueue(second, now: 100)
        let due = try #require(outbox.nextDue(now: 100))
        #expect(due.entry.notification == first)
        try outbox.failed(due.key, now: 100, delay: 50)
        // Waiting: the second is due first now.
        #expect(outbox.nextDue(now: 120)?.entry.notification == second)

        let reloaded = try NotificationOutbox(storage: storage, capacity: 10, maxAttempts: 2)
        #expect(reloaded.pending.map(\.notification) == [first, second])
        #expect(reloaded.pending.first?.attempts == 1 && reloaded.pending.first?.nextAttemptAt == 150)
        // The same rows, so the same keys: the first fails its second (last) attempt.
        try reloaded.failed(due.key, now: 200, delay: 50)
        #expect(reloaded.pending.map(\.notification) == [second])
        #expect(reloaded.currentStatistics.dropped == 1 && reloaded.currentStatistics.failedAttempts == 1)
        try reloaded.delivered(try #require(reloaded.nextDue(now: 200)).key)
        #expect(try NotificationOutbox(storage: storage).pending.isEmpty)
    }

    @Test func backoffDoublesUpToTheCap() {
        var options = WebhookDelivery.Options(url: "http://127.0.0.1:1/x")
        options.initialBackoffMilliseconds = 100
        options.maxBackoffMilliseconds = 1000
        let delays = (1...8).map { WebhookDelivery.backoff(after: $0, options) }
        for (attempt, delay) in delays.enumerated() {
            let base = min(100 * (1 << attempt), 1000)
            #expect(delay >= Int64(base) && delay <= Int64(base + base / 10), "attempt \(attempt + 1): \(delay)")
        }
    }
}
