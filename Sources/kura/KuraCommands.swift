import Foundation
import Kura
import KuraInspect

/// kura's commands, as `kura --help` lists them.
enum KuraCommands {
    static let inspect = ToolCommand(
        syntax: CommandSyntax(
            "inspect", abstract: "Open a store in an interactive shell; with piped input, run the commands and stop at the first error.",
            positionals: [SessionArguments.store],
            options: SessionArguments.options + [
                .init("keep-going", help: "With piped input, run every command even after an error (the exit status is still non-zero)."),
            ]),
        run: { arguments in
            let session = try SessionArguments.session(arguments)
            let input: Repl.Input = isatty(0) != 0
                ? .terminal(historyPath: Repl.defaultHistoryPath)
                : .lines { readLine(strippingNewline: true) }
            let status = Repl.run(session, input: input, keepGoing: arguments.flags.contains("keep-going")) { message in
                FileHandle.standardError.write(Data((message + "\n").utf8))
            }
            do {
                try session.finishOutput()
            } catch {
                fail(error)
            }
            return status
        })

    static let demo = ToolCommand(
        syntax: CommandSyntax(
            "demo", abstract: "Build a sample News store, tell what its hooks and saves did, and how to inspect it.",
            positionals: [.init("PATH", default: "news.kura", help: "Where to write the store.")],
            options: [.init("count", value: "N", help: "How many news to insert (default: 300).")]),
        run: { arguments in
            let count = try arguments.integer("count") ?? 300
            let output = OutputSink.standardOutput()
            do {
                try Demo.run(path: arguments[positional: "PATH"], count: count) { output.write($0) }
                try output.flush()
            } catch {
                fail(error)
            }
            return 0
        })

    static let `import` = ToolCommand(
        syntax: CommandSyntax(
            "import", abstract: "Load objects from JSON Lines or CSV into a store, in one save: all of them or, on any error, none.",
            discussion: "References (\"author\": \"kura://Author/3\") point to an object of the same file with that objectID, "
                + "else to the store's object with that ID. Imported objects get new IDs.",
            positionals: [.init("STORE", help: "The store file; it must exist (it keeps the model)."),
                          .init("FILE", help: "The file to read, or - for standard input.")],
            options: [
                .init("format", value: "FORMAT", help: "jsonl or csv; by default from the file's extension."),
                .init("entity", value: "ENTITY", help: "The entity of objects without an objectID."),
                .init("hooks", help: "Run the entity classes' hooks (a store opened by kura has none of the app's classes; for library use)."),
            ]),
        run: { arguments in
            let store = arguments[positional: "STORE"], file = arguments[positional: "FILE"]
            let formatName = arguments.values["format"] ?? (file.hasSuffix(".csv") ? "csv" : "jsonl")
            guard let format = ExportFormat(rawValue: formatName.lowercased()) else { throw CommandLineError("--format takes jsonl or csv") }
            guard let bytes = fileBytes(file) else { fail("can't read \(file)") }
            guard FileManager.default.fileExists(atPath: store) else { fail("no such file: \(store)") }
            let start = ContinuousClock.now
            do {
                let container = try PersistentContainer(path: store)
                let context = container.newContext()
                context.runsObjectHooks = arguments.flags.contains("hooks")
                context.transactionAuthor = "kura import"
                let summary = try ObjectImport.run(utf8: bytes, format: format, entityName: arguments.values["entity"], in: context)
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
        })

    static let diff = ToolCommand(
        syntax: CommandSyntax(
            "diff", abstract: "What opening STORE with the model of another store would migrate, without migrating.",
            positionals: [SessionArguments.store],
            options: SessionArguments.options + [
                .init("model", value: "OTHER", help: "A store file holding the newer model, such as one the new app version created."),
            ]),
        run: { arguments in
            guard let model = arguments.values["model"] else { throw CommandLineError("diff needs --model OTHER.kura") }
            return try runOnce(arguments, line: "diff") { (session) throws(InspectError) in try session.showDifferences(fromStoreAt: model) }
        })

    static let create = ToolCommand(
        syntax: CommandSyntax(
            "create", abstract: "Create an empty store with the model of another store (its entities, indexes and templates).",
            discussion: "For a round trip without the app's code: kura export old.kura > all.jsonl; "
                + "kura create new.kura --model-from old.kura; kura import new.kura all.jsonl",
            positionals: [.init("NEW", help: "The store to create; it must not exist.")],
            options: [.init("model-from", value: "OTHER", help: "The store whose model the new one gets.")]),
        run: { arguments in
            guard let other = arguments.values["model-from"] else { throw CommandLineError("create needs --model-from OTHER.kura") }
            let output = OutputSink.standardOutput()
            do {
                output.write(try StoreCreation.create(at: arguments[positional: "NEW"], modelFrom: other))
                try output.flush()
            } catch {
                fail(error)
            }
            return 0
        })

    static let all: [ToolCommand] = [
        demo, inspect,
        .once("stats", "Map size and use, file size, transactions, readers, databases."),
        .once("check", "Check index ⇄ record consistency and unique indexes; report, never repair. Exits 1 when inconsistent."),
        .once("fetch", "Fetch objects: ENTITY [where PREDICATE] [sort KEY [asc|desc], …] [limit N] [offset N].", words: "ENTITY AND CLAUSES"),
        .once("count", "Count objects: ENTITY [where PREDICATE].", words: "ENTITY AND CLAUSES"),
        .once("template", "Run a fetch request template: NAME var=value ….", words: "NAME AND VARIABLES"),
        .once("plan", "Show the query plan of a fetch: fetch|count ENTITY ….", words: "FETCH OR COUNT"),
        .once("show", "Show one object by its ID, such as kura://News/42.",
              positionals: [.init("OBJECTID", help: "The object ID.")], line: { "show " + $0[positional: "OBJECTID"] }),
        .once("dump", "Print every object of an entity as JSON Lines (export ENTITY).",
              positionals: [.init("ENTITY", help: "The entity.")], line: { "dump " + $0[positional: "ENTITY"] }),
        .once("export", "Write objects as JSON Lines or CSV, losslessly, the form kura import reads: [ENTITY [where …]] [--format jsonl|csv]. "
                  + "Without an entity, every object of every entity (JSON Lines). Redirect to a file: kura export news.kura News > news.jsonl",
              words: "ENTITY AND CLAUSES", options: [.init("format", value: "FORMAT", help: "jsonl (default) or csv.")],
              line: { (["export"] + $0.words).joined(separator: " ") + ($0.values["format"].map { " --format \($0)" } ?? "") }),
        `import`, create,
        .session("backup", "Write a consistent copy of a store while its writers go on; --compact leaves free pages out.",
                 options: [.init("compact", help: "Leave free pages out, so the copy is as small as the data (stats shows what it gives back).")],
                 positionals: [.init("COPY", help: "The copy to write; it must not exist.")]) { (session, arguments) throws(InspectError) in
            try session.backup(toFile: arguments[positional: "COPY"], compacting: arguments.flags.contains("compact"))
        },
        .once("history", "The store's model version and the versions it had before."),
        diff,
    ]

    /// An abstract up to its first ": " or ". ".
    private static func firstClause(_ abstract: String) -> Substring {
        let ends = [": ", ". "].compactMap { abstract.range(of: $0)?.lowerBound }
        let clause = abstract[..<(ends.min() ?? abstract.endIndex)]
        return clause.hasSuffix(".") ? clause.dropLast() : clause
    }

    /// `kura --help`: what kura does and its commands.
    static func help(_ overview: CommandSyntax) -> String {
        var lines = [overview.abstract, "", "usage: kura COMMAND [options] STORE …   (kura STORE: the shell)", "", overview.discussion, "", "commands:"]
        for command in all {
            let name = command.syntax.name
            lines.append("  " + name + String(repeating: " ", count: max(2, 10 - name.count)) + Self.firstClause(command.syntax.abstract))
        }
        lines += ["", "kura COMMAND --help tells a command's arguments and options; kura --version its version."]
        return lines.joined(separator: "\n") + "\n"
    }
}
