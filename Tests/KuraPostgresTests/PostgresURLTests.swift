// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
@testable import KuraCore
@testable import KuraPostgres
import Testing

/// URLs as libpq reads them: several hosts, their ports, sockets, and
/// `target_session_attrs`; a URL that isn't one says why.
@Suite struct PostgresURLTests {
    @Test func severalHostsAreTriedInOrderWithTheirPortsAndTheSessionsTheyMayServe() throws {
        let tcp = try PostgresURL.servers("postgres://app:secret@db1:5433,db2,[::1]:6000/news?target_session_attrs=read-write")
        #expect(tcp.candidates.map(\.name) == ["db1:5433", "db2:5432", "::1:6000"])
        #expect(tcp.sessionAttributes == .readWrite)
        #expect(!tcp.location.contains("secret") && tcp.location.hasPrefix("postgres://app@db1:5433,db2"))

        let sockets = try PostgresURL.servers("postgres://kura@/news?host=/run/a,/run/b&port=5432,5433&target_session_attrs=prefer-standby")
        #expect(sockets.candidates.map(\.name) == ["/run/a/.s.PGSQL.5432", "/run/b/.s.PGSQL.5433"])
        #expect(sockets.sessionAttributes == .preferStandby && sockets.sessionAttributes.passes == 2)

        let one = try PostgresURL.servers("postgres://kura@/news?host=/run/a&port=7000")
        #expect(one.candidates.map(\.name) == ["/run/a/.s.PGSQL.7000"] && one.sessionAttributes == .any)
    }

    @Test func whoServesEachKindOfSession() {
        #expect(SessionAttributes.readWrite.accepts(inRecovery: false, readOnly: false, pass: 1))
        #expect(!SessionAttributes.readWrite.accepts(inRecovery: true, readOnly: true, pass: 1))
        #expect(SessionAttributes.standby.accepts(inRecovery: true, readOnly: true, pass: 1))
        #expect(!SessionAttributes.primary.accepts(inRecovery: true, readOnly: true, pass: 1))
        #expect(!SessionAttributes.preferStandby.accepts(inRecovery: false, readOnly: false, pass: 1))
        #expect(SessionAttributes.preferStandby.accepts(inRecovery: false, readOnly: false, pass: 2))
    }

    @Test func aURLThatIsntOneSaysWhy() {
        func reason(_ url: String) -> String {
            do {
                _ = try PostgresURL.servers(url)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(reason("postgres://kura@a,b/news?port=1,2,3").contains("3 ports for 2 hosts"))
        #expect(reason("postgres://kura@a/news?target_session_attrs=writable").contains("target_session_attrs=writable is not one of"))
        #expect(reason("postgres://kura@a:99999/news").contains("not between 1 and 65535"))
        #expect(reason("postgres://kura@a,/news").contains("names no host"))
        #expect(reason("mysql://kura@a/news").contains("must start with postgres://"))
    }
}
#endif
