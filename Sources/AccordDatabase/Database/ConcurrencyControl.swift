/// What a save or delete does when the document changed since it was read.
public enum ConcurrencyControl: Sendable {
    /// Write anyway: the properties this document changed are written over the current
    /// content; properties it did not change keep what others wrote meanwhile.
    case lastWriteWins
    /// Refuse (return false, write nothing) when another writer changed the document
    /// since it was read, or when a new document's id is already taken.
    case failOnConflict
}
