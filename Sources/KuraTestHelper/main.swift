// A helper process for Kura's multi-process, crash and concurrency tests.
// Tests spawn it with a command and arguments; it prints what it did, one
// line per step, and exits non-zero on any error.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else {
    print("usage: kura-test-helper COMMAND ARGUMENTS…")
    exit(2)
}

do {
    switch command {
    case "lmdb-grow":
        try LMDBCommands.grow(Array(arguments.dropFirst()))
    case "lmdb-hold-reader":
        try LMDBCommands.holdReader(Array(arguments.dropFirst()))
    case "lmdb-hold-writer":
        try LMDBCommands.holdWriter(Array(arguments.dropFirst()))
    case "crash-writer":
        try KuraCommands.crashWriter(Array(arguments.dropFirst()))
    case "failover-writer":
        try FailoverCommands.writer(Array(arguments.dropFirst()))
    case "increment":
        try KuraCommands.increment(Array(arguments.dropFirst()))
    case "insert-entries":
        try KuraCommands.insertEntries(Array(arguments.dropFirst()))
    case "growth-writer":
        try KuraCommands.growthWriter(Array(arguments.dropFirst()))
    case "growth-reader":
        try KuraCommands.growthReader(Array(arguments.dropFirst()))
    case "open-read-only":
        try KuraCommands.openReadOnly(Array(arguments.dropFirst()))
    case "history-writer":
        try KuraCommands.historyWriter(Array(arguments.dropFirst()))
    case "commit-timer":
        try KuraCommands.commitTimer(Array(arguments.dropFirst()))
    case "watch-idle":
        try KuraCommands.watchIdle(Array(arguments.dropFirst()))
    case "later":
        try KuraCommands.later(Array(arguments.dropFirst()))
    case "open-migration-model":
        try KuraCommands.openMigrationModel(Array(arguments.dropFirst()))
    case "migrate":
        try KuraCommands.migrate(Array(arguments.dropFirst()))
    case "upgrade":
        try KuraCommands.upgrade(Array(arguments.dropFirst()))
    case "check-store":
        try KuraCommands.checkStore(Array(arguments.dropFirst()))
    case "file-size-limit":
        try KuraCommands.fileSizeLimit(Array(arguments.dropFirst()))
    default:
        print("unknown command \(command)")
        exit(2)
    }
} catch {
    print("error: \(error)")
    exit(1)
}
