import CWebSockets

/// Reads the request of a `wsi` while lws still holds its headers (`LWS_CALLBACK_HTTP`,
/// `LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION`). Service thread only.
enum RequestReader {
    /// Method, path, query and headers. Known headers (lws parses about a hundred) are
    /// always read; `customHeaders` names others to look up. Header names are lower-case.
    static func read(_ wsi: OpaquePointer, customHeaders: [String]) -> HTTPRequest {
        var uriPointer: UnsafeMutablePointer<CChar>?
        var uriLength: Int32 = 0
        let methodIndex = lws_http_get_uri_and_method(wsi, &uriPointer, &uriLength)
        var path = "/"
        if let uriPointer, uriLength > 0 {
            path = String(decoding: UnsafeRawBufferPointer(start: uriPointer, count: Int(uriLength)), as: UTF8.self)
        }
        return HTTPRequest(
            method: method(methodIndex), path: path, query: query(wsi),
            headers: headers(wsi, customHeaders: customHeaders))
    }

    private static func method(_ index: Int32) -> HTTPMethod {
        switch index {
        case Int32(LWSHUMETH_GET): .get
        case Int32(LWSHUMETH_POST): .post
        case Int32(LWSHUMETH_OPTIONS): .options
        case Int32(LWSHUMETH_PUT): .put
        case Int32(LWSHUMETH_PATCH): .patch
        case Int32(LWSHUMETH_DELETE): .delete
        case Int32(LWSHUMETH_HEAD): .head
        case Int32(LWSHUMETH_CONNECT): HTTPMethod(rawValue: "CONNECT")
        default: HTTPMethod(rawValue: "UNKNOWN")
        }
    }

    static func copy(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        let copied = lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token)
        guard copied >= 0 else { return nil }
        return String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func headers(_ wsi: OpaquePointer, customHeaders: [String]) -> [String: String] {
        var headers: [String: String] = [:]
        for raw in 0..<WSI_TOKEN_COUNT.rawValue {
            let token = lws_token_indexes(rawValue: raw)
            guard token != WSI_TOKEN_HTTP_URI_ARGS, let name = lws_token_to_string(token) else { continue }
            let text = String(cString: name)
            // Header tokens read "name:"; URI tokens ("get ") and h2 pseudo-headers (":path") are not headers.
            guard text.count > 1, text.hasSuffix(":"), !text.hasPrefix(":") else { continue }
            if let value = copy(wsi, token) { headers[String(text.dropLast()).lowercased()] = value }
        }
        for name in customHeaders {
            let key = name.lowercased()
            let lookup = key + ":"
            let length = Int(lws_hdr_custom_length(wsi, lookup, Int32(lookup.utf8.count)))
            guard length >= 0 else { continue }
            var buffer = [CChar](repeating: 0, count: length + 1)
            let copied = lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), lookup, Int32(lookup.utf8.count))
            guard copied >= 0 else { continue }
            headers[key] = String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return headers
    }

    /// lws splits the query at `&` into fragments of `WSI_TOKEN_HTTP_URI_ARGS`, URL-decoded.
    private static func query(_ wsi: OpaquePointer) -> [QueryItem] {
        var items: [QueryItem] = []
        var index: Int32 = 0
        while true {
            let length = Int(lws_hdr_fragment_length(wsi, WSI_TOKEN_HTTP_URI_ARGS, index))
            guard length > 0 else { break }
            var buffer = [CChar](repeating: 0, count: length + 1)
            let copied = lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index)
            guard copied >= 0 else { break }
            let text = String(decoding: buffer.prefix(Int(copied)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let equals = text.firstIndex(of: "=") {
                items.append(QueryItem(name: String(text[..<equals]), value: String(text[text.index(after: equals)...])))
            } else {
                items.append(QueryItem(name: text, value: ""))
            }
            index += 1
        }
        return items
    }
}
