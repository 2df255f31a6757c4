import AccordCRDT

/// The document operations the measurements time.
///
/// Root name and client ID are fixed so the encoded update is reproducible byte for
/// byte: `"text"` is the root name of the Yjs benchmarks and of bench_reference.py.
enum TraceReplay {
    static let rootName = "text"
    static let clientID: ClientID = 3_000_000_000

    /// One transaction per trace transaction; each patch deletes, then inserts.
    /// `onUpdate`, when given, receives each transaction's update.
    static func replay(_ trace: EditingTrace, onUpdate: (([UInt8]) -> Void)? = nil) throws -> Doc {
        let doc = Doc(clientID: clientID)
        let text = try doc.getText(rootName)
        let subscription = onUpdate.map { handler in doc.onUpdate { bytes, _ in handler(bytes) } }
        defer { subscription?.cancel() }
        for txn in trace.transactions {
            try doc.transact {
                for patch in txn {
                    if patch.deleteCount > 0 { try text.delete(patch.position, patch.deleteCount) }
                    if !patch.insert.isEmpty { try text.insert(patch.position, patch.insert) }
                }
            }
        }
        return doc
    }

    /// The replay plus every transaction's update, in order.
    static func replayCollectingUpdates(_ trace: EditingTrace) throws -> (Doc, [[UInt8]]) {
        let log = UpdateLog()
        log.updates.reserveCapacity(trace.transactions.count)
        let doc = try replay(trace) { log.updates.append($0) }
        return (doc, log.updates)
    }

    /// A fresh document with `updates` applied in order.
    static func load(_ updates: [[UInt8]]) throws -> Doc {
        let doc = Doc(clientID: clientID &+ 1)
        _ = try doc.getText(rootName)
        for update in updates { try doc.applyUpdate(update) }
        return doc
    }

    static func text(of doc: Doc) throws -> String { try doc.getText(rootName).string }

    /// Throws when `doc`'s text is not the trace's `endContent`, naming the first difference.
    static func check(_ label: String, _ doc: Doc, against trace: EditingTrace) throws {
        let got = try text(of: doc)
        guard got != trace.endContent else { return }
        let a = Array(got.unicodeScalars)
        let b = Array(trace.endContent.unicodeScalars)
        let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
        let near = { (s: [Unicode.Scalar]) in String(String.UnicodeScalarView(s[i..<min(s.count, i + 20)])) }
        throw BenchFailure(
            "\(label): final text differs from endContent (\(a.count) vs \(b.count) code points, "
                + "first difference at \(i): \(near(a).debugDescription) vs \(near(b).debugDescription))")
    }
}

/// Collects updates from the `onUpdate` handler (a class, so the escaping closure can
/// append to it).
final class UpdateLog {
    var updates: [[UInt8]] = []
}
