import AccordCRDT
import AccordStore

extension OutboundUpdate {
    /// At most this many bytes of updates go into one merged message, whatever the
    /// server's frame limit: merging costs the client's queue time in proportion, and a
    /// few messages of a megabyte are as good as one of sixteen.
    static let batchBytes = 1 << 20

    /// The messages that carry `updates` (unsent, ascending): runs of consecutive updates
    /// merged into one update (Yjs `mergeUpdates`) under the run's last sequence, so the
    /// server's ack of it acknowledges the whole run.
    ///
    /// Why: a backlog of thousands of small updates (edits made offline) sent one
    /// message each runs into the server's rate limit (500 messages a second, bursts of
    /// 1,000 by default), which drops the excess on a live connection. Merged, ten
    /// thousand keystrokes are one message of a few hundred kilobytes.
    ///
    /// A run holds up to ``batchBytes`` of input. A run that does not merge (only
    /// malformed input would not), or whose merged message would exceed `limit`, is sent
    /// as its updates one by one, which is what the caller did before; a single update
    /// larger than the limit is left for the caller to refuse.
    static func batched(_ updates: [OutboundUpdate], document: DocumentID, limit: UInt64?) -> [OutboundUpdate] {
        guard updates.count > 1 else { return updates }
        let budget = min(batchBytes, Int(clamping: limit ?? UInt64(batchBytes)))
        var messages: [OutboundUpdate] = []
        var run: [OutboundUpdate] = []
        var runBytes = 0

        func closeRun() {
            defer {
                run = []
                runBytes = 0
            }
            guard run.count > 1, let last = run.last, let merged = try? mergeUpdates(run.map(\.bytes)) else {
                messages += run
                return
            }
            let message = OutboundUpdate(sequence: last.sequence, bytes: merged)
            if let limit, message.multiplexedSize(document: document) > limit {
                messages += run
            } else {
                messages.append(message)
            }
        }

        for update in updates {
            if !run.isEmpty, runBytes + update.bytes.count > budget { closeRun() }
            run.append(update)
            runBytes += update.bytes.count
        }
        closeRun()
        return messages
    }
}
