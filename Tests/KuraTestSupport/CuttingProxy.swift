import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A relay between PostgreSQL clients and a server's Unix socket that can
/// cut a connection at a chosen moment: when bytes going one way contain a
/// marker, the chunk holding it is forwarded or dropped, and the connection
/// is closed on both sides. What a network that fails mid-statement does,
/// made to happen exactly where a test wants it:
///
/// - cut after the server's `COMMIT` answer (its CommandComplete tag): the
///   server committed, the client never hears it;
/// - cut when the client's `COMMIT` would go: the server never gets it.
///
/// Clients reach it at ``url(of:)``: a socket directory of its own, with
/// the server's port number naming the socket file.
public final class CuttingProxy: @unchecked Sendable {
    // @unchecked: `cut` is under a Mutex; the rest is set in init.
    public let directory: String
    private let port: String
    private let serverSocket: String
    private let listener: Int32

    /// Where a connection is cut.
    public struct Cut: Sendable {
        public enum Direction: Sendable { case toServer, toClient }
        let direction: Direction
        let marker: [UInt8]
        /// Bytes the client must have sent on the connection first (in the
        /// same chunk or an earlier one).
        let after: [UInt8]?

        /// When the server's answer holds `marker` (once the client sent
        /// `after`, when given): the chunk is dropped.
        public static func answer(containing marker: String, afterRequestContaining after: String? = nil) -> Cut {
            Cut(direction: .toClient, marker: Array(marker.utf8), after: after.map { Array($0.utf8) })
        }

        /// When what the client sends holds `marker` (once it sent `after`,
        /// when given): the chunk is dropped.
        public static func request(containing marker: String, afterRequestContaining after: String? = nil) -> Cut {
            Cut(direction: .toServer, marker: Array(marker.utf8), after: after.map { Array($0.utf8) })
        }
    }

    private let armed = Mutex<Cut?>(nil)
    private let cuts = Atomic(0)

    /// A relay to the server whose socket is `.s.PGSQL.PORT` in `serverDirectory`.
    public init(serverDirectory: String, port: String) throws {
        let directory = NSTemporaryDirectory() + "kura-proxy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.port = port
        serverSocket = "\(serverDirectory)/.s.PGSQL.\(port)"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw ChildProcess.Failure(description: "socket: \(errno)") }
        var address = Self.address("\(directory)/.s.PGSQL.\(port)")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw ChildProcess.Failure(description: "bind/listen: \(errno)") }
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The URL of database `name` through the proxy.
    public func url(of name: String) -> String {
        "postgres://kura@/\(name)?host=\(directory)&port=\(port)"
    }

    /// Cuts the next connection whose traffic meets `cut`, once.
    public func arm(_ cut: Cut) {
        armed.withLock { $0 = cut }
    }

    /// How many connections were cut so far.
    public var cutCount: Int { cuts.load(ordering: .relaxed) }

    private static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes + [0])
        }
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.address(serverSocket)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            let thread = Thread { [self] in relay(client: client, server: server) }
            thread.start()
        }
    }

    private func relay(client: Int32, server: Int32) {
        defer {
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
            close(client)
            close(server)
        }
        var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var seenAfter: [[UInt8]] = []
        while poll(&descriptors, 2, -1) >= 0 || errno == EINTR {
            for (index, (from, to)) in [(client, server), (server, client)].enumerated() where descriptors[index].revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                let chunk = Array(buffer[..<count])
                let direction: Cut.Direction = index == 0 ? .toServer : .toClient
                let cut = armed.withLock { armed -> Cut? in
                    guard let cut = armed else { return nil }
                    if direction == .toServer, let after = cut.after, !seenAfter.contains(after), Self.contains(chunk, after) {
                        seenAfter.append(after)
                    }
                    guard cut.direction == direction, cut.after.map(seenAfter.contains) ?? true,
                          Self.contains(chunk, cut.marker) else { return nil }
                    armed = nil
                    return cut
                }
                if cut != nil {
                    cuts.add(1, ordering: .relaxed)
                    return
                }
                var sent = 0
                while sent < count {
                    let written = chunk[sent...].withUnsafeBytes { write(to, $0.baseAddress, $0.count) }
                    guard written > 0 else { return }
                    sent += written
                }
            }
        }
    }

    private static func contains(_ bytes: [UInt8], _ marker: [UInt8]) -> Bool {
        guard !marker.isEmpty, bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { start in bytes[start..<(start + marker.count)].elementsEqual(marker) }
    }
}
