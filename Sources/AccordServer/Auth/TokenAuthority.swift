public import AccordCRDT
import AccordStore
public import Foundation

/// Mints and verifies the server's bearer tokens: JWTs (RFC 7519) signed with HS256,
/// that is HMAC-SHA256 under one server secret.
///
/// A token is three base64url segments, `header.payload.signature`. The header is always
/// `{"alg":"HS256","typ":"JWT"}`, the payload `{"sub":"<user id>","exp":<seconds since
/// 1970>}`, with `"channels":"<pattern>"` when the token limits channels (see
/// ``ChannelKeyPattern``); `nbf` and `iat` are honoured when present (see ``verify(_:now:)``). Any JWT library can mint a token the server accepts, given the secret.
///
/// ```swift
/// let authority = try TokenAuthority(secret: ServerSecret.load(secretFile: nil))
/// let token = authority.mint(subject: "alice", ttl: 3600)
/// let claims = try authority.verify(token)   // claims.subject == "alice"
/// ```
///
/// ## Topics
/// - ``mint(subject:expiresAt:)``, ``mint(subject:ttl:now:)``
/// - ``verify(_:now:)``, ``authenticate(_:now:)``, ``bearerToken(from:)``
public struct TokenAuthority: Sendable {
    /// Shorter secrets are refused: RFC 7518 §3.2 requires an HS256 key of at least the
    /// hash's size, and fewer bytes would make guessing the secret easier than forging a MAC.
    static let minimumSecretLength = 32

    let secret: [UInt8]

    /// - Parameter secret: the HMAC key, at least ``minimumSecretLength`` bytes.
    /// - Throws: `INVALID_ARGUMENT` for a shorter secret; `IO_ERROR` when libsodium cannot start.
    public init(secret: [UInt8]) throws(AccordError) {
        guard secret.count >= Self.minimumSecretLength else {
            throw AccordError(
                .invalidArgument,
                "the token secret is \(secret.count) bytes; it must be at least \(Self.minimumSecretLength)")
        }
        try Sodium.ensureInitialized(orThrow: .ioError)
        self.secret = secret
    }

    /// A token for `subject` that expires at `expiresAt`; `channels` adds the claim
    /// that limits which channels it may attach (``ChannelKeyPattern``).
    ///
    /// `exp` is written as whole seconds, rounded down, so a token never outlives the
    /// instant asked for; verifying it yields that rounded instant. The subject is not
    /// checked here: one ``subjectProblem(_:)`` objects to makes a token every entry
    /// point refuses (`accord token` checks first).
    /// With `channels`, the token carries that pattern (``TokenClaims/channels``); with
    /// `admin`, `"admin": true` (``TokenClaims/isAdmin``); with `email`, that address
    /// (``TokenClaims/email``).
    public func mint(
        subject: String, expiresAt: Date, channels: ChannelKeyPattern? = nil, admin: Bool = false,
        email: EmailAddress? = nil
    ) -> String {
        var claims: [(String, AnyValue)] = [("sub", .string(subject)), ("exp", .int(Self.numericDate(expiresAt)))]
        if let channels { claims.append(("channels", .string(channels.rawValue))) }
        if admin { claims.append(("admin", .bool(true))) }
        if let email { claims.append(("email", .string(email.rawValue))) }
        let payload = AnyValue.object(OrderedObject(claims))
        return signed(headerJSON: Self.headerJSON, payloadJSON: Array(payload.jsonText.utf8))
    }

    /// A token for `subject` valid for `ttl` seconds from `now`.
    public func mint(
        subject: String, ttl: TimeInterval, now: Date = Date(), channels: ChannelKeyPattern? = nil, admin: Bool = false,
        email: EmailAddress? = nil
    ) -> String {
        mint(subject: subject, expiresAt: now.addingTimeInterval(ttl), channels: channels, admin: admin, email: email)
    }

    /// The one header this server writes, byte for byte what common JWT libraries write.
    static let headerJSON = Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)

    /// `base64url(header).base64url(payload).base64url(HMAC(secret, first two))`, for any
    /// header and payload bytes (tests use it to sign deliberately odd tokens).
    func signed(headerJSON: [UInt8], payloadJSON: [UInt8]) -> String {
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payloadJSON)
        let signature = HMACSHA256.mac(key: secret, message: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// `date` as a JWT NumericDate: whole seconds, rounded down, clamped to the integers
    /// JavaScript represents exactly (so every peer reads the same number). A NaN date
    /// becomes 0, a token that is already expired.
    static func numericDate(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard !seconds.isNaN else { return 0 }
        let limit = 9_007_199_254_740_991.0
        return Int64(min(max(seconds, -limit), limit))
    }
}
