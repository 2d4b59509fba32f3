import Foundation
import Kura
import KuraTestSupport
import Testing

/// `check` is the tool for diagnosing damage, so it must report it and
/// never die of it. Stores are damaged in generated ways (random bytes
/// flipped in data pages, whole pages overwritten, meta fields changed),
/// each reproducible from its number, and checked by `kura check` and by
/// the library's `check()` in child processes, where a crash shows as a
/// signal instead of ending the test run.
///
/// `KURA_DAMAGE_TRIALS` sets how many damaged stores (default 48).
@Suite(.serialized) struct DamagedFileTests {
    /// Three healthy stores to damage: small records, values on overflow
    /// pages, and one with deletions (free pages).
    static func makeBaseStores(in directory: TemporaryDirectory) throws -> [String] {
        var paths: [String] = []
        for (kind, (count, bodySize, deleteEvery)) in [(300, 40, 0), (60, 9000, 0), (800, 200, 3)].enumerated() {
            let path = directory.file("base\(kind).kura")
            let container = try PersistentContainer(path: path, model: .news())
            let context = container.newContext()
            var all: [News] = []
            for index in 0..<count {
                let news = News(context: context)
                news.title = "News \(index)"
                news.body = String(repeating: "body \(index) ", count: bodySize / 8 + 1)
                news.sortOrder = index % 97
                all.append(news)
            }
            try context.save()
            if deleteEvery > 0 {
                for (index, news) in all.enumerated() where index % deleteEvery == 0 { context.delete(news) }
                try context.save()
            }
            #expect(try container.store.check().isConsistent)
            container.close()
            paths.append(path)
        }
        return paths
    }

    /// Damages a copy of `base` in the way trial `number` picks.
    static func damage(_ base: String, into path: String, number: UInt64) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: base)))
        var random = SplitMix64(seed: number &* 0x9E37_79B9 &+ 11)
        let pageSize = 4096
        let pages = bytes.count / pageSize
        let how: String
        switch number % 8 {
        case 0, 1, 2, 3, 4:
            // 64 random bytes changed anywhere in the data pages.
            for _ in 0..<64 {
                let offset = Int.random(in: (2 * pageSize)..<bytes.count, using: &random)
                bytes[offset] = UInt8.random(in: 0...255, using: &random)
            }
            how = "64 random bytes in data pages"
        case 5:
            // One data page overwritten with random bytes.
            let page = Int.random(in: 2..<pages, using: &random)
            for offset in (page * pageSize)..<((page + 1) * pageSize) { bytes[offset] = UInt8.random(in: 0...255, using: &random) }
            how = "page \(page) overwritten"
        case 6:
            // Page headers: numbers, flags and bounds changed in a few pages.
            for _ in 0..<4 {
                let page = Int.random(in: 2..<pages, using: &random)
                let field = [0, 10, 12, 14][Int.random(in: 0..<4, using: &random)]
                bytes[page * pageSize + field] = UInt8.random(in: 0...255, using: &random)
            }
            how = "page header fields"
        default:
            // A root, a count or the last page in both meta pages.
            let field = [16 + 24 + 48 + 40, 16 + 24 + 48 + 6, 16 + 24 + 96][Int.random(in: 0..<3, using: &random)]
            let value = UInt8.random(in: 1...255, using: &random)
            for meta in 0..<2 { bytes[meta * pageSize + field] ^= value }
            how = "meta field at \(field)"
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return how
    }

    @Test func checkReportsDamageInGeneratedFilesAndNeverCrashes() throws {
        let trials = UInt64(ProcessInfo.processInfo.environment["KURA_DAMAGE_TRIALS"] ?? "") ?? 48
        let directory = try TemporaryDirectory()
        let bases = try Self.makeBaseStores(in: directory)
        let kura = Helper.buildDirectory.appendingPathComponent("kura").path
        var found = 0
        var refusedAtOpen = 0
        for number in 0..<trials {
            let path = directory.file("damaged\(number).kura")
            let how = try Self.damage(bases[Int(number % 3)], into: path, number: number)
            let tool = try ChildProcess(kura, ["check", path], standardOutput: .pipe, standardError: .pipe)
            let toolOutput = String(decoding: tool.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
            let toolErrors = String(decoding: tool.standardError!.readDataToEndOfFile(), as: UTF8.self)
            let toolEnd = try tool.wait(timeout: 60)
            let crashed = !(toolEnd == .exited(0) || toolEnd == .exited(1))
            if crashed { _ = try? FileManager.default.copyItem(atPath: path, toPath: NSTemporaryDirectory() + "kura-damaged-trial-\(number).kura") }
            #expect(!crashed, "kura check of trial \(number) (\(how)) ended with \(toolEnd); the file is kept as kura-damaged-trial-\(number).kura in the temporary directory")
            if toolEnd == .exited(1) {
                #expect(toolErrors.hasPrefix("error: "), "trial \(number): \(toolErrors)")
                found += 1
            } else {
                #expect(toolOutput.contains("ok: "), "trial \(number): \(toolOutput)")
            }
            if toolErrors.contains("damaged") && !toolOutput.contains("records") { refusedAtOpen += 1 }

            let (libraryEnd, libraryOutput) = try Helper.run(["check-store", path])
            #expect(libraryEnd == .exited(0) || libraryEnd == .exited(1),
                    "check() of trial \(number) (\(how)) ended with \(libraryEnd): \(libraryOutput.prefix(300))")
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-lock")
        }
        #expect(found > Int(trials) / 2, "most damage should be found: \(found) of \(trials)")
        print("damaged files: \(trials) trials, \(found) reported damaged (\(refusedAtOpen) refused at open), 0 crashes")
    }
}
