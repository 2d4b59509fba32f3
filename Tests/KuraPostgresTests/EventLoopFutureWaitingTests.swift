// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
@testable import KuraPostgres
import NIOCore
import NIOPosix
import Testing

/// The engine's blocking wait for an answer, away from any server.
@Suite struct EventLoopFutureWaitingTests {
    static let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    struct Refused: Error, Equatable {}

    @Test func anAnswerThatComesIsTheValueOrTheErrorTheLoopGaveIt() throws {
        let loop = Self.group.next()
        let later = loop.makePromise(of: Int.self)
        loop.scheduleTask(in: .milliseconds(50)) { later.succeed(42) }
        #expect(try later.futureResult.waitForAnswer(within: 10) == 42)
        #expect(try loop.makeSucceededFuture(7).waitForAnswer(within: 10) == 7)
        let failed = loop.makePromise(of: Int.self)
        loop.execute { failed.fail(Refused()) }
        #expect(throws: Refused()) { try failed.futureResult.waitForAnswer(within: 10) }
    }

    @Test func noAnswerWithinTheTimeAllowedIsAnErrorThatSaysHowLong() throws {
        let never = Self.group.next().makePromise(of: Int.self)
        defer { never.succeed(0) }
        let error = #expect(throws: NoAnswer.self) { try never.futureResult.waitForAnswer(within: 1) }
        #expect(error?.seconds == 1)
        #expect(error?.description == "no answer from the server in 1 s")
    }

    @Test func aStatementOnAConnectionThatClosedFailsWithinAFractionOfASecond() throws {
        let never = Self.group.next().makePromise(of: Int.self)
        defer { never.succeed(0) }
        let started = ContinuousClock.now
        #expect(throws: ConnectionLost.self) { try never.futureResult.waitForAnswer(within: 60, unlessClosed: { true }) }
        #expect(ContinuousClock.now - started < .seconds(1))
        // Seen closed only later: the grace counts from then.
        let closesLater = ContinuousClock.now + .milliseconds(300)
        let lateStart = ContinuousClock.now
        #expect(throws: ConnectionLost.self) {
            try never.futureResult.waitForAnswer(within: 60, unlessClosed: { ContinuousClock.now >= closesLater })
        }
        #expect(ContinuousClock.now - lateStart >= .milliseconds(500))
        // An answer that comes while the connection still stands is waited for.
        let later = Self.group.next().makePromise(of: Int.self)
        Self.group.next().scheduleTask(in: .milliseconds(1500)) { later.succeed(3) }
        #expect(try later.futureResult.waitForAnswer(within: 60, unlessClosed: { false }) == 3)
    }
}
#endif
