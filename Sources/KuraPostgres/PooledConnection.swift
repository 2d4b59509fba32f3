// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import KuraCore
import PostgresNIO

/// A connection of a ``PostgresEngine``'s pool and the statements prepared
/// on it (`PREPARE`): a read the engine makes often is parsed and planned
/// once per connection, then run with `EXECUTE` (an unnamed statement is
/// parsed and planned every time; for a page of an index walk joined with
/// its records that was about 100 µs of the server's 120).
final class PooledConnection: @unchecked Sendable {
    // @unchecked: lent to one transaction at a time, as the connection is.
    let connection: PostgresConnection
    /// The name each statement is prepared under, by what stands for it.
    private var statements: [Key: String] = [:]

    /// What stands for a prepared statement: its text, or the shape of a
    /// page (whose text is made only to prepare it). An enum, not
    /// `AnyHashable`: finding an `AnyHashable` key costs dynamic casts.
    enum Key: Hashable {
        case text(String)
        case page(PageStatement)
    }

    /// The call of `kura_rewrite`, once prepared on this connection
    /// (``PostgresTransaction/commitExpected(sent:)``).
    var rewrite: PreparedQuery?

    /// The server process that answered the connection's first statement
    /// (through a pooler in transaction mode, not the one of every statement).
    let processID: Int32

    /// The connection's row in `kura_saves`, and the number of its last
    /// write: every write stores its number there in its own transaction,
    /// so a write whose commit answer is lost is looked up (see
    /// ``PostgresEngine/resolve(_:)``). Unique to the engine and the
    /// connection, it also names what the connection prepares.
    let writer: [UInt8]
    var writes: Int64 = 0

    /// Whether statements are prepared on the server (`PREPARE`, and
    /// PostgresNIO's prepared statements): not through a pooler in
    /// transaction mode, where the next transaction may be another server's
    /// (``PostgresOptions/Pooling``).
    let preparesStatements: Bool

    init(_ connection: PostgresConnection, processID: Int32, writer: [UInt8], preparesStatements: Bool) {
        self.connection = connection
        self.processID = processID
        self.writer = writer
        self.preparesStatements = preparesStatements
    }

    var isClosed: Bool { connection.isClosed }

    /// Closes the connection without waiting; this stays alive until it is
    /// closed (a connection must not go before then).
    func close() {
        connection.close().whenComplete { _ in withExtendedLifetime(self) {} }
    }

    /// The name the statement `key` stands for is prepared under on this
    /// connection; the first time, `prepare` prepares it under the name given.
    /// Names are the connection's own (its writer's, then a number): should
    /// a pooler hand its next transaction to another server, a name there is
    /// missing (an error) rather than another connection's statement.
    func prepare(_ key: Key, _ prepare: (String) throws -> Void) throws -> String {
        if let name = statements[key] { return name }
        let name = "kura_\(String(decoding: writer.map { $0 == UInt8(ascii: ".") ? UInt8(ascii: "_") : $0 }, as: UTF8.self))_\(statements.count + 1)"
        try prepare(name)
        statements[key] = name
        return name
    }
}

/// An argument of an `EXECUTE`, written into its text: a number, or bytes
/// as a hex `bytea` literal (nothing else can appear, so nothing needs quoting).
enum SQLLiteral {
    case integer(Int)
    case bytes([UInt8])

    static func space(_ space: StorageSpace) -> SQLLiteral { .integer(Int(Int32(bitPattern: space.number))) }

    /// `EXECUTE name(arguments…)`, written as bytes and made a string once
    /// (joining the arguments' strings was a large part of a short
    /// fetch's cost).
    static func execute(_ name: String, _ arguments: [SQLLiteral]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(8 + name.utf8.count + arguments.reduce(2) { $0 + $1.estimatedLength + 2 })
        text.append(contentsOf: "EXECUTE ".utf8)
        text.append(contentsOf: name.utf8)
        for (position, argument) in arguments.enumerated() {
            text.append(contentsOf: position == 0 ? "(".utf8 : ", ".utf8)
            argument.write(into: &text)
        }
        if !arguments.isEmpty { text.append(UInt8(ascii: ")")) }
        return String(decoding: text, as: UTF8.self)
    }

    /// The arguments as an unnamed statement's parameters (integers as
    /// `int8`, bytes as `bytea`).
    static func bindings(_ arguments: [SQLLiteral]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .integer(let value): bindings.append(Int64(value))
            case .bytes(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            }
        }
        return bindings
    }

    private var estimatedLength: Int {
        switch self {
        case .integer: return 20
        case .bytes(let bytes): return bytes.count * 2 + 12
        }
    }

    private func write(into text: inout [UInt8]) {
        switch self {
        case .integer(let value):
            if value < 0 { text.append(UInt8(ascii: "-")) }
            var digits = value.magnitude
            let start = text.count
            repeat {
                text.append(UInt8(ascii: "0") + UInt8(digits % 10))
                digits /= 10
            } while digits > 0
            text[start...].reverse()
        case .bytes(let bytes):
            text.append(contentsOf: "'\\x".utf8)
            for byte in bytes {
                text.append(Self.hexDigit(byte >> 4))
                text.append(Self.hexDigit(byte & 0x0f))
            }
            text.append(contentsOf: "'::bytea".utf8)
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
#endif
