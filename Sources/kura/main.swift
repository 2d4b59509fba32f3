// kura: inspect any Kura store, the way sqlite3 opens any database.
//
//   kura demo [PATH]                      build a sample News store
//   kura STORE, kura inspect STORE        the interactive shell (or commands piped in)
//   kura --version
//   kura stats|check|fetch|count|template|plan|show|dump|history STORE …   one command, then exit
//   kura diff STORE --model OTHER.kura    what a migration to OTHER's model would do

import ArgumentParser
import Foundation
import Kura
import KuraInspect

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
                      Template.self, Plan.self, Show.self, Dump.self, History.self, Diff.self],
        defaultSubcommand: Inspect.self)
}

/// Options every command that opens a store shares.
struct StoreOptions: ParsableArguments {
    @Flag(name: .long, help: "Print results as JSON (one object per line).")
    var json = false

    @Argument(help: "The store file, such as news.kura.")
    var store: String

    func session() throws -> InspectSession {
        do {
            return try InspectSession(path: store, mode: json ? .json : .table) { print($0) }
        } catch {
            fail(error)
        }
    }
}

/// Prints `error` as kura reports errors and exits with status 1.
func fail(_ error: Error) -> Never {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}

/// Runs one command line in a new session and exits non-zero on error.
func runOnce(_ options: StoreOptions, _ line: String) throws {
    let session = try options.session()
    do {
        try session.run(line)
    } catch {
        fail(error)
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
            do {
                try KuraInspect.Demo.run(path: path, count: count) { print($0) }
            } catch {
                fail(error)
            }
        }
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open a store in an interactive shell; with piped input, run the commands and stop at the first error.")

        @OptionGroup var options: StoreOptions

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
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Map size and use, file size, transactions, readers, databases.")
        @OptionGroup var options: StoreOptions
        func run() throws { try runOnce(options, "stats") }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check index ⇄ record consistency and unique indexes; report, never repair. Exits 1 when inconsistent.")
        @OptionGroup var options: StoreOptions
        func run() throws { try runOnce(options, "check") }
    }

    struct Fetch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch objects: ENTITY [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N].")
        @OptionGroup var options: StoreOptions
        @Argument(parsing: .remaining, help: "The entity and clauses.")
        var words: [String] = []
        func run() throws { try runOnce(options, "fetch " + commandLine(words)) }
    }

    struct Count: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Count objects: ENTITY [where PREDICATE].")
        @OptionGroup var options: StoreOptions
        @Argument(parsing: .remaining, help: "The entity and clauses.")
        var words: [String] = []
        func run() throws { try runOnce(options, "count " + commandLine(words)) }
    }

    struct Template: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Run a fetch request template: NAME var=value ….")
        @OptionGroup var options: StoreOptions
        @Argument(parsing: .remaining, help: "The template's name and its variables.")
        var words: [String] = []
        func run() throws { try runOnce(options, "template " + commandLine(words)) }
    }

    struct Plan: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the query plan of a fetch: fetch|count ENTITY ….")
        @OptionGroup var options: StoreOptions
        @Argument(parsing: .remaining, help: "fetch or count, the entity and clauses.")
        var words: [String] = []
        func run() throws { try runOnce(options, "plan " + commandLine(words)) }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one object by its ID, such as kura://News/42.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The object ID.")
        var objectID: String
        func run() throws { try runOnce(options, "show " + objectID) }
    }

    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The store's model version and the versions it had before.")
        @OptionGroup var options: StoreOptions
        func run() throws { try runOnce(options, "history") }
    }

    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What opening STORE with the model of another store would migrate, without migrating.")
        @OptionGroup var options: StoreOptions
        @Option(name: .long, help: "A store file holding the newer model, such as one the new app version created.")
        var model: String
        func run() throws { try runOnce(options, "diff " + model) }
    }

    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print every object of an entity as JSON lines.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "The entity.")
        var entity: String
        func run() throws { try runOnce(options, "dump " + entity) }
    }
}

Kura.main()
