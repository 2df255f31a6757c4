/// What a record field holds. Numbers are doubles (integers stay exact up to 2^53, as in
/// JavaScript); dates are ISO-8601 strings in the document; a string set is a set of
/// strings that merges member by member.
public enum FieldType: String, Sendable, Hashable, CaseIterable {
    case id
    case string
    case number
    case boolean
    case date
    case stringSet = "stringset"

    /// Types a unique constraint may cover: every scalar.
    var isScalar: Bool { self != .stringSet }
}
