import Foundation
import Kura
#if PostgreSQL
import KuraPostgres
#endif
import KuraTestSupport

/// The writer of the PostgreSQL failover test.
enum FailoverCommands {
    /// `failover-writer STORE WRITER STOPFILE ANSWER-LOSS-WAIT-MS`: saves
    /// numbered groups (``FailoverWorkload``) until STOPFILE exists. Prints
    /// `saved N MS` (the wall clock's milliseconds) for each acknowledged
    /// save, `unknown N` for a save whose outcome the store can't tell (not
    /// saved again), `answer lost: …` for each save whose commit answer
    /// was lost (what the store found), and saves a failed one again with
    /// the changes its context kept.
    static func writer(_ arguments: [String]) throws {
        guard arguments.count == 4, let writer = Int(arguments[1]), let wait = Int(arguments[3]) else {
            throw HelperError.usage("failover-writer STORE WRITER STOPFILE ANSWER-LOSS-WAIT-MS")
        }
        var options = StoreOptions()
        // Each lost commit answer, and what the store found.
        options.eventReporter = StoreEventReporter(reportsEverySave: false) { event in
            if case .connection(let connection) = event, connection.kind == .answerLost { say("answer lost: \(connection.message)") }
        }
        #if PostgreSQL
        options.postgres.answerLossWait = .milliseconds(wait)
        #endif
        var container: PersistentContainer?
        // The store may be opened while no primary serves: try again.
        while container == nil {
            do {
                container = try PersistentContainer(store: storeDescription(arguments[0], options: options), model: FailoverWorkload.model())
            } catch {
                usleep(50_000)
            }
        }
        let stop = arguments[2]
        var number = 0
        while !FileManager.default.fileExists(atPath: stop) {
            number += 1
            let context = container!.newContext()
            try FailoverWorkload.insertGroup(writer: writer, number: number, in: context)
            while true {
                do {
                    try context.save()
                    say("saved \(number) \(Int(Date().timeIntervalSince1970 * 1000))")
                    break
                } catch where "\(error)".contains("outcome is unknown") {
                    say("unknown \(number)")
                    break
                } catch {
                    guard !FileManager.default.fileExists(atPath: stop) else { return }
                    usleep(20_000)
                }
            }
        }
        say("done")
    }
}
