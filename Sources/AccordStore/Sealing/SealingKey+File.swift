public import AccordCRDT
internal import CSodium
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

// A key file holds exactly the key's 32 raw bytes and is readable by its owner only,
// the Linux counterpart of a Keychain item.

extension SealingKey {
    /// Reads a key from a file written by ``write(toFile:)``.
    ///
    /// The file must be a regular file of exactly 32 bytes whose mode gives no access to
    /// group or others (0600 or stricter). A key that others could read is no longer a
    /// secret, so such a file is refused rather than used. The mode is checked on the
    /// opened file (`fstat`), so the file cannot be swapped between check and read.
    /// - Throws: `INVALID_ARGUMENT` when the file is accessible by group or others, is not
    ///   a regular file, or is not 32 bytes long; `IO_ERROR` when it cannot be opened or read.
    public init(contentsOfFile path: String) throws(AccordError) {
        // O_NONBLOCK so a FIFO at `path` cannot hang the open; it is refused below as not a
        // regular file, and reads from a regular file never block anyway.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw KeyFile.ioError("cannot open key file", path) }
        defer { close(descriptor) }

        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw KeyFile.ioError("cannot inspect key file", path) }
        let mode = UInt32(info.st_mode)
        guard mode & KeyFile.typeMask == KeyFile.regularFile else {
            throw AccordError(.invalidArgument, "key file \(path) is not a regular file", details: ["path": path])
        }
        guard mode & KeyFile.forbiddenPermissions == 0 else {
            let shown = String(mode & 0o777, radix: 8)
            throw AccordError(
                .invalidArgument,
                "key file \(path) has mode 0\(shown): a sealing key must not be readable or writable by "
                    + "group or others (chmod 600)",
                details: ["path": path, "mode": "0\(shown)"])
        }
        guard info.st_size == SealingKey.byteCount else {
            throw KeyFile.wrongLength(path, Int64(info.st_size))
        }
        try self.init { (destination) throws(AccordError) in
            // Read straight into the key's wiped buffer; a file that shrank since `fstat`
            // is as wrong as a short one.
            let received = try KeyFile.readFully(descriptor, into: destination, count: SealingKey.byteCount, path: path)
            guard received == SealingKey.byteCount else { throw KeyFile.wrongLength(path, Int64(received)) }
        }
    }

    /// Writes the key to a new file at `path` with mode 0600.
    ///
    /// The key goes to a temporary file in the same directory, created with mode 0600
    /// from the start (`open(O_CREAT | O_EXCL, 0600)`, so there is no moment where the
    /// file exists with wider permissions), is flushed to disk, and only then appears
    /// under `path` in one step (`link`). A crash leaves either no key file or a whole one.
    ///
    /// An existing file at `path` is never replaced: replacing a key would make everything
    /// sealed with the old key unreadable. The directory must be on a file system with
    /// hard links (every local POSIX one).
    /// - Throws: `INVALID_ARGUMENT` when a file already exists at `path`; `IO_ERROR` when
    ///   the file cannot be created, written or flushed.
    public func write(toFile path: String) throws(AccordError) {
        let temporary = "\(path).tmp-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode_t(0o600))
        guard descriptor >= 0 else { throw KeyFile.ioError("cannot create key file", temporary) }
        // Once linked, the temporary name is just a second name for the key file; drop it
        // in every case.
        defer { unlink(temporary) }
        do throws(AccordError) {
            // The umask can only have narrowed 0600; set it exactly so the result does not
            // depend on the process's umask.
            guard fchmod(descriptor, mode_t(0o600)) == 0 else { throw KeyFile.ioError("cannot set key file mode", temporary) }
            try withUnsafeBytes { (bytes) throws(AccordError) in
                try KeyFile.writeFully(descriptor, bytes, path: temporary)
            }
            guard fsync(descriptor) == 0 else { throw KeyFile.ioError("cannot flush key file", temporary) }
        } catch {
            close(descriptor)
            throw error
        }
        guard close(descriptor) == 0 else { throw KeyFile.ioError("cannot close key file", temporary) }

        guard link(temporary, path) == 0 else {
            if errno == EEXIST {
                throw AccordError(
                    .invalidArgument, "a file already exists at \(path); a key file is never replaced",
                    details: ["path": path])
            }
            throw KeyFile.ioError("cannot create key file", path)
        }
        // The new name must survive a power loss as surely as data sealed with the key.
        try KeyFile.syncDirectory(containing: path)
    }
}

/// POSIX helpers for key files, each returning or throwing ``AccordError``.
enum KeyFile {
    /// `S_IFMT` and `S_IFREG`: the same values on Linux and Apple platforms, spelled out
    /// because the C macros import with different types on each.
    static let typeMask: UInt32 = 0o170000
    static let regularFile: UInt32 = 0o100000
    /// Every permission bit beyond owner read and write (0600), including execute bits.
    static let forbiddenPermissions: UInt32 = 0o777 & ~0o600

    static func ioError(_ what: String, _ path: String) -> AccordError {
        let number = errno
        return AccordError(
            .ioError, "\(what) \(path): \(String(cString: strerror(number)))",
            details: ["path": path, "errno": String(number)])
    }

    static func wrongLength(_ path: String, _ length: Int64) -> AccordError {
        AccordError(
            .invalidArgument, "key file \(path) is \(length) bytes; a sealing key is exactly \(SealingKey.byteCount)",
            details: ["path": path])
    }

    /// Reads until `count` bytes arrived or the file ended; one more byte is asked for so
    /// a file that grew since `fstat` is noticed. Returns how many bytes the file had.
    static func readFully(
        _ descriptor: Int32, into destination: UnsafeMutablePointer<UInt8>, count: Int, path: String
    ) throws(AccordError) -> Int {
        var received = 0
        while received < count {
            let result = read(descriptor, destination + received, count - received)
            if result < 0 {
                if errno == EINTR { continue }
                throw ioError("cannot read key file", path)
            }
            if result == 0 { return received }
            received += result
        }
        var extra: UInt8 = 0
        while true {
            let result = read(descriptor, &extra, 1)
            if result < 0 && errno == EINTR { continue }
            if result < 0 { throw ioError("cannot read key file", path) }
            return received + result
        }
    }

    static func writeFully(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(AccordError) {
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            let result = write(descriptor, base + written, bytes.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                throw ioError("cannot write key file", path)
            }
            written += result
        }
    }

    /// `fsync` on the directory makes a new name in it durable. Some file systems do not
    /// support syncing a directory (`EINVAL`); there is nothing more to do on those.
    static func syncDirectory(containing path: String) throws(AccordError) {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let descriptor = open(directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ioError("cannot open directory of key file", directory) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 || errno == EINVAL else { throw ioError("cannot flush directory", directory) }
    }
}
