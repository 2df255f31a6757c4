import Foundation

/// Which client's records the statics of a model use: the first client it was
/// registered with that is still alive.
enum ModelRegistry {
    private final class Binding: @unchecked Sendable {
        // Written once at creation.
        weak var records: ClientRecords?
        init(_ records: ClientRecords) { self.records = records }
    }

    // Invariant: touched only under `lock`.
    nonisolated(unsafe) private static var bindings: [String: Binding] = [:]
    private static let lock = NSLock()

    static func bind(_ model: String, to records: ClientRecords) {
        lock.locked {
            if bindings[model]?.records == nil { bindings[model] = Binding(records) }
        }
    }

    static func records(for model: String) -> ClientRecords? {
        lock.locked { bindings[model]?.records }
    }
}
