import Foundation

/// How a store is opened: what every engine honours, and each engine's own
/// options (``subscript(engine:)``), which its module names (LMDB's map
/// size and durability are `options.lmdb`, declared in `Kura`).
///
/// ```swift
/// var options = StoreOptions()
/// options.tracksHistory = true
/// options.lmdb.maximumSize = 1 << 30          // LMDB: 1 GiB at most
/// let container = try PersistentContainer(path: "news.kura", model: model, options: options)
/// ```
public struct StoreOptions: Sendable, Hashable {
    /// Open without writing: saves throw ``KuraError/storeReadOnly(path:)``,
    /// the store never changes, and its writer is never blocked.
    public var isReadOnly = false
    /// Whether each save is recorded in the store's history, for other
    /// processes to read and merge (``PersistentStore/history(after:)``):
    /// Core Data's persistent history tracking. Off by default, as there;
    /// every process that saves should turn it on. Default `false`.
    public var tracksHistory = false
    /// The most threads ``PersistentContainer/performBackgroundTask(_:)``
    /// runs bodies on at once (a server's request handlers share them;
    /// more requests wait their turn, holding no thread). Default: twice the
    /// processor count, at least 4.
    public var backgroundThreadLimit = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    /// Where the store reports its saves, slow fetches, migrations and
    /// connection events (for a server's logs and metrics); `nil`, the
    /// default, reports nothing and reads no clock.
    public var eventReporter: StoreEventReporter?

    /// Each engine's options set so far, by type.
    private var engines: [ObjectIdentifier: SetEngineOptions] = [:]

    /// The defaults: read-write, no history, each engine's defaults.
    public init() {}

    /// The options of the engine whose options are `Options`: the defaults
    /// (`Options()`) until set. An engine's module declares a property for
    /// its own (`options.lmdb`) on top of this.
    public subscript<Options: EngineOptions>(engine type: Options.Type) -> Options {
        get { engines[ObjectIdentifier(type)]?.value.base as? Options ?? Options() }
        // (The defaults aren't kept: options set back to them equal options never set.)
        set { engines[ObjectIdentifier(type)] = newValue == Options() ? nil : SetEngineOptions(value: newValue) }
    }
}

/// The options a storage engine owns, kept in ``StoreOptions`` (see
/// ``StoreOptions/subscript(engine:)``) so that one value describes how a
/// store is opened whatever its engine.
public protocol EngineOptions: Sendable, Hashable {
    /// The engine's defaults.
    init()
}

/// One engine's options, kept type-erased. `@unchecked`: the value is an
/// ``EngineOptions``, which is `Sendable` (the subscript only stores those).
private struct SetEngineOptions: @unchecked Sendable, Hashable {
    let value: AnyHashable

    init(value: some EngineOptions) { self.value = AnyHashable(value) }
}
