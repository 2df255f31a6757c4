extension Doc {
    /// Writes from now on under `id`, a client ID this replica wrote with before. For
    /// the store, which reopens a document under its last client ID when that is safe
    /// (the store holds every update written under it); call it after loading and
    /// before the first local edit. Loading first matters: replaying updates of its own
    /// client ID would look like someone else writing with it, and the document would
    /// take a fresh one.
    package func resumeClientID(_ id: ClientID) {
        clientID = id
    }
}
