import Kura
import PostgresNIO

/// A connection of a ``PostgresEngine``'s pool and the statements prepared
/// on it (`PREPARE`): a read the engine makes often is parsed and planned
/// once per connection, then run with `EXECUTE` (an unnamed statement is
/// parsed and planned every time; for a page of an index walk joined with
/// its records that was about 100 µs of the server's 120).
final class PooledConnection: @unchecked Sendable {
    // @unchecked: lent to one transaction at a time, as the connection is.
    let connection: PostgresConnection
    /// The name each statement is prepared under.
    private var statements: [String: String] = [:]

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    var isClosed: Bool { connection.isClosed }

    /// Closes the connection without waiting; this stays alive until it is
    /// closed (a connection must not go before then).
    func close() {
        connection.close().whenComplete { _ in withExtendedLifetime(self) {} }
    }

    /// The name `sql` is prepared under on this connection; the first time,
    /// `prepare` prepares it under the name given.
    func prepare(_ sql: String, _ prepare: (String) throws -> Void) throws -> String {
        if let name = statements[sql] { return name }
        let name = "kura_\(statements.count + 1)"
        try prepare(name)
        statements[sql] = name
        return name
    }
}

/// An argument of an `EXECUTE`, written into its text: a number, or bytes
/// as a hex `bytea` literal (nothing else can appear, so nothing needs quoting).
enum SQLLiteral {
    case integer(Int)
    case bytes([UInt8])

    static func space(_ space: StorageSpace) -> SQLLiteral { .integer(Int(Int32(bitPattern: space.number))) }

    var text: String {
        switch self {
        case .integer(let value):
            return String(value)
        case .bytes(let bytes):
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            var text = [UInt8]("'\\x".utf8)
            text.reserveCapacity(bytes.count * 2 + 12)
            for byte in bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0f)])
            }
            text.append(contentsOf: "'::bytea".utf8)
            return String(decoding: text, as: UTF8.self)
        }
    }
}
