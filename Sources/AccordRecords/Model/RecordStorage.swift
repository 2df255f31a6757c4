public import AccordStore
public import Foundation

/// The values of one record as an app holds it, with what it changed since it was
/// read: what `save` writes. A new record (never saved) writes every field it has; a
/// record read from a query writes only the fields assigned since (so a save never
/// undoes a concurrent edit of another field).
///
/// Typed models keep one of these (``Model/storage``) and read and write it through
/// typed properties; ``DynamicRecord`` wraps one for models known only at run time.
public struct RecordStorage: Sendable, Hashable {
    /// The record's id: nil for a new record whose model auto-assigns ids, until saved.
    public var id: String?
    /// The document the record was read from or saved to; nil for a new record.
    public private(set) var document: DocumentID?
    public private(set) var values: [String: RecordValue]
    private var original: [String: RecordValue]
    /// Fields assigned since the record was read (or since ``markAllChanged()``).
    public private(set) var changedFields: Set<String>
    private var allChanged: Bool
    /// The records a query's `include` loaded with this one, by relationship name
    /// (``IndexedRecord/related``): what generated `related<Name>` properties read.
    /// Empty for a new record and after a save (a save does not reload them).
    public private(set) var related: [String: [IndexedRecord]]

    /// A new record.
    public init(id: String? = nil, values: [String: RecordValue] = [:]) {
        self.id = id
        self.values = values
        original = [:]
        changedFields = Set(values.keys)
        allChanged = true
        related = [:]
    }

    /// A record as a query returned it: nothing changed yet.
    public init(_ record: IndexedRecord) {
        id = record.id
        document = record.document
        values = record.record.values
        original = values
        changedFields = []
        allChanged = false
        related = record.related
    }

    public var isNew: Bool { document == nil }

    /// A field's value; setting marks it changed (nil removes the field).
    public subscript(field: String) -> RecordValue? {
        get { values[field] }
        set {
            values[field] = newValue
            changedFields.insert(field)
        }
    }

    /// Back to the values as read; nothing changed.
    public mutating func discardChanges() {
        values = original
        changedFields = []
        allChanged = isNew
    }

    /// Every field counts as changed: the next save writes them all (and removes the
    /// fields this copy does not have).
    public mutating func markAllChanged() {
        allChanged = true
        changedFields.formUnion(values.keys)
        changedFields.formUnion(original.keys)
    }

    /// What a save writes.
    public var write: RecordWrite {
        let fields = allChanged ? changedFields.union(values.keys) : changedFields
        var set: [String: RecordValue] = [:]
        var removing: Set<String> = []
        for field in fields {
            if let value = values[field] { set[field] = value } else { removing.insert(field) }
        }
        return RecordWrite(id: id, values: set, removing: removing)
    }

    // MARK: Typed access, for generated and hand-written models

    public func string(_ field: String) -> String? {
        if case .string(let text)? = values[field] { return text }
        return nil
    }

    public func number(_ field: String) -> Double? {
        if case .number(let number)? = values[field] { return number }
        return nil
    }

    public func bool(_ field: String) -> Bool? {
        if case .bool(let flag)? = values[field] { return flag }
        return nil
    }

    public func date(_ field: String) -> Date? {
        guard let text = string(field), let seconds = ISODate.seconds(text) else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    public func stringSet(_ field: String) -> StringSet {
        if case .stringSet(let set)? = values[field] { return set }
        return []
    }

    public mutating func set(_ field: String, _ text: String?) { self[field] = text.map { .string($0) } }
    public mutating func set(_ field: String, _ number: Double?) { self[field] = number.map { .number($0) } }
    public mutating func set(_ field: String, _ flag: Bool?) { self[field] = flag.map { .bool($0) } }
    public mutating func set(_ field: String, _ set: StringSet?) { self[field] = set.map { .stringSet($0) } }

    /// Dates are stored as their canonical ISO-8601 text (milliseconds, UTC).
    public mutating func set(_ field: String, _ date: Date?) {
        self[field] = date.flatMap { ISODate.text(secondsSince1970: $0.timeIntervalSince1970) }.map { .string($0) }
    }

    /// After a save: the record as stored, nothing changed.
    mutating func saved(as record: IndexedRecord) { self = RecordStorage(record) }
}
