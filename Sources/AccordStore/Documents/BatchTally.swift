extension DocumentStore {
    /// One document's share of a batch of buffered updates.
    struct BatchTally {
        var id: DocumentID
        /// The sequence of its first update in the batch.
        var first: UInt64
        var local = 0
        var remote = 0
    }

    /// The documents of a batch in order of first appearance, with their tallies, and
    /// each document's position in that order (which the commit and the notifications
    /// look up by id).
    struct BatchTallies {
        var list: [BatchTally] = []
        var positions: [DocumentID: Int] = [:]

        /// A batch is mostly long runs of one document (someone typing), so each update's
        /// id is compared with the previous one's and hashed only when the document
        /// changes: a flush then costs a few dictionary operations per document, not per
        /// update.
        init(_ batch: [BufferedUpdate]) {
            var current = -1
            for update in batch {
                if current < 0 || list[current].id != update.id {
                    if let known = positions[update.id] {
                        current = known
                    } else {
                        current = list.count
                        positions[update.id] = current
                        list.append(BatchTally(id: update.id, first: update.sequence))
                    }
                }
                if update.isLocal { list[current].local += 1 } else { list[current].remote += 1 }
            }
        }
    }
}
