// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import Kura
@testable import KuraCore
@testable import KuraPostgres
import KuraTestSupport
import Testing

/// TLS as libpq reads a URL (`sslmode`, `sslrootcert`), against a
/// throwaway server on loopback with certificates made by openssl here.
@Suite(.serialized, .timeLimit(.minutes(5))) struct TLSTests {
    /// A directory with a root, a server certificate it signed (for
    /// `localhost` only), its key, and a second root that signed nothing.
    struct Certificates {
        let directory: String
        var root: String { directory + "/root.crt" }
        var otherRoot: String { directory + "/other.crt" }
        var certificate: String { directory + "/server.crt" }
        var key: String { directory + "/server.key" }

        init() throws {
            directory = NSTemporaryDirectory() + "kura-tls-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            func openssl(_ arguments: String) throws {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
                process.arguments = arguments.split(separator: " ").map(String.init)
                process.currentDirectoryURL = URL(fileURLWithPath: directory)
                process.standardError = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else { throw ChildProcess.Failure(description: "openssl \(arguments) failed") }
            }
            try "subjectAltName=DNS:localhost\n".write(toFile: directory + "/san.ext", atomically: true, encoding: .utf8)
            try openssl("req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=Kura-test-root -keyout root.key -out root.crt")
            try openssl("req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=Another-root -keyout other.key -out other.crt")
            try openssl("req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr")
            try openssl("x509 -req -in server.csr -CA root.crt -CAkey root.key -CAcreateserial -days 2 -extfile san.ext -out server.crt")
            // The server runs as postgres (the tests as root): its key must be its own, and private.
            chmod(key, 0o600)
            chmod(directory, 0o755)
            if getuid() == 0, let user = getpwnam("postgres") {
                for file in [key, certificate] { chown(file, user.pointee.pw_uid, user.pointee.pw_gid) }
            }
        }
    }

    static func store(_ url: String) throws -> PersistentContainer {
        try PersistentContainer(store: .postgres(url: url), model: ConcurrencyWorkload.model())
    }

    @Test func verifyFullConnectsWithTheRightRootAndRefusesAWrongNameOrRootAndRequireNeverSendsPlainText() throws {
        let certificates = try Certificates()
        defer { try? FileManager.default.removeItem(atPath: certificates.directory) }
        let server = try PostgresTestServer(
            directory: NSTemporaryDirectory() + "kura-pg-tls-\(getpid())",
            serverOptions: "-c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=\(certificates.certificate) -c ssl_key_file=\(certificates.key)")
        defer { server.remove() }
        let database = URLComponents(string: try server.newDatabase())!.path.dropFirst()
        func url(host: String, _ query: String) -> String { "postgres://kura@\(host):\(server.port)/\(database)?\(query)" }
        func sessionUsesTLS(_ container: PersistentContainer) throws -> Bool {
            let engine = try #require(container.store.engine as? PostgresEngine)
            return try engine.withConnection { pooled in
                try pooled.connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: engine.logger)
                    .waitForAnswer().first?.decode(Bool.self) ?? false
            }
        }

        // verify-full, the right root, the certificate's name: connects, encrypted.
        let verified = try Self.store(url(host: "localhost", "sslmode=verify-full&sslrootcert=\(certificates.root)"))
        try ConcurrencyWorkload.prepare(verified)
        #expect(try sessionUsesTLS(verified))
        verified.close()

        // A name the certificate doesn't have (127.0.0.1): refused, saying why.
        let wrongName = try #require(throws: KuraError.self) {
            try Self.store(url(host: "127.0.0.1", "sslmode=verify-full&sslrootcert=\(certificates.root)"))
        }
        #expect(wrongName.storageFailure?.code == .engine && "\(wrongName)".contains("TLS refused"), "\(wrongName)")
        // A root that didn't sign it: refused.
        let wrongRoot = try #require(throws: KuraError.self) {
            try Self.store(url(host: "localhost", "sslmode=verify-full&sslrootcert=\(certificates.otherRoot)"))
        }
        #expect(wrongRoot.storageFailure?.code == .engine && "\(wrongRoot)".contains("TLS refused"), "\(wrongRoot)")
        // verify-ca checks the root, not the name.
        let byRoot = try Self.store(url(host: "127.0.0.1", "sslmode=verify-ca&sslrootcert=\(certificates.root)"))
        #expect(try sessionUsesTLS(byRoot))
        byRoot.close()
        // require: encrypted, nothing checked (as libpq).
        let required = try Self.store(url(host: "127.0.0.1", "sslmode=require"))
        #expect(try sessionUsesTLS(required))
        required.close()
        // disable: in plain text (what the test above tells apart).
        let plain = try Self.store(url(host: "127.0.0.1", "sslmode=disable"))
        #expect(try !sessionUsesTLS(plain))
        plain.close()
        // A bad mode or a missing root file: a clear error before connecting.
        #expect(throws: KuraError.self) { try Self.store(url(host: "localhost", "sslmode=always")) }
        let missing = try #require(throws: KuraError.self) {
            try Self.store(url(host: "localhost", "sslmode=verify-full&sslrootcert=/nonexistent/root.crt"))
        }
        #expect("\(missing)".contains("sslrootcert"))

        // A server without TLS (on loopback too): require refuses to connect
        // rather than send anything in plain text; prefer falls back, as libpq's.
        let plainServer = try PostgresTestServer(
            directory: NSTemporaryDirectory() + "kura-pg-plain-\(getpid())", serverOptions: "-c listen_addresses=127.0.0.1")
        defer { plainServer.remove() }
        let plainDatabase = URLComponents(string: try plainServer.newDatabase())!.path.dropFirst()
        let refused = try #require(throws: KuraError.self) {
            try Self.store("postgres://kura@127.0.0.1:\(plainServer.port)/\(plainDatabase)?sslmode=require")
        }
        #expect(refused.storageFailure?.code == .engine && "\(refused)".contains("TLS"), "\(refused)")
        let preferred = try Self.store("postgres://kura@127.0.0.1:\(plainServer.port)/\(plainDatabase)?sslmode=prefer")
        #expect(try !sessionUsesTLS(preferred))
        preferred.close()
    }
}
#endif
