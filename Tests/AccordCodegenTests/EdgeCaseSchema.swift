import AccordCodegen
import AccordCRDT
import AccordRecords

/// A schema of awkward names and defaults: Swift keywords as field, unique and
/// relationship names, defaults of every type (a date and a string set included), a
/// negative and a fractional number, text that needs escaping. Its generated files are
/// committed in GeneratedEdgeCases/ and compiled here, so escaping mistakes fail the build.
enum EdgeCaseSchema {
    static let json = #"""
        {"models": [
          {"name": "keyword_things",
           "fields": [
             {"name": "id", "type": "id"},
             {"name": "default", "type": "string", "default": "quote \" backslash \\ newline \n tab \t é"},
             {"name": "class", "type": "number", "default": -2.5},
             {"name": "in", "type": "stringset", "default": ["b", "a"]},
             {"name": "when", "type": "date", "default": "2026-03-01T12:30:00.250Z"},
             {"name": "static", "type": "string", "unique": true},
             {"name": "is", "type": "boolean", "default": true},
             {"name": "ownerId", "type": "id"}],
           "uniqueConstraints": [{"name": "for_in", "fields": ["class", "when"]}],
           "relationships": [{"name": "extension", "model": "owners", "kind": "refersTo", "field": "ownerId"}]},
          {"name": "owners",
           "fields": [{"name": "id", "type": "id", "autoAssign": true}, {"name": "name", "type": "string"}],
           "relationships": [{"name": "return", "model": "keyword_things", "kind": "hasMany", "foreignField": "ownerId"}]}
        ]}
        """#

    static func models() throws -> [ModelSchema] { try ModelSchema.models(json: AnyValue(jsonText: json)) }
}
