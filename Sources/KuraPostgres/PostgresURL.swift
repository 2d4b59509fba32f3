// Compiled with the PostgreSQL trait only (swift build --traits PostgreSQL).
#if PostgreSQL
import Foundation
import KuraCore
import PostgresNIO

/// The servers a `postgres://` URL names, in the order they are tried, and
/// which of them may serve a session (libpq's `target_session_attrs`).
struct PostgresServers: Sendable {
    /// One configuration per host, in the URL's order.
    let candidates: [Candidate]
    let sessionAttributes: SessionAttributes
    /// The URL without its password (what errors and events name).
    let location: String

    struct Candidate: Sendable {
        let configuration: PostgresConnection.Configuration
        /// `host:port`, or the socket's path: what an error names.
        let name: String
    }
}

/// Which servers of a URL's list may serve a connection, as libpq's
/// `target_session_attrs` says, checked once connected.
enum SessionAttributes: String, Sendable, CaseIterable {
    /// The first server that answers (the default).
    case any
    /// A server whose sessions may write (`transaction_read_only` off).
    case readWrite = "read-write"
    /// A server whose sessions can't write.
    case readOnly = "read-only"
    /// A server that isn't in recovery (not a standby).
    case primary
    /// A server in recovery (a hot standby).
    case standby
    /// A standby if one answers, else any server.
    case preferStandby = "prefer-standby"

    /// Whether a server in that state serves, on the pass of the list
    /// (`prefer-standby` makes two: standbys, then any).
    func accepts(inRecovery: Bool, readOnly: Bool, pass: Int) -> Bool {
        switch self {
        case .any: true
        case .readWrite: !readOnly
        case .readOnly: readOnly
        case .primary: !inRecovery
        case .standby: inRecovery
        case .preferStandby: pass > 1 || inRecovery
        }
    }

    /// How many times the list is tried.
    var passes: Int { self == .preferStandby ? 2 : 1 }
}

/// Reading a `postgres://` URL as libpq does: one host or several
/// (`host1:5432,host2:5433`, or `host=a,b&port=5432,5433`), Unix sockets
/// by their directory (`host=/run/postgresql`), `target_session_attrs`,
/// and TLS (``PostgresTLS``).
enum PostgresURL {
    /// The servers of `url`, and the URL without its password.
    static func servers(_ url: String) throws -> PostgresServers {
        func invalid(_ reason: String) -> KuraError {
            KuraError.storage(path: url, failure: .engine(code: 0, message: "not a PostgreSQL URL: \(reason)"))
        }
        guard let schemeEnd = url.range(of: "://"), ["postgres", "postgresql"].contains(url[..<schemeEnd.lowerBound]) else {
            throw invalid("it must start with postgres://")
        }
        // The authority may list hosts, which URLComponents can't read: it
        // reads the rest with one placeholder host in their place.
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let at = authority.lastIndex(of: "@")
        let userInfo = at.map { authority[..<$0] } ?? ""
        let hostList = at.map { authority[authority.index(after: $0)...] } ?? authority
        guard let components = URLComponents(string: "postgres://\(userInfo)@placeholder.invalid\(rest[authorityEnd...])") else {
            throw invalid("it can't be read as a URL")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw invalid("it names no database") }
        guard let user = components.user, !user.isEmpty else { throw invalid("it names no user") }
        let query = Dictionary((components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })

        let hosts = try hostsAndPorts(hostList: String(hostList), query: query, invalid: invalid)
        guard let attributes = SessionAttributes(rawValue: query["target_session_attrs"] ?? "any") else {
            throw invalid("target_session_attrs=\(query["target_session_attrs"]!) is not one of "
                + SessionAttributes.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let candidates = try hosts.map { host, port in
            if host.hasPrefix("/") {
                let path = "\(host)/.s.PGSQL.\(port)"
                return PostgresServers.Candidate(configuration: PostgresConnection.Configuration(
                    unixSocketPath: path, username: user, password: components.password, database: database), name: path)
            }
            return PostgresServers.Candidate(configuration: PostgresConnection.Configuration(
                host: host, port: port, username: user, password: components.password, database: database,
                tls: try PostgresTLS.configuration(query: query, host: host, invalid: invalid)), name: "\(host):\(port)")
        }
        let withoutPassword = userInfo.firstIndex(of: ":").map { userInfo[..<$0] } ?? userInfo
        let location = "\(url[..<schemeEnd.upperBound])\(at == nil ? "" : "\(withoutPassword)@")\(hostList)\(rest[authorityEnd...])"
        return PostgresServers(candidates: candidates, sessionAttributes: attributes, location: location)
    }

    /// The hosts and their ports: the authority's list, or the `host`
    /// parameter's (which wins, as in libpq); ports from each host's
    /// `:port`, else the `port` parameter (one for all, or one per host), else 5432.
    private static func hostsAndPorts(
        hostList: String, query: [String: String], invalid: (String) -> KuraError
    ) throws -> [(String, Int)] {
        var hosts: [(name: String, port: String?)] = []
        if let parameter = query["host"], !parameter.isEmpty {
            hosts = parameter.split(separator: ",", omittingEmptySubsequences: false).map { (String($0), nil) }
        } else if !hostList.isEmpty {
            for entry in hostList.split(separator: ",", omittingEmptySubsequences: false) {
                var name = Substring(entry)
                var port: String?
                if name.hasPrefix("["), let close = name.firstIndex(of: "]") {
                    // An IPv6 address, [::1] or [::1]:5432.
                    let after = name[name.index(after: close)...]
                    if after.hasPrefix(":") { port = String(after.dropFirst()) } else if !after.isEmpty { throw invalid("\(entry) is not a host") }
                    name = name[name.index(after: name.startIndex)..<close]
                } else if let colon = name.lastIndex(of: ":") {
                    port = String(name[name.index(after: colon)...])
                    name = name[..<colon]
                }
                hosts.append((name.removingPercentEncoding ?? String(name), port))
            }
        }
        guard !hosts.isEmpty, hosts.allSatisfy({ !$0.name.isEmpty }) else { throw invalid("it names no host") }
        let portParameter = query["port"].map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
        guard portParameter.count <= 1 || portParameter.count == hosts.count else {
            throw invalid("port names \(portParameter.count) ports for \(hosts.count) hosts")
        }
        return try hosts.enumerated().map { index, host in
            let text = host.port ?? (portParameter.count == 1 ? portParameter[0] : portParameter.isEmpty ? nil : portParameter[index])
            guard let text, !text.isEmpty else { return (host.name, 5432) }
            guard let port = Int(text) else { throw invalid("port \(text) is not a port number") }
            guard (1...65_535).contains(port) else { throw invalid("port \(port) is not between 1 and 65535") }
            return (host.name, port)
        }
    }
}
#endif
