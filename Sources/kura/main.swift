// kura: inspect any Kura store, the way sqlite3 opens any database.
//
//   kura demo [PATH]                      build a sample News store
//   kura STORE, kura inspect STORE        the interactive shell (or commands piped in)
//   kura --version
//   kura stats|check|fetch|count|template|plan|show|dump|history STORE …   one command, then exit
//   kura export STORE [ENTITY [where …]] [--format jsonl|csv] > FILE
//   kura import STORE FILE [--entity ENTITY] [--format jsonl|csv] [--hooks]
//   kura backup STORE COPY [--compact]
//   kura diff STORE --model OTHER.kura    what a migration to OTHER's model would do

import ArgumentParser
import Foundation
import Kura
import KuraInspect
import KuraPostgres

#if canImport(Glibc)
import Glibc
#endif

struct Kura: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kura",
        abstract: "Inspect Kura stores: entities, fetches, templates, plans, statistics, consistency.",
        discussion: "Stores are opened read-only: inspecting never changes a file or blocks its writer. "
            + "`kura STORE` opens the interactive shell, as `kura inspect STORE` does.",
        version: KuraVersion.current,
        subcommands: [Demo.self, Inspect.self, Stats.self, Check.self, Fetch.self, Count.self,
                      Template.self, Plan.self, Show.self, Dump.self, Export.self, Import.self, Backup.self,
                      History.self, Diff.self],
        defaultSubcommand: Inspect.self)
}

extension OutputMode: ExpressibleByArgument {}
extension ExportFormat: ExpressibleByArgument {}

/// Options every command that opens a store shares.
struct SessionArguments: ParsableArguments {
    @Flag(name: .long, help: "Print results as JSON Lines (one object per line); the same as --mode jsonl.")
    var json = false

    @Option(name: .long, help: "How results are printed: table, line, csv, json (one array) or jsonl.")
    var mode: OutputMode?

    @Option(name: .long, help: "Fit tables in this many columns (0: no limit). By default the terminal's width; no limit into a pipe.")
    var width: Int?

    @Flag(name: .long, help: "Leave the column names out of tables and CSV.")
    var noHeaders = false

    @Argument(help: "The store file, such as news.kura, or a PostgreSQL store's URL (postgres://user@host/database).")
    var store: String

    func session() throws -> InspectSession {
        do {
            let width: OutputWidth = switch width {
            case nil: .terminal
            case 0?: .unlimited
            case let columns?: .columns(columns)
            }
            let mode = mode ?? (json ? .jsonl : .table)
            let session: InspectSession
            if store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") {
                var options = StoreOptions()
                options.isReadOnly = true
                session = try InspectSession(store: .postgres(url: store, options: options), mode: mode, width: width, sink: .standardOutput())
            } else {
                session = try InspectSession(path: store, mode: mode, width: width, sink: .standardOutput())
            }
            session.showsHeaders = !noHeaders
            return session
        } catch {
            fail(error)
        }
    }
}

/// Prints `error` as kura reports errors and exits with status 1.
func fail(_ error: Any) -> Never {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}

/// Runs one command line in a new session and exits non-zero on error
/// (output that can't be written included).
/// A predicate error hints at the shell, which takes quotes away.
func runOnce(_ options: SessionArguments, _ line: String) throws {
    try runOnce(options, line: line) { (session) throws(InspectError) in _ = try session.run(line) }
}

/// Runs `command` in a new session, as ``runOnce(_:_:)`` does a line.
func runOnce(_ options: SessionArguments, line: String, _ command: (InspectSession) throws(InspectError) -> Void) throws {
    let session = try options.session()
    do {
        try command(session)
        try session.finishOutput()
    } catch {
        let hint = error.message.hasPrefix("predicate:") && !line.contains("\"") && !line.contains("'")
            ? "\nhint: the shell removes quotes; put the predicate in single quotes: where 'title == \"Kura ships\"'"
            : ""
        fail("\(error)\(hint)")
    }
}

/// Joins the words of a one-shot command back into a command line. Quotes
/// the command language needs must survive the shell:
/// `kura fetch news.kura News where 'title == "Kura ships"'`.
func commandLine(_ words: [String]) -> String {
    words.joined(separator: " ")
}

extension Kura {
    struct Demo: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a sample News store, tell what its hooks and saves did, and how to inspect it.")

        @Argument(help: "Where to write the store.")
        var path = "news.kura"

        @Option(help: "How many news to insert.")
        var count = 300

        func run() throws {
            let output = OutputSink.standardOutput()
            do {
                try KuraInspect.Demo.run(path: path, count: count) { output.write($0) }
                try output.flush()
            } catch {
                fail(error)
            }
        }
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a store in an interactive shell; with piped input, run the commands and stop at the first error.")

        @OptionGroup var options: SessionArguments

        @Flag(help: "With piped input, run every command even after an error (the exit status is still non-zero).")
        var keepGoing = false

        func run() throws {
            let session = try options.session()
            let input: Repl.Input = isatty(0) != 0
                ? .terminal(historyPath: Repl.defaultHistoryPath)
                : .lines { readLine(strippingNewline: true) }
            let status = Repl.run(session, input: input, keepGoing: keepGoing) { message in
                FileHandle.standardError.write(Data((message + "\n").utf8))
            }
            do {
                try session.finishOutput()
            } catch {
                fail(error)
            }
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Map size and use, file size, transactions, readers, databases.")
        @OptionGroup var options: SessionArguments
        func run() throws { try runOnce(options, "stats") }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check index ⇄ record consistency and unique indexes; report, never repair. Exits 1 when inconsistent.")
        @OptionGroup var options: SessionArguments
        func run() throws { try runOnce(options, "check") }
    }

    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch objects: ENTITY [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N].")
        @OptionGroup var options: SessionArguments
        @Argument(parsing: .remaining, help: "The entity and clauses.")
        var words: [String] = []
        func run() throws { try runOnce(options, "fetch " + commandLine(words)) }
    }

    struct Count: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Count objects: ENTITY [where PREDICATE].")
        @OptionGroup var options: SessionArguments
        @Argument(parsing: .remaining, help: "The entity and clauses.")
        var words: [String] = []
        func run() throws { try runOnce(options, "count " + commandLine(words)) }
    }

    struct Template: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run a fetch request template: NAME var=value ….")
        @OptionGroup var options: SessionArguments
        @Argument(parsing: .remaining, help: "The template's name and its variables.")
        var words: [String] = []
        func run() throws { try runOnce(options, "template " + commandLine(words)) }
    }

    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the query plan of a fetch: fetch|count ENTITY ….")
        @OptionGroup var options: SessionArguments
        @Argument(parsing: .remaining, help: "fetch or count, the entity and clauses.")
        var words: [String] = []
        func run() throws { try runOnce(options, "plan " + commandLine(words)) }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one object by its ID, such as kura://News/42.")
        @OptionGroup var options: SessionArguments
        @Argument(help: "The object ID.")
        var objectID: String
        func run() throws { try runOnce(options, "show " + objectID) }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The store's model version and the versions it had before.")
        @OptionGroup var options: SessionArguments
        func run() throws { try runOnce(options, "history") }
    }

    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What opening STORE with the model of another store would migrate, without migrating.")
        @OptionGroup var options: SessionArguments
        @Option(name: .long, help: "A store file holding the newer model, such as one the new app version created.")
        var model: String
        func run() throws { try runOnce(options, line: "diff") { (session) throws(InspectError) in try session.showDifferences(fromStoreAt: model) } }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write objects as JSON Lines or CSV, losslessly, the form kura import reads: [ENTITY [where …]] [--format jsonl|csv].",
            discussion: "Without an entity, every object of every entity (JSON Lines). Redirect to a file: kura export news.kura News > news.jsonl")
        @OptionGroup var options: SessionArguments
        @Option(help: "jsonl (default) or csv.")
        var format: ExportFormat?
        @Argument(parsing: .remaining, help: "The entity and clauses.")
        var words: [String] = []
        func run() throws {
            try runOnce(options, "export " + commandLine(words) + (format.map { " --format \($0.rawValue)" } ?? ""))
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load objects from JSON Lines or CSV into a store, in one save: all of them or, on any error, none.",
            discussion: "References (\"author\": \"kura://Author/3\") point to an object of the same file with that objectID, "
                + "else to the store's object with that ID. Imported objects get new IDs.")

        @Argument(help: "The store file; it must exist (it keeps the model).")
        var store: String

        @Argument(help: "The file to read, or - for standard input.")
        var file: String

        @Option(help: "jsonl or csv; by default from the file's extension.")
        var format: String?

        @Option(help: "The entity of objects without an objectID.")
        var entity: String?

        @Flag(help: "Run the entity classes' hooks (a store opened by kura has none of the app's classes; for library use).")
        var hooks = false

        func run() throws {
            let formatName = format ?? (file.hasSuffix(".csv") ? "csv" : "jsonl")
            guard let format = ExportFormat(rawValue: formatName.lowercased()) else { fail("--format takes jsonl or csv") }
            guard let bytes = fileBytes(file) else { fail("can't read \(file)") }
            guard FileManager.default.fileExists(atPath: store) else { fail("no such file: \(store)") }
            let start = ContinuousClock.now
            do {
                let container = try PersistentContainer(path: store)
                let context = container.newContext()
                context.runsObjectHooks = hooks
                context.transactionAuthor = "kura import"
                let summary = try ObjectImport.run(utf8: bytes, format: format, entityName: entity, in: context)
                let counts = summary.insertedCounts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
                let elapsed = ContinuousClock.now - start
                let output = OutputSink.standardOutput()
                output.write("imported \(summary.total) \(summary.total == 1 ? "object" : "objects") (\(counts.isEmpty ? "none" : counts)) in "
                    + elapsed.formatted(.units(allowed: [.seconds, .milliseconds], fractionalPart: .show(length: 1))))
                try output.flush()
                // The save is durable; taking apart the context's objects one by one
                // would only delay the exit (a tenth of the time of 100k objects).
                withExtendedLifetime(context) { Foundation.exit(0) }
            } catch {
                fail(error)
            }
        }
    }

    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a consistent copy of a store while its writers go on; --compact leaves free pages out.")
        @OptionGroup var options: SessionArguments
        @Argument(help: "The copy to write; it must not exist.")
        var copy: String
        @Flag(help: "Leave free pages out, so the copy is as small as the data (stats shows what it gives back).")
        var compact = false
        func run() throws { try runOnce(options, line: "backup") { (session) throws(InspectError) in try session.backup(toFile: copy, compacting: compact) } }
    }

    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every object of an entity as JSON Lines (export ENTITY).")
        @OptionGroup var options: SessionArguments
        @Argument(help: "The entity.")
        var entity: String
        func run() throws { try runOnce(options, "dump " + entity) }
    }
}

Kura.main()
