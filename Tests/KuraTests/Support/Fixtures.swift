import Foundation
import KuraTestSupport

/// Store files kept in `Tests/KuraTests/Fixtures`, written by earlier
/// versions of Kura. Tests open copies, never the files themselves.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// Copies the fixture `name` into `directory` and returns the copy's path.
    static func copy(_ name: String, into directory: TemporaryDirectory) throws -> String {
        let path = directory.file(name)
        try FileManager.default.copyItem(atPath: Self.directory.appendingPathComponent(name).path, toPath: path)
        return path
    }
}
