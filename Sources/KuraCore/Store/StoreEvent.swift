/// What a store tells a server's logs and metrics as it works: each save,
/// each fetch slower than a threshold with its plan, each migration, and
/// what an engine's connections do. Set with ``StoreOptions/eventReporter``.
///
/// Kura depends on no logging package; the `KuraServer` product (the
/// `Server` trait) turns these into swift-log records and swift-metrics
/// timers and counters, and any other sink is a closure away.
public enum StoreEvent: Sendable {
    /// A save committed, or failed and wrote nothing.
    case save(SaveEvent)
    /// A fetch or count took at least ``StoreEventReporter/slowFetchThreshold``.
    case slowFetch(SlowFetchEvent)
    /// The store was migrated when it opened.
    case migration(MigrationReport)
    /// An engine's connection was lost, replaced or listened again (remote
    /// engines only).
    case connection(ConnectionEvent)
}

/// A save: what it wrote, how long it took, and what the merge policy settled.
public struct SaveEvent: Sendable {
    /// The store's path or URL.
    public var store: String
    /// How many objects (or batch rows) it inserted, updated and deleted.
    public var inserted: Int, updated: Int, deleted: Int
    /// Of the updates, how many met another save's change and were settled
    /// by the context's merge policy (kept, merged or refreshed) rather
    /// than failing the save: the conflicts a server retries by hand elsewhere.
    public var conflictsSettled: Int
    /// From the transaction's start to its commit (retries after the map grew included).
    public var duration: Duration
    /// Why the save failed (it wrote nothing), or `nil` when it committed.
    public var error: (any Error)?

    public init(store: String, inserted: Int, updated: Int, deleted: Int, conflictsSettled: Int, duration: Duration, error: (any Error)?) {
        self.store = store
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.conflictsSettled = conflictsSettled
        self.duration = duration
        self.error = error
    }
}

/// A fetch or count slower than the threshold, with the plan it ran.
public struct SlowFetchEvent: Sendable {
    /// The store's path or URL.
    public var store: String
    /// The request's entity.
    public var entityName: String
    /// What the request was.
    public var kind: Kind
    /// The objects it returned, or the count.
    public var resultCount: Int
    public var duration: Duration
    /// The plan, as ``ManagedObjectContext/explain(_:)`` shows it.
    public var plan: String

    /// What a slow request was.
    public enum Kind: String, Sendable {
        /// A fetch of objects.
        case objects = "fetch"
        /// A fetch of object IDs.
        case objectIDs = "fetch of IDs"
        /// A fetch of dictionaries.
        case dictionaries = "fetch of dictionaries"
        /// A count.
        case count
    }

    public init(store: String, entityName: String, kind: Kind, resultCount: Int, duration: Duration, plan: String) {
        self.store = store
        self.entityName = entityName
        self.kind = kind
        self.resultCount = resultCount
        self.duration = duration
        self.plan = plan
    }
}

/// Something an engine's connection did.
public struct ConnectionEvent: Sendable {
    /// What happened.
    public enum Kind: String, Sendable {
        /// A connection was found closed and another opened in its place.
        case replaced
        /// A connection that listens for other processes' commits was lost
        /// and listens again.
        case listeningAgain
        /// A connection could not be opened (the server may come back).
        case failed
        /// A save's commit answer was lost with its connection, and the
        /// store asked a server whether it committed: the message says what
        /// it found (committed, not committed and saved again, or unknown).
        case answerLost
    }

    public var store: String
    public var kind: Kind
    /// The engine's account (the error, the attempt).
    public var message: String

    /// An event an engine reports (through ``StoreOptions/eventReporter``).
    public init(store: String, kind: Kind, message: String) {
        self.store = store
        self.kind = kind
        self.message = message
    }
}

/// Where a store sends its ``StoreEvent``s (``StoreOptions/eventReporter``).
///
/// ```swift
/// var options = StoreOptions()
/// options.eventReporter = StoreEventReporter(slowFetchThreshold: .milliseconds(20)) { event in
///     print(event)
/// }
/// ```
///
/// The closure runs on the thread that did the work, right after it (a
/// save's after its commit, outside the write lock): keep it short, and
/// hand anything slow to another task. A store without a reporter pays
/// nothing for this: no clock is read.
public struct StoreEventReporter: Sendable, Hashable {
    /// Fetches and counts at least this slow are reported with their plans.
    public var slowFetchThreshold: Duration
    /// Whether every save is reported (`true`) or only failed ones.
    public var reportsEverySave: Bool
    private let box: Box

    /// A reporter calling `report` for each event.
    ///
    /// - Parameters:
    ///   - slowFetchThreshold: The shortest fetch reported. Default 100 ms.
    ///   - reportsEverySave: Report committed saves too (default), not only failures.
    ///   - report: Called with each event, on the thread that did the work.
    public init(slowFetchThreshold: Duration = .milliseconds(100), reportsEverySave: Bool = true,
                _ report: @escaping @Sendable (StoreEvent) -> Void) {
        self.slowFetchThreshold = slowFetchThreshold
        self.reportsEverySave = reportsEverySave
        self.box = Box(report)
    }

    /// Sends `event` to the closure.
    public func report(_ event: StoreEvent) { box.report(event) }

    /// Reporters are equal when they share the closure (a copy of the same
    /// reporter) and the settings.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box && lhs.slowFetchThreshold == rhs.slowFetchThreshold && lhs.reportsEverySave == rhs.reportsEverySave
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(box))
    }

    /// The closure, held by reference so that a reporter has an identity.
    private final class Box: Sendable {
        let report: @Sendable (StoreEvent) -> Void
        init(_ report: @escaping @Sendable (StoreEvent) -> Void) { self.report = report }
    }
}
