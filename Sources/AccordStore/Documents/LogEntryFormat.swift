import AccordCRDT

/// A document log entry as stored: one flag byte, then the update (Yjs update v1).
///
/// The flag says whether the update was made on this device. Local updates with a
/// sequence above the metadata's `acknowledgedSequence` are the ones still to send;
/// keeping that in the entry itself means an append is one write, not two.
enum LogEntryFormat {
    static let remote: UInt8 = 0
    static let local: UInt8 = 1

    static func encode(_ update: [UInt8], isLocal: Bool) -> [UInt8] {
        var value: [UInt8] = []
        value.reserveCapacity(update.count + 1)
        value.append(isLocal ? local : remote)
        value.append(contentsOf: update)
        return value
    }

    /// The flag and the update of a stored entry; `STORAGE_CORRUPT` for an unknown flag.
    static func decode(_ value: [UInt8], document id: DocumentID, sequence: UInt64) throws(AccordError) -> (isLocal: Bool, update: [UInt8]) {
        guard let flag = value.first, flag == local || flag == remote else {
            throw AccordError(
                .storageCorrupt, "document \(id): log entry \(sequence) has no valid header",
                details: ["document": id.rawValue, "sequence": String(sequence)])
        }
        return (flag == local, Array(value.dropFirst()))
    }
}
