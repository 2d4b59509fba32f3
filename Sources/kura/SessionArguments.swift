import Foundation
import Kura
import KuraInspect
#if PostgreSQL
import KuraPostgres
#endif

/// The options and the STORE argument every command that opens a store shares.
enum SessionArguments {
    static let options: [CommandSyntax.Option] = [
        .init("json", help: "Print results as JSON Lines (one object per line); the same as --mode jsonl."),
        .init("mode", value: "MODE", help: "How results are printed: table, line, csv, json (one array) or jsonl."),
        .init("width", value: "N", help: "Fit tables in N columns (0: no limit). By default the terminal's width; no limit into a pipe."),
        .init("no-headers", help: "Leave the column names out of tables and CSV."),
        .init("nullvalue", value: "TEXT", help: "How no value shows in tables and the line mode (default: nil)."),
    ]

    static let store = CommandSyntax.Positional(
        "STORE", help: "The store file, such as news.kura" + (hasPostgreSQL ? ", or a PostgreSQL store's URL (postgres://user@host/database)." : "."))

    /// True when this build of kura opens PostgreSQL stores (the PostgreSQL trait).
    static var hasPostgreSQL: Bool {
        #if PostgreSQL
        true
        #else
        false
        #endif
    }

    /// A session on the store `arguments` name, as its options say.
    static func session(_ arguments: CommandSyntax.Arguments) throws -> InspectSession {
        let width: OutputWidth = switch try arguments.integer("width") {
        case nil: .terminal
        case 0?: .unlimited
        case let columns?: .columns(columns)
        }
        var mode: OutputMode = arguments.flags.contains("json") ? .jsonl : .table
        if let name = arguments.values["mode"] {
            guard let chosen = OutputMode(rawValue: name) else {
                throw CommandLineError("--mode takes " + OutputMode.allCases.map(\.rawValue).joined(separator: ", ") + ", not '\(name)'")
            }
            mode = chosen
        }
        let store = arguments[positional: "STORE"]
        let session: InspectSession
        if store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") {
            #if PostgreSQL
            var options = StoreOptions()
            options.isReadOnly = true
            session = try InspectSession(store: .postgres(url: store, options: options), mode: mode, width: width, sink: .standardOutput())
            #else
            throw CommandLineError("this kura was built without PostgreSQL: swift run --traits PostgreSQL kura …")
            #endif
        } else {
            session = try InspectSession(path: store, mode: mode, width: width, sink: .standardOutput())
        }
        session.showsHeaders = !arguments.flags.contains("no-headers")
        if let text = arguments.values["nullvalue"] { session.nullDisplay = text }
        return session
    }
}
