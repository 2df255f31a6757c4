/// An `open` waiting for the server's state of its document: resumed once the
/// document's machine has taken more step 2s than `after`, or failed (server error,
/// offline, timeout, close). Confined to the client's executor.
struct LoadWaiter {
    let key: UInt64
    /// ``DocumentSyncMachine/serverStatesReceived`` when the wait began.
    let after: Int
    let continuation: CheckedContinuation<Void, any Error>
    let timeout: Task<Void, Never>
}
