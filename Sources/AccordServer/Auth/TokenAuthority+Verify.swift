public import AccordCRDT
public import Foundation

extension TokenAuthority {
    /// Tokens longer than this are refused before anything is decoded, so a hostile
    /// client cannot make the server base64-decode and parse megabytes per connection.
    /// Ours are about 150 bytes; 8 KiB is also the usual cap on a whole HTTP header.
    static let maximumTokenLength = 8 * 1024

    /// How far `nbf` and `iat` may lie in the future: clocks of the minting and the
    /// verifying machine differ by a few seconds, and a token minted elsewhere must work
    /// at once. Sixty seconds, the usual leeway of JWT libraries; `exp` gets none, so a
    /// token never lives longer than it says.
    public static let clockSkewAllowance: TimeInterval = 60

    /// The claims of `token` when this server signed it and it has not expired.
    ///
    /// Checks, in order: present; at most 8 KiB; three canonical base64url segments; a
    /// header that is a JSON object with `"alg":"HS256"` (`none` and every other
    /// algorithm are refused, whatever the signature); an HMAC-SHA256 signature equal,
    /// in constant time, to ours; a payload that is a JSON object with `sub` a valid user
    /// id (1 to 256 bytes of UTF-8, no control characters), `exp` a number and `nbf` and
    /// `iat` numbers when present; `now` before `exp`; `nbf` and `iat` no later than
    /// `now` plus ``clockSkewAllowance``. The header is read before the signature is
    /// checked only to pick the algorithm; the payload is read only after.
    ///
    /// Every entry point (REST, both WebSocket paths) calls this one verifier, so a token
    /// is accepted everywhere or nowhere.
    ///
    /// - Throws: `UNAUTHENTICATED` with detail `reason`: `missing`, `oversized`,
    ///   `malformed`, `unsupported-algorithm`, `forged`, `invalid-claims`, `expired` or
    ///   `not-yet-valid`.
    public func verify(_ token: String?, now: Date = Date()) throws(AccordError) -> TokenClaims {
        guard let token, !token.isEmpty else { throw TokenRejection.missing.error("no bearer token") }
        let text = Array(token.utf8)
        guard text.count <= Self.maximumTokenLength else {
            throw TokenRejection.oversized.error(
                "the token is \(text.count) bytes; at most \(Self.maximumTokenLength) are accepted")
        }
        let segments = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw TokenRejection.malformed.error(
                "a token is three base64url segments separated by '.'; this one has \(segments.count)")
        }
        guard let headerBytes = Base64URL.decode(segments[0]),
            let payloadBytes = Base64URL.decode(segments[1]),
            let signature = Base64URL.decode(segments[2])
        else {
            throw TokenRejection.malformed.error("a token segment is not unpadded base64url")
        }

        let header = try Self.jsonObject(headerBytes, part: "header")
        guard header["alg"] == .string("HS256") else {
            let alg = header["alg"]?.jsonText ?? "missing"
            throw TokenRejection.unsupportedAlgorithm.error("the token's alg is \(alg); only \"HS256\" is accepted")
        }
        // RFC 7515 §4.1.11: a header naming critical extensions we do not implement must
        // be refused, and we implement none.
        guard header["crit"] == nil else {
            throw TokenRejection.unsupportedAlgorithm.error("the token's header lists critical extensions (crit)")
        }

        // The signing input is the token's own first two segments as sent, not a re-encoding.
        let signingInput = Array(text[segments[0].startIndex..<segments[1].endIndex])
        guard HMACSHA256.isValid(signature, key: secret, message: signingInput) else {
            throw TokenRejection.forged.error("the token's signature does not match")
        }

        let claims = try Self.claims(from: Self.jsonObject(payloadBytes, part: "payload"))
        guard now < claims.expiresAt else {
            throw TokenRejection.expired.error(
                "the token expired at \(Int64(claims.expiresAt.timeIntervalSince1970)) (seconds since 1970)")
        }
        let latest = now.addingTimeInterval(Self.clockSkewAllowance)
        if let notBefore = claims.notBefore, notBefore > latest {
            throw TokenRejection.notYetValid.error(
                "the token is not valid before \(Int64(notBefore.timeIntervalSince1970)) (seconds since 1970)")
        }
        if let issuedAt = claims.issuedAt, issuedAt > latest {
            throw TokenRejection.notYetValid.error(
                "the token was issued in the future, at \(Int64(issuedAt.timeIntervalSince1970)) (seconds since 1970)")
        }
        return claims
    }

    /// Why the server would refuse `subject` as a token's `sub`, or nil if it is a valid
    /// user id. `accord token` asks before minting.
    public static func subjectProblem(_ subject: String) -> String? {
        do {
            try UserIDRule.validate(subject)
            return nil
        } catch {
            return error.message
        }
    }

    /// `sub`, `exp`, `nbf`, `iat` and `channels` from a payload whose signature is already checked.
    static func claims(from payload: OrderedObject) throws(AccordError) -> TokenClaims {
        guard case .string(let subject)? = payload["sub"], !subject.isEmpty else {
            throw TokenRejection.invalidClaims.error("the token has no sub (a non-empty string)")
        }
        // The rule access rows use, so REST and WebSocket accept the same subjects.
        if let problem = subjectProblem(subject) {
            throw TokenRejection.invalidClaims.error("the token's sub is no valid user id: \(problem)")
        }
        guard let expiresAt = try numericDate(payload, "exp") else {
            throw TokenRejection.invalidClaims.error("the token has no exp (a number of seconds since 1970)")
        }
        // `admin` is true, false or absent; anything else is a token nobody should trust.
        let isAdmin: Bool
        switch payload["admin"] {
        case nil, .bool(false)?: isAdmin = false
        case .bool(true)?: isAdmin = true
        default: throw TokenRejection.invalidClaims.error("the token's admin claim is not true or false")
        }
        // `email` is a valid address or absent: a token that names a malformed one is
        // refused rather than signing in without it.
        var email: EmailAddress?
        switch payload["email"] {
        case nil: break
        case .string(let text)?:
            do throws(AccordError) {
                email = try EmailAddress(validating: text)
            } catch {
                throw TokenRejection.invalidClaims.error("the token's email claim is no valid address: \(error.message)")
            }
        default: throw TokenRejection.invalidClaims.error("the token's email claim is not a string")
        }
        return TokenClaims(
            subject: subject, expiresAt: expiresAt, notBefore: try numericDate(payload, "nbf"),
            issuedAt: try numericDate(payload, "iat"), channels: try channelPattern(payload), isAdmin: isAdmin,
            email: email)
    }

    /// The `channels` claim: nil when absent, `invalid-claims` when it is not a string
    /// that is a valid ``ChannelKeyPattern`` (a token that means to restrict must not
    /// silently allow everything).
    private static func channelPattern(_ payload: OrderedObject) throws(AccordError) -> ChannelKeyPattern? {
        guard let value = payload["channels"] else { return nil }
        guard case .string(let text) = value else {
            throw TokenRejection.invalidClaims.error("the token's channels claim is not a string")
        }
        do throws(AccordError) {
            return try ChannelKeyPattern(validating: text)
        } catch {
            throw TokenRejection.invalidClaims.error("the token's channels claim is no channel pattern: \(error.message)")
        }
    }

    /// A NumericDate claim: nil when absent, `invalid-claims` when not a finite number.
    /// JSON numbers parse as .int or .double; a string, even of digits, is not a NumericDate.
    private static func numericDate(_ payload: OrderedObject, _ name: String) throws(AccordError) -> Date? {
        guard let value = payload[name] else { return nil }
        guard let seconds = value.doubleValue, seconds.isFinite else {
            throw TokenRejection.invalidClaims.error("the token's \(name) is not a number of seconds since 1970")
        }
        return Date(timeIntervalSince1970: seconds)
    }

    /// Decodes a segment as one JSON object in valid UTF-8.
    static func jsonObject(_ bytes: [UInt8], part: String) throws(AccordError) -> OrderedObject {
        let text = String(decoding: bytes, as: UTF8.self)
        // String(decoding:) repairs invalid UTF-8 with U+FFFD; refuse rather than repair.
        guard text.utf8.elementsEqual(bytes) else {
            throw TokenRejection.malformed.error("the token's \(part) is not valid UTF-8")
        }
        let value: AnyValue
        do throws(AccordError) {
            value = try AnyValue(jsonText: text)
        } catch {
            throw TokenRejection.malformed.error("the token's \(part) is not JSON (\(error.message))")
        }
        guard case .object(let object) = value else {
            throw TokenRejection.malformed.error("the token's \(part) is not a JSON object")
        }
        return object
    }
}
