extension AccordClient {
    /// A client over a SQLite store at `storePath` (created if missing), the way an app
    /// starts one: `try AccordClient(serverURL: "wss://sync.example.com", storePath: path) { reason in token }`.
    /// - Throws: the store's errors when the file cannot be opened.
    public init(
        serverURL: String, storePath: String,
        tokenProvider: @escaping @Sendable (TokenRequestReason) async throws -> String
    ) throws(AccordError) {
        self.init(serverURL: serverURL, store: try DocumentStore(path: storePath), tokenProvider: tokenProvider)
    }
}
