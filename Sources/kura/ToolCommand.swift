import KuraInspect

/// One of kura's commands: what it takes, and what it does with it.
struct ToolCommand: Sendable {
    var syntax: CommandSyntax
    /// Runs the command; returns the exit status (or ends the process).
    var run: @Sendable (CommandSyntax.Arguments) throws -> Int32

    /// A command that opens a store and runs one command line in it:
    /// `line` makes the line from the arguments (by default the command's
    /// name and its words: `kura fetch news.kura News` runs `fetch News`).
    static func once(_ name: String, _ abstract: String, words: String? = nil, options: [CommandSyntax.Option] = [],
                     positionals: [CommandSyntax.Positional] = [],
                     line: (@Sendable (CommandSyntax.Arguments) -> String)? = nil) -> ToolCommand {
        let line: @Sendable (CommandSyntax.Arguments) -> String = line ?? { ([name] + $0.words).joined(separator: " ") }
        return ToolCommand(
            syntax: CommandSyntax(name, abstract: abstract, positionals: [SessionArguments.store] + positionals,
                                  options: SessionArguments.options + options, words: words),
            run: { arguments in try runOnce(arguments, line(arguments)) })
    }

    /// A command that opens a store and calls `command` on its session.
    static func session(_ name: String, _ abstract: String, options: [CommandSyntax.Option] = [],
                        positionals: [CommandSyntax.Positional] = [],
                        _ command: @escaping @Sendable (InspectSession, CommandSyntax.Arguments) throws(InspectError) -> Void) -> ToolCommand {
        ToolCommand(
            syntax: CommandSyntax(name, abstract: abstract, positionals: [SessionArguments.store] + positionals,
                                  options: SessionArguments.options + options),
            run: { arguments in try runOnce(arguments, line: name) { (session) throws(InspectError) in try command(session, arguments) } })
    }
}
