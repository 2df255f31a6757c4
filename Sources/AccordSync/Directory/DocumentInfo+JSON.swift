import AccordCRDT
import AccordStore
import Foundation

/// The server's document body (`docs/server-api.md`), as REST answers and directory
/// events carry it. A body that does not decode is `UNEXPECTED_RESPONSE`.
extension DocumentInfo {
    private struct Wire: Decodable {
        var id: String
        var title: String
        var tags: [String]
        var created: String
        var updated: String
        var size: Int
        var permission: DocumentPermission
        var owner: String
        var thumbnailBlobId: String?
        var grantedBy: String?
        var source: String?
    }

    private static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Decodes one document body.
    package init(json body: [UInt8]) throws(AccordError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(body))
        } catch {
            throw AccordError(
                .unexpectedResponse, "the server's answer is not the expected JSON: \(error)",
                details: ["shape": "document"])
        }
        // Metadata is any JSON: read it with the engine's own JSON reader.
        var metadata: AnyValue?
        if case .object(let fields) = try AnyValue(jsonText: String(decoding: body, as: UTF8.self)),
           let value = fields.dictionary["metadata"], value != .null {
            metadata = value
        }
        self.init(
            id: try DocumentID(validating: wire.id), title: wire.title, tags: wire.tags,
            created: try Self.date(wire.created), updated: try Self.date(wire.updated), size: wire.size,
            permission: wire.permission, owner: wire.owner, metadata: metadata, thumbnailBlobID: wire.thumbnailBlobId,
            grantedBy: wire.grantedBy, source: wire.source)
    }

    package static func date(_ text: String) throws(AccordError) -> Date {
        guard let date = try? dateStyle.parse(text) else {
            throw AccordError(.unexpectedResponse, "the server sent a date that is not ISO 8601: \(text)")
        }
        return date
    }

    /// The entry as the client caches it: the server's fields, without the listing's
    /// `grantedBy` / `source` (which say how a listing found it, not what it is).
    var cached: DocumentInfo {
        var copy = self
        copy.grantedBy = nil
        copy.source = nil
        return copy
    }
}

/// `{"documents": [...], "nextCursor": string|null}`: each document's body as bytes
/// (for the cache, which keeps the server's JSON) and the next cursor.
package enum DocumentPageJSON {
    package static func split(_ body: [UInt8]) throws(AccordError) -> (documents: [[UInt8]], nextCursor: String?) {
        guard case .object(let fields) = try AnyValue(jsonText: String(decoding: body, as: UTF8.self)),
              case .array(let documents)? = fields.dictionary["documents"]
        else {
            throw AccordError(.unexpectedResponse, "the server's page has no documents")
        }
        return (documents.map { Array($0.jsonText.utf8) }, fields.dictionary["nextCursor"]?.stringValue)
    }
}
