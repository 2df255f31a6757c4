public import AccordCRDT
public import AccordNet
public import Foundation

extension TokenAuthority {
    /// The token a request carries: from `Authorization: Bearer <token>` (RFC 6750 §2.1;
    /// the scheme in any case), or else from the `token` query parameter.
    ///
    /// The query parameter exists because browsers cannot set headers on a WebSocket
    /// upgrade. The header wins when both are present: it does not end up in access
    /// logs and proxies the way a URL does. An `Authorization` header with another scheme
    /// (`Basic ...`) or an empty value counts as no header.
    /// - Returns: nil when the request has neither.
    public static func bearerToken(from request: HTTPRequest) -> String? {
        if let authorization = request.header("authorization"), let token = bearer(authorization) {
            return token
        }
        guard let token = request.queryValue("token"), !token.isEmpty else { return nil }
        return token
    }

    /// The claims of the request's token: ``verify(_:now:)`` of ``bearerToken(from:)``.
    /// - Throws: `UNAUTHENTICATED`, as ``verify(_:now:)`` (`missing` when there is no token).
    public func authenticate(_ request: HTTPRequest, now: Date = Date()) throws(AccordError) -> TokenClaims {
        try verify(Self.bearerToken(from: request), now: now)
    }

    /// The credentials of a `Bearer` authorization value, nil for any other scheme.
    static func bearer(_ authorization: String) -> String? {
        let value = authorization.drop { $0 == " " || $0 == "\t" }
        guard let space = value.firstIndex(where: { $0 == " " || $0 == "\t" }),
            value[..<space].lowercased() == "bearer"
        else { return nil }
        let token = value[space...].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
