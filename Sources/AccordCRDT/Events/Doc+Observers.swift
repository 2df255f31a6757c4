/// Building events and calling observers at the end of a transaction.
extension Doc {
    func callObservers(_ tr: inout TransactionState) {
        // Remote changes to formatted text schedule Yjs's formatting clean-up.
        if !tr.local, tr.changedAnyType(where: { store.types[Int($0)].hasFormatting && isTextKind(store.types[Int($0)].kind) }) {
            tr.needFormattingCleanup = true
        }
        guard !typeObservers.isEmpty || !deepObservers.isEmpty else { return }
        if tr.extendedOwnItem {
            // Events tell new content from old by clock: give back the item boundary at the
            // transaction's start that appending to an existing item skipped. The clean-up
            // after the observers joins the two again.
            _ = store.findCleanStart(client: tr.ownClient, clock: tr.before(tr.ownClient))
        }
        // Events tell deleted text by item too: give back the items backspacing skipped.
        if !tr.absorbedTails.isEmpty {
            store.restoreAbsorbedTails(tr)
            // The clean-up now has work to do on them, as after plain deletes.
            tr.absorbedTails.removeAll()
        }
        let observed = Set(typeObservers.filter { !$0.value.isEmpty }.keys)
        let deepObserved = Set(deepObservers.filter { !$0.value.isEmpty }.keys)
        guard !observed.isEmpty || !deepObserved.isEmpty else { return }

        var eventsByAncestor: [Int32: [YEvent]] = [:]
        for (t, keys) in tr.changedKeys.sorted(by: { $0.key < $1.key }) {
            guard isAlive(t) else { continue }
            let ancestors = ancestorChain(t)
            let wanted = observed.contains(t) || ancestors.contains { deepObserved.contains($0) }
            guard wanted else { continue }
            let event = makeEvent(type: t, keys: keys, tr)
            for (handlerID, handler) in typeObservers[t] ?? [] where typeObservers[t]?.contains(where: { $0.id == handlerID }) == true {
                handler(event)
            }
            for a in ancestors where deepObserved.contains(a) { eventsByAncestor[a, default: []].append(event) }
        }
        for (a, events) in eventsByAncestor.sorted(by: { $0.key < $1.key }) where isAlive(a) {
            let located = events.map { e -> YEvent in
                var e = e
                e.path = path(from: a, to: e.target)
                return e
            }.sorted { $0.path.count < $1.path.count }
            for (_, handler) in deepObservers[a] ?? [] { handler(located) }
        }
    }

    private func isTextKind(_ kind: TypeKind?) -> Bool { kind == .text || kind == .xmlText }

    func isAlive(_ t: Int32) -> Bool {
        let holder = store.types[Int(t)].item
        return holder == noItem || !store.items[Int(holder)].deleted
    }

    /// `t` and every type containing it, innermost first.
    func ancestorChain(_ t: Int32) -> [Int32] {
        var chain: [Int32] = [t]
        var current = t
        while true {
            let holder = store.types[Int(current)].item
            guard holder != noItem else { break }
            current = store.items[Int(holder)].parent
            guard current >= 0 else { break }
            chain.append(current)
        }
        return chain
    }

    func typeIndex(of value: YValue) -> Int32? {
        switch value {
        case .text(let t): t.type
        case .map(let m): m.type
        case .array(let a): a.type
        case .xml(let x): x.type
        default: nil
        }
    }

    /// Keys and indices from `ancestor` down to `target`.
    func path(from ancestor: Int32, to target: YValue) -> [PathSegment] {
        guard var current = typeIndex(of: target) else { return [] }
        var path: [PathSegment] = []
        while current != ancestor {
            let holder = store.types[Int(current)].item
            guard holder != noItem else { break }
            let item = store.items[Int(holder)]
            if item.parentSub >= 0 {
                path.append(.key(store.keys[Int(item.parentSub)]))
            } else {
                var index = 0
                var ref = store.types[Int(item.parent)].start
                while ref != noItem, ref != holder {
                    index += store.items[Int(ref)].visibleLength
                    ref = store.items[Int(ref)].right
                }
                path.append(.index(index))
            }
            current = item.parent
        }
        return path.reversed()
    }

    private func adds(_ item: Item, _ tr: TransactionState) -> Bool { item.clock >= tr.before(item.client) }

    private func deletes(_ item: Item, _ tr: TransactionState) -> Bool {
        tr.deletes.contains(client: item.client, clock: item.clock)
    }

    func makeEvent(type t: Int32, keys changedKeys: Set<Int32>, _ tr: TransactionState) -> YEvent {
        var keys: [String: KeyChange] = [:]
        // Sized once: a batch of records changes a thousand keys of one map.
        keys.reserveCapacity(changedKeys.count)
        for k in changedKeys where k >= 0 {
            guard let ref = store.types[Int(t)].map[k] else { continue }
            let item = store.items[Int(ref)]
            let name = store.keys[Int(k)]
            if adds(item, tr) {
                var prev = item.left
                while prev != noItem, adds(store.items[Int(prev)], tr) { prev = store.items[Int(prev)].left }
                let prevDeleted = prev != noItem && deletes(store.items[Int(prev)], tr)
                if deletes(item, tr) {
                    if prevDeleted { keys[name] = KeyChange(action: .delete, oldValue: values(of: prev).last) }
                } else if prevDeleted {
                    keys[name] = KeyChange(action: .update, oldValue: values(of: prev).last)
                } else {
                    keys[name] = KeyChange(action: .add, oldValue: nil)
                }
            } else if deletes(item, tr) {
                keys[name] = KeyChange(action: .delete, oldValue: values(of: ref).last)
            }
        }
        var delta: [DeltaOp] = []
        if changedKeys.contains(-1) {
            delta = isTextKind(store.types[Int(t)].kind) ? textDelta(type: t, tr) : listDelta(type: t, tr)
        }
        return YEvent(target: typeValue(t), path: [], keys: keys, delta: delta, origin: tr.origin, isLocal: tr.local)
    }

    private func listDelta(type t: Int32, _ tr: TransactionState) -> [DeltaOp] {
        var delta: [DeltaOp] = []
        var inserted: [YValue] = []
        var retained = 0
        var deleted = 0
        func flush() {
            if !inserted.isEmpty { delta.append(.insert(.values(inserted))); inserted = [] }
            if retained > 0 { delta.append(.retain(retained)); retained = 0 }
            if deleted > 0 { delta.append(.delete(deleted)); deleted = 0 }
        }
        var ref = store.types[Int(t)].start
        while ref != noItem {
            let item = store.items[Int(ref)]
            if item.deleted {
                if deletes(item, tr), !adds(item, tr) {
                    if deleted == 0 { flush() }
                    deleted += Int(item.length)
                }
            } else if item.isCountable {
                if adds(item, tr) {
                    if inserted.isEmpty { flush() }
                    inserted.append(contentsOf: values(of: ref))
                } else {
                    if retained == 0 { flush() }
                    retained += Int(item.length)
                }
            }
            ref = item.right
        }
        if !inserted.isEmpty { delta.append(.insert(.values(inserted))) }
        if deleted > 0 { delta.append(.delete(deleted)) }
        return delta
    }

    /// Yjs's `YTextEvent.delta`, without its side effect of deleting redundant formats.
    private func textDelta(type t: Int32, _ tr: TransactionState) -> [DeltaOp] {
        enum Action { case insert, retain, delete }
        var delta: [DeltaOp] = []
        var current = OrderedObject()
        var old = OrderedObject()
        var attributes = OrderedObject()
        var action: Action?
        var insert: [UInt16] = []
        var insertEmbed: DeltaContent?
        var retain = 0
        var deleteLength = 0
        func addOp() {
            guard let a = action else { return }
            switch a {
            case .delete:
                if deleteLength > 0 { delta.append(.delete(deleteLength)) }
                deleteLength = 0
            case .insert:
                let attrs = current.count > 0 ? current : nil
                if let e = insertEmbed {
                    delta.append(.insert(e, attributes: attrs))
                } else if !insert.isEmpty {
                    delta.append(.insert(.text(String(decoding: insert, as: UTF16.self)), attributes: attrs))
                }
                insert = []
                insertEmbed = nil
            case .retain:
                if retain > 0 { delta.append(.retain(retain, attributes: attributes.count > 0 ? attributes : nil)) }
                retain = 0
            }
            action = nil
        }
        var ref = store.types[Int(t)].start
        while ref != noItem {
            let item = store.items[Int(ref)]
            switch item.kind {
            case .type, .embed:
                if adds(item, tr) {
                    if !deletes(item, tr) {
                        addOp()
                        action = .insert
                        if case .type(let v) = values(of: ref).first.map({ DeltaContent.type($0) }) ?? .embed(.null), item.kind == .type {
                            insertEmbed = .type(v)
                        } else if case .value(let v)? = values(of: ref).first {
                            insertEmbed = .embed(v)
                        }
                        addOp()
                    }
                } else if deletes(item, tr) {
                    if action != .delete { addOp(); action = .delete }
                    deleteLength += 1
                } else if !item.deleted {
                    if action != .retain { addOp(); action = .retain }
                    retain += 1
                }
            case .string:
                if adds(item, tr) {
                    if !deletes(item, tr) {
                        if action != .insert { addOp(); action = .insert }
                        insert.append(contentsOf: store.string(of: item))
                    }
                } else if deletes(item, tr) {
                    if action != .delete { addOp(); action = .delete }
                    deleteLength += Int(item.length)
                } else if !item.deleted {
                    if action != .retain { addOp(); action = .retain }
                    retain += Int(item.length)
                }
            case .format:
                guard let (key, value) = store.formatPair(of: item) else { break }
                if adds(item, tr) {
                    if !deletes(item, tr), !attributesEqual(current[key], value) {
                        if action == .retain { addOp() }
                        if attributesEqual(value, old[key]) { attributes[key] = nil } else { attributes[key] = value }
                    }
                } else if deletes(item, tr) {
                    old[key] = value
                    let cur = current[key] ?? .null
                    if !attributesEqual(cur, value) {
                        if action == .retain { addOp() }
                        attributes[key] = cur
                    }
                } else if !item.deleted {
                    old[key] = value
                    if let attr = attributes[key], !attributesEqual(attr, value) {
                        if action == .retain { addOp() }
                        if value.isNull { attributes[key] = nil } else { attributes[key] = value }
                    }
                }
                if !item.deleted {
                    if action == .insert { addOp() }
                    current.apply(key: key, value: value)
                }
            default:
                break
            }
            ref = item.right
        }
        addOp()
        while case .retain(_, let attrs)? = delta.last, attrs == nil { delta.removeLast() }
        return delta
    }
}
