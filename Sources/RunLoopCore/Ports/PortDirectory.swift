import Glibc

/// Where message-port sockets live: a directory of the user's own,
/// `/tmp/runloop-<uid>`, mode 0700, that holds one Unix-domain socket file
/// per named local port.  Other users can neither connect to a port (no
/// search permission on the directory) nor bind a name in it (no write
/// permission), so they cannot squat a name.  The one thing they can do
/// is create the directory first; that is detected (the directory must be
/// a real directory owned by the user) and reported with the squatter's
/// uid.  /tmp is sticky, so a directory found to be ours stays ours.
///
/// The path does not depend on the environment ($XDG_RUNTIME_DIR, $TMPDIR
/// differ between a user's processes), so every process of the user finds
/// the same sockets.
package enum PortDirectory {
    package enum Failure: Error {
        /// The directory (or what holds its path) belongs to another uid,
        /// or is not a directory.
        case squatted(owner: uid_t, path: String)
        case missing
        case system(Int32)
    }

    static var path: String { "/tmp/runloop-\(getuid())" }

    /// Checks (and with `create`, makes) the directory.  `.missing` when
    /// it does not exist and `create` is false.
    static func check(create: Bool) -> Result<Void, Failure> {
        let dir = path
        if create && mkdir(dir, 0o700) != 0 && errno != EEXIST { return .failure(.system(errno)) }
        var st = stat()
        guard lstat(dir, &st) == 0 else { return .failure(errno == ENOENT ? .missing : .system(errno)) }
        guard st.st_uid == getuid(), st.st_mode & S_IFMT == S_IFDIR else {
            return .failure(.squatted(owner: st.st_uid, path: dir))
        }
        // Ours, but opened up (by us: nobody else can chmod it): close it.
        if st.st_mode & 0o077 != 0 && chmod(dir, 0o700) != 0 { return .failure(.system(errno)) }
        return .success(())
    }

    /// The socket file's name for a port name: "n." and the name with
    /// bytes other than [A-Za-z0-9._-] written %XX when that fits a socket
    /// address, otherwise "h." and the hex SHA-256 of the name.  The two
    /// forms never meet ("n." / "h.").
    static func fileName(_ name: [UInt8], room: Int) -> [UInt8] {
        let hex = Array("0123456789abcdef".utf8)
        var escaped = Array("n.".utf8)
        for byte in name {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                escaped.append(byte)
            default:
                escaped += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        if escaped.count <= room { return escaped }
        return Array("h.".utf8) + SHA256.digest(name).flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] }
    }

    /// The socket address of the port `name`, and its path.
    static func address(_ name: [UInt8]) -> (sockaddr_un, socklen_t, String) {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: addr.sun_path) - 1  // room for the NUL
        let dir = Array(path.utf8) + [UInt8(ascii: "/")]
        let file = dir + fileName(name, room: capacity - dir.count)
        withUnsafeMutableBytes(of: &addr.sun_path) { sun in
            for (i, byte) in file.enumerated() { sun[i] = byte }
            sun[file.count] = 0
        }
        let length = MemoryLayout<sa_family_t>.size + file.count + 1
        return (addr, socklen_t(length), String(decoding: file, as: UTF8.self))
    }

    /// Runs `body` holding the directory's lock file (flock: released if
    /// the process dies), which orders binding a name, cleaning a stale
    /// socket file and removing one.  Without a descriptor for the lock
    /// the failure is returned and `body` does not run.
    static func locked<T>(_ body: () -> T) -> Result<T, Failure> {
        let fd = open(path + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return .failure(.system(errno)) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { return .failure(.system(errno)) }
        }
        return .success(body())
    }

    // MARK: socket files to remove at exit

    /// The socket files this process bound and still holds, with the pid
    /// that bound them (a fork child inherits the list but must not remove
    /// its parent's files).
    private struct Bound { let path: String; let identity: (dev_t, ino_t); let pid: pid_t }
    private static let bound = Guarded<(files: [Bound], registered: Bool)>(([], false))

    /// Remembers a socket file to remove if the process exits with its
    /// port still valid (exit() or a return from main; a killed process
    /// leaves it, and the next local port of that name replaces it).
    static func remember(_ path: String, _ identity: (dev_t, ino_t)?) {
        guard let identity else { return }
        let first = bound.withLock { state -> Bool in
            state.files.append(Bound(path: path, identity: identity, pid: getpid()))
            defer { state.registered = true }
            return !state.registered
        }
        if first { atexit { PortDirectory.removeAtExit() } }
    }

    static func forget(_ path: String) {
        bound.withLock { state in state.files.removeAll { $0.path == path } }
    }

    private static func removeAtExit() {
        let files = bound.withLock { state -> [Bound] in
            defer { state.files = [] }
            return state.files
        }
        let me = getpid()
        for file in files where file.pid == me {
            if let now = identity(file.path), now.0 == file.identity.0 && now.1 == file.identity.1 { unlink(file.path) }
        }
    }

    /// The file's identity, to remove only the socket file we bound.
    static func identity(_ path: String) -> (dev_t, ino_t)? {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK else { return nil }
        return (st.st_dev, st.st_ino)
    }
}
