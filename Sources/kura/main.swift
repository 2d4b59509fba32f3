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

import Foundation
import Kura
import KuraInspect

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prints `error` as kura reports errors and exits with status 1.
func fail(_ error: Any) -> Never {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}

/// Runs one command line in a new session and exits non-zero on error
/// (output that can't be written included).
/// A predicate error hints at the shell, which takes quotes away.
func runOnce(_ arguments: CommandSyntax.Arguments, _ line: String) throws -> Int32 {
    try runOnce(arguments, line: line) { (session) throws(InspectError) in _ = try session.run(line) }
}

/// Runs `command` in a new session, as ``runOnce(_:_:)`` does a line.
func runOnce(_ arguments: CommandSyntax.Arguments, line: String, _ command: (InspectSession) throws(InspectError) -> Void) throws -> Int32 {
    let session = try SessionArguments.session(arguments)
    do {
        try command(session)
        try session.finishOutput()
    } catch {
        let hint = (error.message.hasPrefix("predicate:") || error.message.contains("; text is quoted"))
            && !line.contains("\"") && !line.contains("'")
            ? "\nhint: the shell removes quotes; put the predicate in single quotes: where 'title == \"Kura ships\"'"
            : ""
        fail("\(error)\(hint)")
    }
    return 0
}

let overview = CommandSyntax(
    "kura", abstract: "Inspect Kura stores: entities, fetches, templates, plans, statistics, consistency.",
    discussion: "Stores are opened read-only: inspecting never changes a file or blocks its writer. "
        + "`kura STORE` opens the interactive shell, as `kura inspect STORE` does.")

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "--version"?:
    print(KuraVersion.current)
    exit(0)
case nil, "--help"?, "-h"?, "help"?:
    let named = arguments.count > 1 ? KuraCommands.all.first { $0.syntax.name == arguments[1] } : nil
    print(named?.syntax.help(tool: "kura") ?? KuraCommands.help(overview), terminator: "")
    exit(0)
default:
    break
}

// A first word that isn't a command is the store of `kura STORE`, unless
// it names no file and is close to a command's name.
let names = KuraCommands.all.map(\.syntax.name)
if !names.contains(arguments[0]), !FileManager.default.fileExists(atPath: arguments[0]),
   let close = CommandSyntax.closest(to: arguments[0], in: names) {
    fail("no command or store '\(arguments[0])' (did you mean '\(close)'?)")
}
let (command, rest) = KuraCommands.all.first { $0.syntax.name == arguments[0] }.map { ($0, Array(arguments.dropFirst())) }
    ?? (KuraCommands.inspect, arguments)
do {
    let parsed = try command.syntax.parse(rest)
    if parsed.wantsHelp {
        print(command.syntax.help(tool: "kura"), terminator: "")
        exit(0)
    }
    exit(try command.run(parsed))
} catch let error as CommandLineError {
    FileHandle.standardError.write(Data("error: \(error)\nusage: \(command.syntax.usage(tool: "kura"))\n".utf8))
    exit(64)
} catch {
    fail(error)
}
