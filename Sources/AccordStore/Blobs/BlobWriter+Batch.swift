public import AccordCRDT

/// One writer's end in ``BlobWriter/finishAll(_:store:)``.
package struct BlobWriterFinish {
    package var writer: BlobWriter
    package var expected: BlobHash
    package var contentType: String
    package var reference: DocumentID?

    package init(writer: BlobWriter, expected: BlobHash, contentType: String, reference: DocumentID?) {
        self.writer = writer
        self.expected = expected
        self.contentType = contentType
        self.reference = reference
    }
}

extension BlobWriter {
    /// Finishes many writers of `store` at once: those still holding small content
    /// (nothing written to the store yet) are checked against their hash and stored
    /// together, one ``BlobStore/putAll(_:referencedBy:)`` commit per referencing
    /// document, so downloads that end together share one sync. The others finish one
    /// by one. Each result is what ``finish(expected:expectedSize:contentType:reference:)``
    /// would have returned or thrown for that writer; a mismatch fails only its own.
    package static func finishAll(_ finishes: [BlobWriterFinish], store: BlobStore) -> [Result<BlobInfo, AccordError>] {
        var results = [Result<BlobInfo, AccordError>?](repeating: nil, count: finishes.count)
        var groups: [DocumentID?: [(index: Int, content: BlobContent)]] = [:]
        for (index, finish) in finishes.enumerated() {
            let writer = finish.writer
            guard writer.isHeldWhole, writer.store === store else {
                results[index] = Result { () throws(AccordError) in
                    try writer.finish(expected: finish.expected, contentType: finish.contentType, reference: finish.reference)
                }
                continue
            }
            do throws(AccordError) {
                try BlobStore.validateContentType(finish.contentType)
                let content = writer.takeHeld()
                var hasher = try SHA256Hasher()
                hasher.update(content)
                try BlobUploadCommit(contentType: finish.contentType, expected: finish.expected)
                    .check(hash: hasher.finish(), size: UInt64(content.count))
                groups[finish.reference, default: []].append((index, BlobContent(content, contentType: finish.contentType)))
            } catch {
                results[index] = .failure(error)
            }
        }
        for (reference, members) in groups {
            do throws(AccordError) {
                let infos = try store.putAll(members.map(\.content), referencedBy: reference)
                for (member, info) in zip(members, infos) { results[member.index] = .success(info) }
            } catch {
                for member in members { results[member.index] = .failure(error) }
            }
        }
        return results.map { $0! }
    }
}
