extension PersistentContainer {
    /// Stops the container for good, as a server does on SIGTERM: takes no
    /// new ``performBackgroundTask(_:)`` bodies (they throw
    /// ``KuraError/storeClosed(path:)``), waits until every body already
    /// taken has run (a save in one finishes, and is acknowledged to its
    /// caller), then closes the store, which stops its commit watchers.
    ///
    /// ```swift
    /// // in a service's shutdown handler
    /// await container.shutDown()
    /// ```
    ///
    /// Contexts of your own (``newContext()``, a ``BackgroundContext``)
    /// are yours to finish first: once the store is closed, what they do
    /// throws ``KuraError/storeClosed(path:)`` and saves nothing.
    public func shutDown() async {
        await backgroundPool.drain()
        store.close()
    }
}
