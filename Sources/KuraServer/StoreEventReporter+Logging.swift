// Compiled with the Server trait only (swift build --traits Server).
#if Server
import KuraCore
import Logging
import Metrics

extension StoreEventReporter {
    /// A reporter writing each ``StoreEvent`` to `logger` and, unless
    /// `recordsMetrics` is `false`, to swift-metrics' backend
    /// (`MetricsSystem.bootstrap`):
    ///
    /// | event | log | metrics |
    /// |---|---|---|
    /// | a save | `debug` (`warning` when it failed), with its counts and duration | timer `kura.save.duration`, counters `kura.save.objects` (dimension `change`), `kura.save.failures`, `kura.conflicts.settled` |
    /// | a slow fetch | `notice`, with its plan | timer `kura.fetch.slow.duration` (dimension `entity`) |
    /// | a migration | `notice`, with its report | timer `kura.migration.duration` |
    /// | a connection event | `warning` (`notice` for listening again) | counter `kura.connection.events` (dimension `kind`) |
    ///
    /// ```swift
    /// var options = StoreOptions()
    /// options.eventReporter = .logging(to: Logger(label: "news.store"), slowFetchThreshold: .milliseconds(20))
    /// ```
    ///
    /// Every record carries the store's path or URL as `kura.store` metadata.
    public static func logging(
        to logger: Logger, recordsMetrics: Bool = true, slowFetchThreshold: Duration = .milliseconds(100)
    ) -> StoreEventReporter {
        let metrics = recordsMetrics ? StoreMetrics() : nil
        return StoreEventReporter(slowFetchThreshold: slowFetchThreshold) { event in
            var logger = logger
            switch event {
            case .save(let save):
                logger[metadataKey: "kura.store"] = "\(save.store)"
                let counts = "\(save.inserted) inserted, \(save.updated) updated, \(save.deleted) deleted"
                let metadata: Logger.Metadata = [
                    "kura.duration_ms": "\(milliseconds(save.duration))", "kura.conflicts_settled": "\(save.conflictsSettled)",
                ]
                if let error = save.error {
                    logger.warning("save failed, nothing written (\(counts)): \(error)", metadata: metadata)
                } else {
                    logger.debug("saved \(counts)", metadata: metadata)
                }
                metrics?.record(save)
            case .slowFetch(let fetch):
                logger[metadataKey: "kura.store"] = "\(fetch.store)"
                logger.notice("slow \(fetch.kind.rawValue) of \(fetch.entityName): \(fetch.resultCount) results in \(milliseconds(fetch.duration)) ms",
                              metadata: ["kura.plan": "\(fetch.plan)", "kura.duration_ms": "\(milliseconds(fetch.duration))"])
                metrics?.record(fetch)
            case .migration(let report):
                logger.notice("store migrated: \(report)")
                metrics?.migration.recordNanoseconds(Int64(report.seconds * 1e9))
            case .connection(let connection):
                logger[metadataKey: "kura.store"] = "\(connection.store)"
                if connection.kind == .listeningAgain {
                    logger.notice("\(connection.message)")
                } else {
                    logger.warning("\(connection.message)", metadata: ["kura.connection": "\(connection.kind.rawValue)"])
                }
                metrics?.record(connection)
            }
        }
    }
}

/// `duration` in milliseconds, to three decimals.
private func milliseconds(_ duration: Duration) -> Double {
    (Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15 * 1e3).rounded() / 1e3
}

/// The metrics a ``StoreEventReporter/logging(to:recordsMetrics:slowFetchThreshold:)``
/// reporter records, made once (swift-metrics caches by label and dimensions anyway).
private struct StoreMetrics: Sendable {
    let saves = Timer(label: "kura.save.duration")
    let saveFailures = Counter(label: "kura.save.failures")
    let conflicts = Counter(label: "kura.conflicts.settled")
    let inserted = Counter(label: "kura.save.objects", dimensions: [("change", "inserted")])
    let updated = Counter(label: "kura.save.objects", dimensions: [("change", "updated")])
    let deleted = Counter(label: "kura.save.objects", dimensions: [("change", "deleted")])
    let migration = Timer(label: "kura.migration.duration")

    func record(_ save: SaveEvent) {
        saves.recordNanoseconds(nanoseconds(save.duration))
        if save.error != nil {
            saveFailures.increment()
            return
        }
        inserted.increment(by: save.inserted)
        updated.increment(by: save.updated)
        deleted.increment(by: save.deleted)
        if save.conflictsSettled > 0 { conflicts.increment(by: save.conflictsSettled) }
    }

    func record(_ fetch: SlowFetchEvent) {
        Timer(label: "kura.fetch.slow.duration", dimensions: [("entity", fetch.entityName)]).recordNanoseconds(nanoseconds(fetch.duration))
    }

    func record(_ connection: ConnectionEvent) {
        Counter(label: "kura.connection.events", dimensions: [("kind", connection.kind.rawValue)]).increment()
    }

    private func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
#endif
