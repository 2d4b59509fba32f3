import Foundation
@testable import KuraCore

/// An engine that hands everything to an in-memory engine: tests subclass
/// it to add an ability or to break a promise on purpose.
class ForwardingEngine: StorageEngine, @unchecked Sendable {
    let inner: InMemoryEngine

    init(name: String) {
        inner = InMemoryEngine(name: name)
    }

    var location: String { inner.location }
    var isReadOnly: Bool { inner.isReadOnly }
    func performRead(_ body: (any StorageTransaction) throws -> Void) throws { try inner.performRead(body) }
    func performWrite(_ body: (any StorageTransaction) throws -> Void) throws { try inner.performWrite(body) }
    func performCheckedRead(spaces: Set<String>, _ body: (any StorageTransaction) throws -> Void) throws {
        try inner.performCheckedRead(spaces: spaces, body)
    }
    func space(named name: String) throws -> StorageSpace? { try inner.space(named: name) }
    func latestCommit() throws -> Int { try inner.latestCommit() }
    func watchCommits(_ onCommit: @escaping @Sendable (ReportedCommit) -> Void) throws -> any CommitWatch {
        try inner.watchCommits(onCommit)
    }
    func close() { inner.close() }
}
