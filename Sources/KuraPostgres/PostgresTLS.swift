// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import KuraCore
import PostgresNIO

/// TLS as a `postgres://` URL asks for it, with libpq's parameters:
/// `sslmode` and `sslrootcert`.
///
/// | `sslmode` | encrypted | server's certificate checked |
/// |---|---|---|
/// | `disable` (Kura's default) | no | – |
/// | `prefer` | when the server offers TLS | no |
/// | `require` | always: a server without TLS is refused | no (as libpq, unless `sslrootcert` is given: then as `verify-ca`) |
/// | `verify-ca` | always | against `sslrootcert` (or the system's roots) |
/// | `verify-full` | always | against the roots, and its name against the URL's host |
///
/// A Unix socket never uses TLS (as libpq: `sslmode` is ignored there).
enum PostgresTLS {
    /// The connection's TLS for the URL's query items, to `host`.
    static func configuration(query: [String: String], host: String, invalid: (String) -> KuraError) throws -> PostgresConnection.Configuration.TLS {
        let mode = query["sslmode"] ?? "disable"
        let root = query["sslrootcert"]
        var tls = TLSConfiguration.makeClientConfiguration()
        switch mode {
        case "disable":
            return .disable
        case "allow", "prefer":
            tls.certificateVerification = .none
            return .prefer(try context(tls, invalid: invalid))
        case "require" where root == nil:
            tls.certificateVerification = .none
        case "require", "verify-ca":
            tls.certificateVerification = .noHostnameVerification
        case "verify-full":
            tls.certificateVerification = .fullVerification
        default:
            throw invalid("sslmode=\(mode) is not one of disable, allow, prefer, require, verify-ca, verify-full")
        }
        if let root {
            guard FileManager.default.isReadableFile(atPath: root) else { throw invalid("sslrootcert=\(root) is not a file this process can read") }
            tls.trustRoots = .file(root)
        }
        _ = host  // the name checked (verify-full) and sent for SNI: the configuration's host
        return .require(try context(tls, invalid: invalid))
    }

    private static func context(_ configuration: TLSConfiguration, invalid: (String) -> KuraError) throws -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw invalid("TLS can't be set up: \(error)")
        }
    }

    /// Whether `error` is TLS refusing the server (its certificate, its
    /// name): connecting again won't change that.
    static func isRefusal(_ error: any Error) -> Bool {
        let module = String(reflecting: type(of: error)).prefix { $0 != "." }
        return module == "NIOSSL"
    }

    /// The error for a server TLS refused: not one connecting again fixes.
    static func refusal(_ error: any Error, location: String) -> KuraError {
        KuraError.storage(path: location, failure: .engine(
            code: 0, message: "can't connect: TLS refused the server (\(error)): "
                + "check sslrootcert, and that the URL's host is the name in the server's certificate"))
    }
}
#endif
