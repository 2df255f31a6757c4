import AccordRecords

/// Typed relationship reads: a traversal method per relationship (`post.author()`,
/// `author.posts()`, `post.tags(limit:afterCursor:)` for a `hasManyThrough`, paged
/// because join tables grow without bound), a static `include<Name>()` for queries and
/// a `related<Name>` property reading what a query included.
extension SwiftModelGenerator {
    func writeRelationships(_ model: ModelSchema, type: String, naming: ModelNaming, to text: inout SourceText) {
        text.block("extension \(type) {") { body in
            for (index, relationship) in model.relationships.enumerated() {
                if index > 0 { body.line() }
                write(relationship, target: naming.typeName(relationship.model), to: &body)
            }
        }
    }

    private func write(_ relationship: Relationship, target: String, to text: inout SourceText) {
        let name = SwiftNames.escaped(relationship.name)
        let key = SwiftNames.literal(relationship.name)
        let suffix = SwiftNames.capitalized(relationship.name)
        switch relationship.kind {
        case .refersTo(let field):
            text.line("/// The `\(relationship.model)` record `\(field)` refers to, in this record's document (relationship `\(relationship.name)`).")
            text.block("public func \(name)() throws(AccordError) -> \(target)? {") {
                $0.line("try referenced(\(SwiftNames.literal(field)), as: \(target).self)")
            }
            text.line()
            text.line("/// Loads `\(relationship.name)` with a query's results (read it with `related\(suffix)`).")
            text.block("public static func include\(suffix)() -> Include {") { $0.line("Include(\(key))") }
            text.line()
            text.line("/// The `\(relationship.name)` record a query included; nil when none (or not included).")
            text.block("public var related\(suffix): \(target)? {") { $0.line("related(\(key), as: \(target).self).first") }
        case .hasMany(let foreignField, let orderBy):
            text.line("/// The `\(relationship.model)` records whose `\(foreignField)` holds this record's id, \(Self.order(orderBy)) (relationship `\(relationship.name)`).")
            text.block("public func \(name)() throws(AccordError) -> [\(target)] {") {
                $0.line("try traverseAll(\(key), as: \(target).self)")
            }
            writeIncludeMany(relationship, target: target, to: &text)
        case .hasManyThrough(let joinModel, _, _, let orderBy):
            text.line("/// One page of the `\(relationship.model)` records reached through `\(joinModel)`, \(Self.order(orderBy))")
            text.line("/// of the join records (relationship `\(relationship.name)`); pass `nextCursor` as `afterCursor`.")
            text.block("public func \(name)(limit: Int? = nil, afterCursor: String? = nil) throws(AccordError) -> ModelPage<\(target)> {") {
                $0.line("try traverse(\(key), as: \(target).self, limit: limit, afterCursor: afterCursor)")
            }
            writeIncludeMany(relationship, target: target, to: &text)
        }
    }

    private func writeIncludeMany(_ relationship: Relationship, target: String, to text: inout SourceText) {
        let key = SwiftNames.literal(relationship.name)
        let suffix = SwiftNames.capitalized(relationship.name)
        text.line()
        text.line("/// Loads `\(relationship.name)` with a query's results, at most `limit` per record.")
        text.block("public static func include\(suffix)(limit: Int? = nil) -> Include {") { $0.line("Include(\(key), limit: limit)") }
        text.line()
        text.line("/// The `\(relationship.name)` records a query included (empty when not included).")
        text.block("public var related\(suffix): [\(target)] {") { $0.line("related(\(key), as: \(target).self)") }
    }

    private static func order(_ key: SortKey?) -> String {
        guard let key else { return "by id" }
        return "by `\(key.field)` \(key.direction == .ascending ? "ascending" : "descending")"
    }
}
