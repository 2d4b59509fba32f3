import Kura
import KuraPostgres
import Logging
import NewsEngines

/// Kura on PostgreSQL: the Kura engine's operations, word for word, on a
/// store in a database of the shared throwaway server.
public final class KuraPostgresEngine: KuraEngine {
    public override class var name: String { "Kura on PostgreSQL" }

    public required convenience init(directory: String) throws {
        let url = try PostgresServer.shared.get().newDatabaseURL(logger: Logger(label: "kura-compare.kura-postgres"))
        try self.init(store: .postgres(url: url))
    }
}
