import Foundation

extension SQLiteConnection {
    /// The mode of a database file the store creates: its owner's only. Documents are
    /// private data, and SQLite would create the file 0644 (its compile-time default,
    /// less the umask), readable by every local user.
    static let createdFileMode: mode_t = 0o600

    /// Creates an empty file at `path` with ``createdFileMode`` if nothing is there, so
    /// that SQLite opens it rather than creating it. SQLite gives `-wal`, `-shm` and
    /// `-journal` the mode of the database file (`robust_open` with the main file's
    /// permissions, see `findCreateFileMode` in os_unix.c), so they are 0600 too. A file
    /// that already exists keeps the mode its owner gave it. Changing the umask instead
    /// would touch the whole process, including other threads creating files.
    ///
    /// Failures are left for `sqlite3_open_v2` to report: it names them better.
    static func createPrivately(_ path: String) {
        // In-memory, temporary and URI databases have no file of ours to create.
        guard !path.isEmpty, path != ":memory:", !path.hasPrefix("file:") else { return }
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, createdFileMode)
        if descriptor >= 0 { close(descriptor) }
    }
}
