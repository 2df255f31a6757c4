public import AccordCRDT
import AccordNet
import Foundation

/// Sends the outbox's notifications to the operator's webhook (`accord serve
/// --notify-webhook URL`): one `POST` at a time, oldest due first, the body
/// ``ServerNotification/payload`` with the headers `content-type: application/json`,
/// `idempotency-key: <id>` and `accord-delivery-attempt: <n>`.
///
/// A 2xx answer removes the entry. Anything else (another status, no answer, a
/// timeout) counts as a failed attempt and the entry waits `initialBackoff × 2^(n-1)`
/// (capped at `maxBackoff`, plus up to a tenth of random jitter so many servers do not
/// retry in step). A request cut short by ``stop()`` is no attempt: the entry stays as
/// it was and goes out again after a restart, with the same key.
public final class WebhookDelivery: Sendable {
    public struct Options: Sendable {
        /// An `http://` or `https://host[:port]/path` URL.
        public var url: String
        /// How an `https://` webhook's certificate is checked: the system's authorities,
        /// or a private CA's file (`accord serve --notify-webhook-ca`).
        public var trust: ClientTLS = .system
        public var initialBackoffMilliseconds: Int64 = 1000
        public var maxBackoffMilliseconds: Int64 = 3_600_000
        /// One attempt's limit, from sending to the end of the answer.
        public var timeout: Duration = .seconds(10)
        /// How often an idle deliverer looks for due entries.
        public var pollMilliseconds: Int = 100

        public init(url: String) { self.url = url }
    }

    private let task: Task<Void, Never>
    private let client: HTTPClient

    /// Starts delivering at once.
    /// - Throws: `INVALID_ARGUMENT` for a URL that is not `http(s)://host[:port]/…`;
    ///   `IO_ERROR` when the HTTP client cannot start (for `https://`, also when the
    ///   trusted certificates cannot be loaded).
    public init(outbox: NotificationOutbox, options: Options, now: @escaping @Sendable () -> Int64) throws(AccordError) {
        guard Self.isHTTPURL(options.url) else {
            throw AccordError(
                .invalidArgument, "the notification webhook must be an http(s)://host[:port]/path URL, not \(options.url)",
                details: ["url": options.url])
        }
        do {
            client = try HTTPClient(maxResponseSize: 64 << 10, tls: options.url.hasPrefix("https://") ? options.trust : nil)
        } catch {
            throw AccordError(.ioError, "cannot start the webhook's HTTP client: \(error.message)")
        }
        task = Task.detached { [client] in await Self.run(outbox: outbox, client: client, options: options, now: now) }
    }

    /// Stops after the attempt in flight, if any, is cut short (it stays queued).
    public func stop() async {
        task.cancel()
        await task.value
        await client.stop()
    }

    /// Whether `url` is one the deliverer can POST to (`http://host…` or `https://host…`).
    public static func isHTTPURL(_ url: String) -> Bool {
        let scheme = url.hasPrefix("https://") ? 8 : url.hasPrefix("http://") ? 7 : 0
        guard scheme > 0,
            let host = url.dropFirst(scheme).split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first
        else { return false }
        return !host.isEmpty && !url.contains(where: { $0.isWhitespace })
    }

    /// The wait after the `attempt`-th failure.
    static func backoff(after attempt: Int, _ options: Options) -> Int64 {
        let exponent = min(max(0, attempt - 1), 40)
        let base = options.initialBackoffMilliseconds.multipliedReportingOverflow(by: Int64(1) << exponent)
        let delay = min(base.overflow ? options.maxBackoffMilliseconds : base.partialValue, options.maxBackoffMilliseconds)
        return delay + Int64.random(in: 0...max(0, delay / 10))
    }

    private static func run(
        outbox: NotificationOutbox, client: HTTPClient, options: Options, now: @Sendable () -> Int64
    ) async {
        while !Task.isCancelled {
            guard let (key, entry) = outbox.nextDue(now: now()) else {
                try? await Task.sleep(for: .milliseconds(options.pollMilliseconds))
                continue
            }
            let notification = entry.notification
            let request = HTTPClientRequest(
                .post, options.url,
                headers: [
                    (name: "content-type", value: "application/json"),
                    (name: "idempotency-key", value: notification.id),
                    (name: "accord-delivery-attempt", value: String(entry.attempts + 1)),
                ],
                body: notification.payload)
            let accepted: Bool
            do {
                accepted = (200..<300).contains(try await client.send(request, timeout: options.timeout).status)
            } catch {
                if Task.isCancelled { return }
                accepted = false
            }
            do {
                if accepted {
                    try outbox.delivered(key)
                } else {
                    try outbox.failed(key, now: now(), delay: backoff(after: entry.attempts + 1, options))
                }
            } catch {
                // The storage refused: wait rather than resend in a tight loop.
                try? await Task.sleep(for: .milliseconds(max(options.pollMilliseconds, 1000)))
            }
        }
    }
}
