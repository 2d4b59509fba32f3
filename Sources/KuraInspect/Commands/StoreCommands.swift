// The store as a whole: statistics, checks, history, migrations to
// another model, exports and backups.

extension SessionCommand {
    static let stats = SessionCommand(
        "stats", section: .store, help: "stats                     file, map, readers, space per entity"
    ) { input throws(CommandError) in
        try input.none()
        return { session in try session.showStatistics(); return true }
    }

    static let check = SessionCommand(
        "check", section: .store, help: "check                     indexes, references (reports, never repairs)"
    ) { input throws(CommandError) in
        try input.none()
        return { session in try session.check(); return true }
    }

    static let history = SessionCommand(
        "history", section: .store, help: "history                   model versions and recorded saves"
    ) { input throws(CommandError) in
        try input.none()
        return { session in try session.showHistory(); return true }
    }

    static let diff = SessionCommand(
        "diff", section: .store, help: "diff STORE                what opening with STORE's model migrates"
    ) { input throws(CommandError) in
        let other = try input.single("store")
        return { session in try session.showDifferences(from: other); return true }
    }

    /// `export [ENTITY [where …] [sort …]] [--format jsonl|csv]`.
    static let export = SessionCommand(
        "export", section: .store,
        help: "export [ENTITY [where …]] [--format jsonl|csv]\n                          objects as kura import reads them"
    ) { input throws(CommandError) in
        let spec = try ExportSpec.parse(input.words, line: input.line, command: input.name)
        return { session in try session.export(spec, line: input.line); return true }
    }

    /// `dump ENTITY`: every object of one entity, as `export` writes them.
    static let dump = SessionCommand("dump", section: .store, help: nil) { input throws(CommandError) in
        let spec = ExportSpec(fetch: FetchSpec(entity: try input.single("entity")))
        return { session in try session.export(spec, line: input.line); return true }
    }

    /// `backup FILE [--compact]`.
    static let backup = SessionCommand(
        "backup", section: .store, help: "backup FILE [--compact]   a consistent copy, while writers go on"
    ) { input throws(CommandError) in
        let compacting = input.words.contains { $0.text == "--compact" }
        let paths = input.words.filter { $0.text != "--compact" }
        guard paths.count == 1 else {
            throw CommandError(message: "backup takes one file name: backup FILE [--compact]", position: paths.dropFirst().first?.start)
        }
        let path = paths[0].unquoted
        return { session in try session.backup(to: path, compacting: compacting); return true }
    }

    /// `import`, which a read-only session can't do: an error saying so.
    static let `import` = SessionCommand("import", aliases: [".import"], section: .store, help: nil) { _ throws(CommandError) in
        return { _ in
            throw InspectError("the session is read-only; import with: kura import STORE FILE [--entity ENTITY] [--format jsonl|csv]")
        }
    }
}
