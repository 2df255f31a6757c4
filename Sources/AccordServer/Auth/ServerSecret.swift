public import AccordCRDT
import AccordStore
public import Foundation
internal import CSodium

/// The secret that signs the server's tokens: where it comes from, and how a new one is made.
public enum ServerSecret {
    /// The environment variable that holds the secret as text.
    static let environmentVariable = "ACCORD_SECRET"

    /// 32 random bytes from libsodium's `randombytes_buf` (the system's CSPRNG), for
    /// `accord serve --dev`.
    ///
    /// Never fails: should the system have no source of randomness, libsodium aborts the
    /// process rather than return predictable bytes.
    public static func generate() -> [UInt8] {
        // Any failure to initialize surfaces below as libsodium's abort; the secret is
        // never weak.
        _ = try? Sodium.ensureInitialized(orThrow: .ioError)
        var bytes = [UInt8](repeating: 0, count: TokenAuthority.minimumSecretLength)
        randombytes_buf(&bytes, bytes.count)
        return bytes
    }

    /// The configured secret: the contents of `secretFile` when one is given, else the
    /// UTF-8 bytes of `ACCORD_SECRET`.
    ///
    /// A given file wins over the environment, as an explicit flag should. One trailing
    /// newline is stripped from the file, since editors and `echo` add one; any other
    /// byte counts. The secret must be at least 32 bytes.
    /// - Throws: `INVALID_ARGUMENT` when no secret is configured or it is shorter than 32
    ///   bytes; `IO_ERROR` when the file cannot be read.
    public static func load(
        secretFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(AccordError) -> [UInt8] {
        let secret: [UInt8]
        let source: String
        if let secretFile {
            secret = try read(secretFile)
            source = "secret file \(secretFile)"
        } else if let text = environment[environmentVariable] {
            secret = Array(text.utf8)
            source = environmentVariable
        } else {
            throw AccordError(
                .invalidArgument, "no token secret: set \(environmentVariable) or pass --secret-file <path>")
        }
        guard secret.count >= TokenAuthority.minimumSecretLength else {
            throw AccordError(
                .invalidArgument,
                "\(source) holds \(secret.count) bytes; a token secret needs at least "
                    + "\(TokenAuthority.minimumSecretLength) (e.g. 'openssl rand -base64 48')")
        }
        return secret
    }

    /// The file's bytes without one trailing newline.
    static func read(_ path: String) throws(AccordError) -> [UInt8] {
        // Foundation's own errors rarely say what went wrong ("error 256"); the common
        // cases get a message an operator can act on.
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AccordError(.ioError, "cannot read secret file \(path): no such file", details: ["path": path])
        }
        guard !isDirectory.boolValue else {
            throw AccordError(.ioError, "cannot read secret file \(path): is a directory", details: ["path": path])
        }
        var bytes: [UInt8]
        do {
            bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw AccordError(
                .ioError, "cannot read secret file \(path): \(error.localizedDescription)", details: ["path": path])
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return bytes
    }
}
