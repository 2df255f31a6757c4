extension DocumentStore {
    /// One document's share of a batch of buffered updates.
    struct BatchTally {
        var id: DocumentID
        /// The sequence of its first update in the batch.
        var first: UInt64
        var local = 0
        var remote = 0
    }

    /// The documents of `batch` in order of first appearance, with their tallies.
    ///
    /// A batch is mostly long runs of one document (someone typing), so each update's id
    /// is compared with the previous one's and hashed only when the document changes:
    /// a flush then costs a few dictionary operations per document, not per update.
    static func tallies(_ batch: [BufferedUpdate]) -> [BatchTally] {
        var tallies: [BatchTally] = []
        var positions: [DocumentID: Int] = [:]
        var current = -1
        for update in batch {
            if current < 0 || tallies[current].id != update.id {
                if let known = positions[update.id] {
                    current = known
                } else {
                    current = tallies.count
                    positions[update.id] = current
                    tallies.append(BatchTally(id: update.id, first: update.sequence))
                }
            }
            if update.isLocal { tallies[current].local += 1 } else { tallies[current].remote += 1 }
        }
        return tallies
    }
}
