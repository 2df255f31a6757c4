import Foundation
import AccordCRDT

/// Redeems a request's pending invitations (``DocumentDirectory/signIn(user:email:)``)
/// and reports each resulting grant like any other, so a user connected elsewhere hears
/// of it (`PermissionEvent`) and their open connections are re-checked.
///
/// The report target is set after construction because the sync hub, which receives the
/// reports, itself authenticates through this.
final class InvitationRedeemer: @unchecked Sendable {
    // Invariant behind @unchecked Sendable: `report` is only touched under `lock`.
    private let directory: DocumentDirectory
    private let lock = NSLock()
    private var report: (@Sendable (RedeemedInvitation) -> Void)?

    init(directory: DocumentDirectory) {
        self.directory = directory
    }

    func reportTo(_ report: @escaping @Sendable (RedeemedInvitation) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        self.report = report
    }

    /// Redeems for a verified token. A storage failure is not the request's: it goes
    /// on, and the next request tries again (the address is not marked settled).
    func signedIn(_ claims: TokenClaims) {
        guard let email = claims.email,
            let redeemed = try? directory.signIn(user: claims.subject, email: email), !redeemed.isEmpty
        else { return }
        lock.lock()
        let report = self.report
        lock.unlock()
        for change in redeemed { report?(change) }
    }
}
