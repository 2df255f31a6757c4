import AccordCRDT
import AccordNet
import AccordPostgres
import AccordServer
import AccordStore
import Dispatch
import Foundation

/// `accord serve`: runs the sync server on the embedded SQLite store until SIGTERM or
/// SIGINT, then closes every connection and flushes every document before exiting.
///
/// Prints `dev token: <token>` (with --dev) and `listening <port>` on stdout, one line
/// each, flushed, so scripts can start it with `--port 0` and read the port back.
enum ServeCommand {
    static func run(_ args: Arguments) throws(AccordError) {
        var args = args
        var configuration = AccordServer.Configuration()
        configuration.host = try args.removeOption("--host") ?? "127.0.0.1"
        configuration.port = try integer(args.removeOption("--port"), "--port", default: 8787, range: 0...65535)
        let dataDirectory = try args.removeOption("--data") ?? "accord-data"
        let postgres = try args.removeOption("--postgres")
        let postgresSchema = try args.removeOption("--postgres-schema") ?? "accord"
        let secretFile = try args.removeOption("--secret-file")
        let dev = args.removeFlag("--dev")
        let cluster = args.removeFlag("--cluster")
        if cluster && postgres == nil {
            throw AccordCommand.usageError("--cluster needs --postgres (the nodes share its database)", help: "accord serve --help")
        }
        if args.removeFlag("--no-create-on-connect") { configuration.createDocumentsOnConnect = false }
        configuration.maxFrameBytes = try integer(
            args.removeOption("--max-frame-bytes"), "--max-frame-bytes", default: configuration.maxFrameBytes, range: 1024...(1 << 30))
        configuration.maxDocumentBytes = try integer(
            args.removeOption("--max-document-bytes"), "--max-document-bytes", default: configuration.maxDocumentBytes,
            range: 1024...Int.max)
        configuration.maxQueuedBytes = try integer(
            args.removeOption("--max-queued-bytes"), "--max-queued-bytes", default: configuration.maxQueuedBytes,
            range: (64 << 10)...Int.max)
        configuration.messagesPerSecond = try integer(
            args.removeOption("--max-messages-per-second"), "--max-messages-per-second",
            default: configuration.messagesPerSecond, range: 1...1_000_000)
        configuration.maxHeaderBytes = try integer(
            args.removeOption("--max-header-bytes"), "--max-header-bytes", default: configuration.maxHeaderBytes,
            range: 1024...(1 << 20))
        configuration.maxRequestBodyBytes = try integer(
            args.removeOption("--max-request-body-bytes"), "--max-request-body-bytes",
            default: configuration.maxRequestBodyBytes, range: 0...(1 << 30))
        configuration.headerTimeoutSeconds = try integer(
            args.removeOption("--header-timeout"), "--header-timeout", default: configuration.headerTimeoutSeconds,
            range: 1...3600)
        configuration.maxConnectionsPerAddress = try integer(
            args.removeOption("--max-connections-per-address"), "--max-connections-per-address",
            default: configuration.maxConnectionsPerAddress, range: 0...1_000_000)
        configuration.messageBurst = max(configuration.messageBurst, 2 * configuration.messagesPerSecond)
        configuration.maxConnectionsPerUser = try integer(
            args.removeOption("--max-connections-per-user"), "--max-connections-per-user",
            default: configuration.maxConnectionsPerUser, range: 1...1_000_000)
        configuration.maxRoomsPerConnection = try integer(
            args.removeOption("--max-rooms-per-connection"), "--max-rooms-per-connection",
            default: configuration.maxRoomsPerConnection, range: 1...1_000_000)
        configuration.maxChannelsPerConnection = try integer(
            args.removeOption("--max-channels-per-connection"), "--max-channels-per-connection",
            default: configuration.maxChannelsPerConnection, range: 1...1_000_000)
        configuration.maxDocumentsCreatedPerUserPerHour = try integer(
            args.removeOption("--max-documents-per-user-per-hour"), "--max-documents-per-user-per-hour",
            default: configuration.maxDocumentsCreatedPerUserPerHour, range: 1...1_000_000_000)
        configuration.maxPartialBytesPerUser = try integer(
            args.removeOption("--max-partial-bytes-per-user"), "--max-partial-bytes-per-user",
            default: configuration.maxPartialBytesPerUser, range: 1024...Int.max)
        configuration.maxBlobBytes = Int64(try integer(
            args.removeOption("--max-blob-bytes"), "--max-blob-bytes", default: Int(configuration.maxBlobBytes),
            range: 0...Int.max))
        let quota = try integer(
            args.removeOption("--blob-quota-per-user"), "--blob-quota-per-user",
            default: Int(configuration.blobQuotaPerUser ?? 0), range: 0...Int.max)
        configuration.blobQuotaPerUser = quota == 0 ? nil : Int64(quota)
        configuration.blobGracePeriodSeconds = Double(try integer(
            args.removeOption("--blob-grace-seconds"), "--blob-grace-seconds",
            default: Int(configuration.blobGracePeriodSeconds), range: 0...(365 * 86400)))
        if let admins = try args.removeOption("--admins") {
            configuration.adminUsers = Set(admins.split(separator: ",").map(String.init))
        }
        if let webhook = try args.removeOption("--notify-webhook") {
            guard WebhookDelivery.isHTTPURL(webhook) else {
                throw AccordCommand.usageError(
                    "--notify-webhook takes an http(s)://host[:port]/path URL, not '\(webhook)'", help: "accord serve --help")
            }
            configuration.notifyWebhookURL = webhook
        }
        if let authorities = try args.removeOption("--notify-webhook-ca") {
            guard configuration.notifyWebhookURL?.hasPrefix("https://") == true else {
                throw AccordCommand.usageError("--notify-webhook-ca goes with an https:// --notify-webhook", help: "accord serve --help")
            }
            configuration.notifyWebhookTrust = ClientTLS(trustedCertificatesFile: authorities)
        }
        let tlsCertificate = try args.removeOption("--tls-cert")
        let tlsKey = try args.removeOption("--tls-key")
        let extra = try args.positionals()
        guard extra.isEmpty else { throw AccordCommand.usageError("unexpected argument '\(extra[0])'", help: "accord serve --help") }

        configuration.tls = try ServeTLS.load(certificate: tlsCertificate, key: tlsKey)
        try createDirectory(dataDirectory)
        let secret = try dev ? DevSecret.loadOrCreate(in: dataDirectory) : ServerSecret.load(secretFile: secretFile)
        let tokens = try TokenAuthority(secret: secret)
        // One node per schema unless every node runs --cluster: a single node numbers
        // the log itself, so another node's appends would collide with its own.
        let schemaLock = try postgres.map { url throws(AccordError) in
            try PostgresSchemaLock(url: url, schema: postgresSchema, shared: cluster)
        }
        let documents: DocumentStore
        if let postgres, cluster {
            let node = try openClusterNode(url: postgres, schema: postgresSchema)
            documents = node.documents
            configuration.cluster = node.link
        } else {
            documents = try openDocuments(dataDirectory: dataDirectory, postgres: postgres, schema: postgresSchema)
        }
        // The dev user administers a dev server (export and import with the dev token).
        if dev { configuration.adminUsers.insert("dev") }
        let server = try AccordServer(configuration: configuration, documents: documents, tokens: tokens)

        if dev {
            Output.print("dev token: \(tokens.mint(subject: "dev", ttl: DevSecret.tokenLifetime))")
            Output.error("dev mode: the secret is in \(DevSecret.path(in: dataDirectory)); mint more tokens with")
            Output.error("  accord token --sub <user> --secret-file \(DevSecret.path(in: dataDirectory))")
        }
        Output.print("listening \(server.port)")
        let scheme = configuration.tls == nil ? "ws" : "wss"
        Output.error("accord serve: \(scheme)://\(configuration.host):\(server.port)/v1/sync/<document>?token=<token>, data in \(dataDirectory)")
        fflush(nil)  // all streams: scripts wait for these lines

        let reload = configuration.tls.map(ServeTLS.reloadOnHangUp)
        ShutdownSignal.wait()
        reload?.cancel()
        Output.error("accord serve: shutting down, flushing documents")
        let stopped = BlockingTask.run { () async throws(AccordError) in try await server.stop() }
        let closed = Result { () throws(AccordError) in try documents.close() }
        try stopped.get()
        try closed.get()
        withExtendedLifetime(schemaLock) {}
    }

    /// The store every document, access row and directory entry lives in: the
    /// embedded SQLite file in the data directory, or PostgreSQL with `--postgres`
    /// (several nodes may share one database; see docs/deployment.md).
    private static func openDocuments(dataDirectory: String, postgres: String?, schema: String) throws(AccordError) -> DocumentStore {
        guard let postgres else {
            return try DocumentStore(path: (dataDirectory as NSString).appendingPathComponent("accord.sqlite"))
        }
        let adapter = try PostgresStorageAdapter(url: postgres, schema: schema)
        Output.error("accord serve: documents in PostgreSQL (schema \(schema))")
        return DocumentStore(storage: SerialStorage(adapter))
    }

    /// One node of a cluster: the store on shared logs (numbered by PostgreSQL, as are
    /// the listings), folds
    /// coordinated by advisory locks, and the LISTEN feed of the other nodes' appends.
    private static func openClusterNode(url: String, schema: String) throws(AccordError) -> (documents: DocumentStore, link: PostgresClusterLink) {
        // The users' owned and shared-with-me listings are logs several nodes append to
        // as well: PostgreSQL numbers them, so two nodes never take one number.
        let adapter = try PostgresStorageAdapter(
            url: url, schema: schema,
            sharedLogs: [DocumentStore.sharedLogCategory, DocumentDirectory.ownedCategory, DocumentDirectory.sharedCategory])
        var options = DocumentStore.Options()
        options.shared = SharedStorage(documentLock: try PostgresDocumentLock(url: url, schema: schema))
        Output.error("accord serve: cluster node on PostgreSQL (schema \(schema))")
        return (
            DocumentStore(storage: SerialStorage(adapter), options: options),
            try PostgresClusterLink(url: url, schema: schema, writer: adapter.writerID))
    }

    private static func integer(_ value: String?, _ name: String, default fallback: Int, range: ClosedRange<Int>) throws(AccordError) -> Int {
        guard let value else { return fallback }
        guard let number = Int(value), range.contains(number) else {
            throw AccordError(.invalidArgument, "\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(value)'")
        }
        return number
    }

    /// Creates the data directory 0700: it holds every document and the dev secret,
    /// which other local users have no business reading. An existing directory keeps
    /// its mode (the operator chose it), with a warning when others may read it.
    private static func createDirectory(_ path: String) throws(AccordError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let mode = (try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue
            if let mode, mode & 0o077 != 0 {
                Output.error(
                    "accord serve: warning: data directory \(path) is mode \(String(mode, radix: 8)); "
                        + "other local users may read documents (chmod 700 \(path))")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw AccordError(.ioError, "cannot create data directory \(path): \(error.localizedDescription)", details: ["path": path])
        }
    }
}
