import AccordCRDT

/// Why a token was refused: the `reason` detail of an `UNAUTHENTICATED` error.
///
/// The reason is for logs and for clients deciding what to do next (an expired token is
/// worth refreshing, a forged one is not). Every rejection carries the same code, so a
/// client that only checks the code needs to know none of these.
enum TokenRejection: String {
    /// No token at all: no `Authorization: Bearer` header and no `token` parameter.
    case missing
    /// Longer than ``TokenAuthority/maximumTokenLength``; refused before any decoding.
    case oversized
    /// Not three canonical base64url segments, or a header or payload that is not a
    /// JSON object.
    case malformed
    /// A header whose `alg` is not `HS256` (including `none`).
    case unsupportedAlgorithm = "unsupported-algorithm"
    /// The signature is not the HMAC of the token under this server's secret.
    case forged
    /// Signed by us but without a usable `sub` (a valid user id) or `exp` (number), or
    /// with an `nbf` or `iat` that is not a number.
    case invalidClaims = "invalid-claims"
    /// `exp` has passed.
    case expired
    /// `nbf` or `iat` is later than now plus ``TokenAuthority/clockSkewAllowance``.
    case notYetValid = "not-yet-valid"

    func error(_ message: String) -> AccordError {
        AccordError(.unauthenticated, message, details: ["reason": rawValue])
    }
}
