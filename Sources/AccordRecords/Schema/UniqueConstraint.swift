/// A named constraint over one or more scalar fields: no two records of the model on a
/// replica may share all of their values.
public struct UniqueConstraint: Sendable, Hashable {
    public var name: String
    public var fields: [String]

    public init(_ name: String, fields: [String]) {
        self.name = name
        self.fields = fields
    }
}
