/// The notices of one room's shared log that arrived ahead of the room's position,
/// waiting for the ones before them (see SyncHub+Cluster.swift): notices leave
/// PostgreSQL from a transaction behind each commit, so two nodes' can pass each
/// other, and reading the log for every such gap cost a read behind the node's commit.
struct HeldNotices {
    /// A notice of entries `first...last`: this node's own (already in the room), or
    /// another node's with its updates, or neither (only the log has them).
    struct Notice: Equatable {
        var first: UInt64
        var last: UInt64
        var fromThisNode: Bool
        var updates: [[UInt8]]?
        /// When it arrived (uptime nanoseconds).
        var received: UInt64

        /// Whether the room can take it without reading the log.
        var isSelfContained: Bool { fromThisNode || updates != nil }
    }

    /// What to do with a notice that arrived.
    enum Step: Equatable {
        /// It starts right after the room's position: apply it, then ``next(after:)``.
        case apply
        /// Held until the notices before it come; start the gap's timer when told.
        case hold(startTimer: Bool)
        /// Read the log (held notices are dropped: the read brings them too).
        case read
    }

    /// Held per room at most; past that the room reads the log.
    static let limit = 64

    private(set) var byFirst: [UInt64: Notice] = [:]

    var isEmpty: Bool { byFirst.isEmpty }

    /// Decides what a room at position `through` does with `notice` (ending past it).
    mutating func receive(_ notice: Notice, through: UInt64) -> Step {
        if notice.first == through + 1, notice.isSelfContained { return .apply }
        if notice.first > through + 1, notice.isSelfContained, byFirst.count < Self.limit {
            let startTimer = byFirst.isEmpty
            byFirst[notice.first] = notice
            return .hold(startTimer: startTimer)
        }
        byFirst = [:]
        return .read
    }

    /// The held notice that starts right after `through`, taken out; those the room
    /// already passed are dropped.
    mutating func next(after through: UInt64) -> Notice? {
        byFirst = byFirst.filter { $0.value.last > through }
        return byFirst.removeValue(forKey: through + 1)
    }

    /// The gap's timer ran out: everything held is dropped (the caller reads the log).
    /// Returns when the oldest of them arrived, nil when none was held.
    mutating func expire() -> UInt64? {
        defer { byFirst = [:] }
        return byFirst.values.map(\.received).min()
    }
}
