public import AccordStore
import AccordCRDT
import Foundation

/// What one ``ServerBlobs/collect()`` pass removed.
public struct BlobCollectionReport: Sendable, Hashable {
    /// Blobs no document referenced, past the grace period.
    public var removedBlobs: [BlobHash]
    /// Unfinished uploads that expired or whose document is gone.
    public var expiredUploads: Int
}

extension ServerBlobs {
    /// One collection pass:
    ///
    /// 1. unfinished uploads untouched for ``Limits/uploadExpiryMilliseconds``, or whose
    ///    document no longer exists, are discarded (not one a request streams into now),
    ///    and files in the uploads directory that no record names are removed;
    /// 2. blobs no document references are removed once the grace period has passed
    ///    since they were stored and since they last lost a reference
    ///    (`server.blob.released`), with what interrupted puts left behind.
    ///
    /// Step 2 decides and commits under one hold of the storage lock
    /// (``BlobStore/collectGarbage(keepingUnreferenced:)``), and a reference is only
    /// ever added under that lock after checking the blob exists, so a reference that
    /// races a collection either lands first (the blob is kept) or finds the blob gone
    /// (and the upload stores it again): a referenced blob is never removed.
    @discardableResult
    public func collect() throws(AccordError) -> BlobCollectionReport {
        let expired = try expireUploads()
        let now = now()
        let grace = limits.gracePeriodMilliseconds
        let report = try store.collectGarbage { info, adapter in
            let created = UInt64(max(0, (info.created.timeIntervalSince1970 * 1000).rounded()))
            let released = try adapter.read(Self.releasedCategory, key: info.hash.hex)
                .flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0
            let since = max(created, released)
            return now < since &+ grace
        }
        let removed = report.removedBlobs.map(\.hash)
        if !removed.isEmpty {
            try store.storage.withAdapter { adapter in
                try adapter.commit(removed.map { .delete(Self.releasedCategory, key: $0.hex) })
            }
            for hash in removed { rememberVerified(hash, identity: nil) }
        }
        return BlobCollectionReport(removedBlobs: removed, expiredUploads: expired)
    }

    private func expireUploads() throws(AccordError) -> Int {
        let now = now()
        var expired = 0
        var named = Set<String>()
        for (key, record) in try uploadRecords() {
            guard !isStreaming(key) else {
                named.insert(record.file)
                continue
            }
            var documentGone = true
            if let parts = BlobUploadRecord.parts(of: key) { documentGone = try !directory.documents.contains(parts.document) }
            if documentGone || now >= record.updated &+ limits.uploadExpiryMilliseconds {
                try discardUpload(key, record)
                expired += 1
            } else {
                named.insert(record.file)
            }
        }
        if let uploadsDirectory, let names = try? FileManager.default.contentsOfDirectory(atPath: uploadsDirectory) {
            for name in names where name.hasSuffix(".part") && !named.contains(String(name.dropLast(5))) {
                // A record is saved before its file is created, so a file no record names
                // (after the scan above) is a leftover, unless a new upload began since.
                let file = String(name.dropLast(5))
                if try uploadRecords().contains(where: { $0.record.file == file }) { continue }
                unlink("\(uploadsDirectory)/\(name)")
            }
        }
        return expired
    }
}

/// Runs ``ServerBlobs/collect()`` every `interval` and soon after a request for one
/// (coalesced), on its own serial queue, never on the network thread.
final class BlobCollector: @unchecked Sendable {
    // @unchecked: `timer` is set once in init; `pending` is touched with `lock` held.
    private let blobs: ServerBlobs
    private let queue = DispatchQueue(label: "accord.blob-collector", qos: .utility)
    private let timer: any DispatchSourceTimer
    private let lock = NSLock()
    private var pending = false

    init(blobs: ServerBlobs, intervalSeconds: Double) {
        self.blobs = blobs
        timer = DispatchSource.makeTimerSource(queue: queue)
        let interval = max(1, intervalSeconds)
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [blobs] in _ = try? blobs.collect() }
        timer.resume()
    }

    /// A pass soon; several requests before it runs make one pass.
    func request() {
        lock.lock()
        defer { lock.unlock() }
        guard !pending else { return }
        pending = true
        queue.async { [self] in
            lock.lock()
            pending = false
            lock.unlock()
            _ = try? blobs.collect()
        }
    }

    /// Stops the timer and waits for a pass in progress.
    func stop() {
        timer.cancel()
        queue.sync {}
    }
}
