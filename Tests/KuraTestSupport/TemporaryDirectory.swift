import Foundation

/// A directory under the system's temporary directory, removed with everything
/// in it when the value goes away. Every test gets its own.
public final class TemporaryDirectory: @unchecked Sendable {
    // @unchecked: `path` is immutable; the directory is only removed in deinit.
    public let path: String

    public init(function: String = #function) throws {
        let name = function.prefix(40).filter { $0.isLetter || $0.isNumber }
        var template = Array((NSTemporaryDirectory() + "kura-\(name)-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: created)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory.
    public func file(_ name: String) -> String {
        path + "/" + name
    }
}
