import AccordTesting
import Testing
@testable import AccordCRDT

@Suite struct AttachmentTests {
    static func hash(_ n: Int) -> String { String(repeating: String(n, radix: 16), count: 64) }
    static func blob(_ n: Int, name: String? = nil) -> BlobRef {
        try! BlobRef(hash: hash(n), size: Int64(n * 10), contentType: "image/png", name: name)
    }

    // MARK: The value

    @Test func valueRoundTripsThroughJSON() throws {
        let blob = try BlobRef(hash: String(repeating: "AB", count: 32), size: 12, contentType: "text/plain", name: "a.txt")
        #expect(blob.hash == String(repeating: "ab", count: 32))
        let json = blob.toJSON()
        #expect(json.objectValue?["$blob"] == .string(blob.hash))
        #expect(json.objectValue?["size"] == .int(12))
        #expect(json.objectValue?["contentType"] == .string("text/plain"))
        #expect(json.objectValue?["name"] == .string("a.txt"))
        #expect(BlobRef(json) == blob)
        #expect(BlobRef.isBlob(json))
        // Through the JSON text a Yjs peer would see.
        let reparsed = try AnyValue(jsonText: json.jsonText)
        #expect(BlobRef(reparsed) == blob)
    }

    @Test func nonAttachmentsAreRefused() throws {
        let h = Self.hash(1)
        #expect(!BlobRef.isBlob(["$blob": .string(h)]))  // no size
        #expect(!BlobRef.isBlob(["$blob": .string(h), "size": -1]))
        #expect(!BlobRef.isBlob(["$blob": .string(h), "size": 1.5]))
        #expect(!BlobRef.isBlob(["$blob": "abc", "size": 1]))
        #expect(!BlobRef.isBlob(["$blob": .string(String(repeating: "g", count: 64)), "size": 1]))
        #expect(!BlobRef.isBlob(["$blob": .string(h), "size": 1, "contentType": 3]))
        #expect(!BlobRef.isBlob(["$blob": .string(h), "size": 1, "contentType": "bad\ntype"]))
        #expect(!BlobRef.isBlob(["$blob": .string(h), "size": 1, "name": 3]))
        #expect(!BlobRef.isBlob(.string(h)))
        #expect(BlobRef(["$blob": .string(h), "size": 0])?.contentType == "application/octet-stream")
        #expect(throws: AccordError.self) { try BlobRef(hash: "xyz", size: 1) }
        #expect(throws: AccordError.self) { try BlobRef(hash: h, size: -1) }
        #expect(throws: AccordError.self) { try BlobRef(hash: h, size: 1, contentType: "") }
    }

    // MARK: Finding them

    @Test func findsAttachmentsWhereverContentHoldsThem() throws {
        let doc = Doc()
        let root = try doc.getMap("root")
        try root.set("photo", Self.blob(1).toJSON())
        let list = try root.setArray("list")
        try list.append([Self.blob(2).toJSON(), "plain", 3])
        // Deep inside a JSON value (a record field holding a document, say).
        try root.set("record", ["fields": ["nested": [.array([Self.blob(3).toJSON()])]]])
        // A nested map whose entries form one.
        let shaped = try list.insertMap(0)
        try shaped.set("$blob", .string(Self.hash(4)))
        try shaped.set("size", 40)
        try shaped.set("contentType", "audio/ogg")
        try doc.getText("text").insertEmbed(0, Self.blob(5).toJSON())
        let hashes = doc.attachments().map(\.hash)
        #expect(hashes == (1...5).map(Self.hash))
        #expect(doc.attachments() == doc.attachmentsByWalkingContent())
        #expect(doc.attachments().first { $0.hash == Self.hash(4) }?.contentType == "audio/ogg")
        #expect(BlobRef.isBlob(.map(shaped)))

        // Removing the holders removes the references.
        try root.delete("photo")
        try list.delete(0, count: 2)  // the shaped map and blob 2
        #expect(doc.attachments().map(\.hash) == [3, 5].map(Self.hash))
        #expect(doc.referencesAttachment(Self.hash(3)))
        #expect(!doc.referencesAttachment(Self.hash(1)))
    }

    @Test func aHashStaysReferencedWhileAnyHolderRemains() throws {
        let doc = Doc()
        let map = try doc.getMap("m")
        var changes: [AttachmentChange] = []
        _ = doc.attachments()
        let subscription = doc.observeAttachments { changes.append($0) }
        try map.set("a", Self.blob(1).toJSON())
        try map.set("b", Self.blob(1, name: "copy").toJSON())
        try map.delete("a")
        #expect(doc.attachments().map(\.hash) == [Self.hash(1)])
        try map.delete("b")
        #expect(doc.attachments().isEmpty)
        #expect(changes == [
            AttachmentChange(added: [Self.hash(1)], removed: []), AttachmentChange(added: [], removed: [Self.hash(1)]),
        ])
        subscription.cancel()
    }

    @Test func theIndexOfALoadedDocumentStartsFromItsContent() throws {
        let source = Doc()
        try source.getMap("m").set("a", Self.blob(7).toJSON())
        let copy = Doc()
        try copy.applyUpdate(source.encodeStateAsUpdate())
        #expect(copy.attachments() == [Self.blob(7)])
    }

    /// The incremental index against a full walk, after every step of random edits on
    /// two replicas that exchange updates (so concurrent overwrites, deletes of maps
    /// holding attachments and remote transactions all happen).
    @Test(arguments: 0..<12)
    func incrementalIndexMatchesAFullWalk(seed: UInt64) throws {
        var random = SplitMix64(seed: 0xB10B + seed)
        let replicas = [Doc(clientID: 1), Doc(clientID: 2)]
        var mirrors: [Set<String>] = [[], []]
        var subscriptions: [Subscription] = []
        for (i, doc) in replicas.enumerated() {
            #expect(doc.attachments().isEmpty)
            subscriptions.append(doc.observeAttachments { change in
                mirrors[i].subtract(change.removed)
                mirrors[i].formUnion(change.added)
            })
        }
        func pick(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        func someBlob() -> AnyValue { Self.blob(1 + pick(6), name: pick(2) == 0 ? nil : "n\(pick(3))").toJSON() }
        for step in 0..<300 {
            let doc = replicas[pick(2)]
            let root = try doc.getMap("root")
            let list = try doc.getArray("list")
            try doc.transact {
                for _ in 0..<(1 + pick(3)) {
                    switch pick(11) {
                    case 0: try root.set("k\(pick(5))", someBlob())
                    case 1: try root.set("k\(pick(5))", .int(Int64(pick(100))))
                    case 2: try root.delete("k\(pick(5))")
                    case 3: try list.insert(pick(list.count + 1), [someBlob(), "x", someBlob()])
                    case 4: if list.count > 0 { try list.delete(pick(list.count), count: 1) }
                    case 5:
                        let shaped = try root.setMap("m\(pick(3))")
                        try shaped.set("$blob", .string(Self.hash(1 + pick(6))))
                        if pick(4) > 0 { try shaped.set("size", 5) }
                    case 6:
                        if case .map(let shaped)? = root.get("m\(pick(3))") {
                            if pick(2) == 0 { try shaped.delete("size") } else { try shaped.set("$blob", .string(Self.hash(1 + pick(6)))) }
                            if pick(3) == 0 { try shaped.set("size", .int(Int64(pick(9)))) }
                        }
                    case 7: try root.set("json\(pick(2))", ["deep": [.array([someBlob(), ["x": someBlob()]])]])
                    case 8:
                        let nested = try list.insertArray(pick(list.count + 1))
                        try nested.append([someBlob()])
                        let inner = try nested.insertMap(0)
                        try inner.set("b", someBlob())
                    case 9: if list.count > 1 { try list.delete(0, count: min(list.count, 1 + pick(3))) }
                    default: try doc.getText("t").insertEmbed(0, someBlob())
                    }
                }
            }
            if pick(3) == 0 {
                // Exchange what each lacks.
                let a = try replicas[0].encodeStateAsUpdate(from: replicas[1].encodeStateVector())
                let b = try replicas[1].encodeStateAsUpdate(from: replicas[0].encodeStateVector())
                try replicas[1].applyUpdate(a)
                try replicas[0].applyUpdate(b)
            }
            for (i, replica) in replicas.enumerated() {
                let walked = replica.attachmentsByWalkingContent()
                #expect(replica.attachments() == walked, "seed \(seed) step \(step) replica \(i)")
                #expect(mirrors[i] == Set(walked.map(\.hash)), "seed \(seed) step \(step) replica \(i)")
            }
        }
        // A fresh replica loaded from the final state agrees too.
        let loaded = Doc()
        try loaded.applyUpdate(replicas[0].encodeStateAsUpdate())
        #expect(loaded.attachments() == replicas[0].attachmentsByWalkingContent())
        subscriptions.forEach { $0.cancel() }
    }
}
