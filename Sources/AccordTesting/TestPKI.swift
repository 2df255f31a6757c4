import Foundation

/// A throwaway certificate authority and one server certificate it signed, made with
/// the openssl CLI in a temporary directory, for TLS tests: clients trust `caFile`,
/// servers present `certificateFile` and `keyFile`. The files go with the value's
/// directory; nothing touches the system's trust store.
public final class TestPKI: Sendable {
    public let directory: TemporaryDirectory
    /// The authority's certificate (PEM): what a client trusts.
    public let caFile: String
    /// The server's certificate (PEM), naming `serverName` (and 127.0.0.1).
    public let certificateFile: String
    /// The server's private key (PEM).
    public let keyFile: String

    /// - Parameter serverName: the DNS name the server certificate carries; a client
    ///   reaching `localhost` refuses a certificate for another name.
    public init(serverName: String = "localhost") throws {
        directory = try TemporaryDirectory()
        let path = directory.path
        caFile = path + "/ca.pem"
        certificateFile = path + "/server.pem"
        keyFile = path + "/server.key"
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(["req", "-x509"] + curve + [
            "-keyout", path + "/ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=Accord Test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        try Self.openssl(["req"] + curve + ["-keyout", keyFile, "-out", path + "/server.csr", "-subj", "/CN=\(serverName)"])
        let extensions = path + "/server.ext"
        try """
            subjectAltName=DNS:\(serverName),IP:127.0.0.1
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth

            """.write(toFile: extensions, atomically: true, encoding: .utf8)
        try Self.openssl([
            "x509", "-req", "-in", path + "/server.csr", "-CA", caFile, "-CAkey", path + "/ca.key", "-CAcreateserial",
            "-out", certificateFile, "-days", "2", "-extfile", extensions,
        ])
    }

    /// Runs `openssl arguments`; throws with its output when it fails or is missing.
    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            throw RawTCPError("cannot run openssl (scripts/install-deps.sh installs it): \(error)")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw RawTCPError("openssl \(arguments.prefix(2).joined(separator: " ")) failed: \(text)")
        }
    }
}
