import AccordCRDT
import AccordServer
import Foundation

/// The secret `accord serve --dev` signs tokens with: created once in the data
/// directory (mode 0600) and reused, so dev tokens survive restarts and
/// `accord token --secret-file` can mint more.
enum DevSecret {
    static let tokenLifetime: TimeInterval = 7 * 24 * 3600

    static func path(in directory: String) -> String {
        (directory as NSString).appendingPathComponent("dev.secret")
    }

    static func loadOrCreate(in directory: String) throws(AccordError) -> [UInt8] {
        let file = path(in: directory)
        if FileManager.default.fileExists(atPath: file) {
            return try ServerSecret.load(secretFile: file, environment: [:])
        }
        // Hex, so the file is printable and has no newline to strip.
        let secret = Array(ServerSecret.generate().map { String(format: "%02x", $0) }.joined().utf8)
        guard FileManager.default.createFile(atPath: file, contents: Data(secret), attributes: [.posixPermissions: 0o600]) else {
            throw AccordError(.ioError, "cannot write the dev secret to \(file)", details: ["path": file])
        }
        return secret
    }
}
