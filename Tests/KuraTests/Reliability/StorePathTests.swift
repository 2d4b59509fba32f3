import Foundation
import Kura
import KuraTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One store file reached by different paths, and paths that are not store
/// files at all.
@Suite(.serialized) struct StorePathTests {
    @Test func twoProcessesIncrementingThroughTheFileAndASymlinkLoseNoUpdate() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("counter.kura")
        let container = try PersistentContainer(path: path, model: ConcurrencyWorkload.model())
        try ConcurrencyWorkload.prepare(container)
        container.close()
        // A symbolic link to the file, and one to its directory.
        let fileLink = directory.file("link.kura")
        #expect(symlink(path, fileLink) == 0)
        let directoryLink = directory.file("alias")
        #expect(symlink(directory.path, directoryLink) == 0)

        let perProcess = 150
        let processes = try [path, fileLink, directoryLink + "/counter.kura"].map {
            try Helper.start(["increment", $0, String(perProcess)])
        }
        for process in processes {
            let output = String(decoding: process.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
            #expect(try process.wait() == .exited(0), "\(output)")
        }
        let reopened = try PersistentContainer(path: fileLink, model: ConcurrencyWorkload.model())
        let (a, b) = try ConcurrencyWorkload.counters(reopened)
        #expect(a == 3 * perProcess && b == 3 * perProcess, "lost updates: \(a), \(b)")
        #expect(try reopened.store.check().isConsistent)
        // One lock file, beside the real file: none was made for the links.
        #expect(!FileManager.default.fileExists(atPath: fileLink + "-lock"))
        #expect(FileManager.default.fileExists(atPath: path + "-lock"))
    }

    @Test func theSameFileOpenedTwiceInOneProcessThroughASymlinkIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.kura")
        let container = try PersistentContainer(path: path, model: .news())
        let link = directory.file("link.kura")
        #expect(symlink(path, link) == 0)
        #expect(throws: KuraError.storage(path: link, failure: .alreadyOpen)) {
            try PersistentContainer(path: link, model: .news())
        }
        container.close()
    }

    @Test func aStoreWithASecondHardLinkIsRefusedWithAClearError() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store.kura")
        try PersistentContainer(path: path, model: .news()).close()
        let second = directory.file("second.kura")
        #expect(link(path, second) == 0)
        for name in [path, second] {
            let error = #expect(throws: KuraError.self) { try PersistentContainer(path: name, model: .news()) }
            #expect(error == .storage(path: name, failure: .hardLinked(links: 2)))
            #expect(error?.localizedDescription.contains("2 hard links") == true)
        }
        #expect(!FileManager.default.fileExists(atPath: second + "-lock"), "a refused open leaves no lock file")
    }

    @Test func aFIFOADirectoryOrADeviceIsAClearErrorAtOnce() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("fifo.kura")
        #expect(mkfifo(fifo, 0o644) == 0)
        let start = Date()
        for (path, kind) in [(fifo, "a FIFO (named pipe)"), (directory.path, "a directory"), ("/dev/null", "a character device")] {
            #expect(throws: KuraError.storage(path: path, failure: .notARegularFile(kind))) {
                try PersistentContainer(path: path, model: .news())
            }
            var readOnly = StoreOptions()
            readOnly.isReadOnly = true
            #expect(throws: KuraError.storage(path: path, failure: .notARegularFile(kind))) {
                try PersistentContainer(path: path, options: readOnly)
            }
        }
        #expect(Date().timeIntervalSince(start) < 5)

        // The tool too, in a child process with a deadline: it must not hang in open().
        let kura = try ChildProcess(
            Helper.buildDirectory.appendingPathComponent("kura").path, ["check", fifo],
            standardOutput: .pipe, standardError: .pipe)
        let errors = String(decoding: kura.standardError!.readDataToEndOfFile(), as: UTF8.self)
        #expect(try kura.wait(timeout: 10) == .exited(1))
        #expect(errors == "error: '\(fifo)': it is a FIFO (named pipe), not a store file\n")
    }

    @Test func aStoreInADirectoryItsUserCantWriteIsExplainedAndKuraReadsItWithoutALock() throws {
        let directory = try TemporaryDirectory()
        let storeDirectory = directory.file("readonly")
        try FileManager.default.createDirectory(atPath: storeDirectory, withIntermediateDirectories: false)
        let path = storeDirectory + "/news.kura"
        do {
            let container = try PersistentContainer(path: path, model: .news())
            let context = container.newContext()
            for index in 0..<3 { News(context: context).sortOrder = index }
            try context.save()
            container.close()
        }
        try FileManager.default.removeItem(atPath: path + "-lock")
        // The directory (and the way to it) readable but not writable by the
        // user who reads: as root, the reader runs as nobody.
        #expect(chmod(directory.path, 0o755) == 0)
        #expect(chmod(storeDirectory, geteuid() == 0 ? 0o755 : 0o555) == 0)
        defer { chmod(storeDirectory, 0o755) }
        let kuraPath = Helper.buildDirectory.appendingPathComponent("kura").path
        let asReader: [String] = geteuid() == 0
            ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", kuraPath]
            : [kuraPath]

        let count = try ChildProcess(asReader[0], Array(asReader.dropFirst()) + ["count", path, "News"],
                                     standardOutput: .pipe, standardError: .pipe)
        let output = String(decoding: count.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: count.standardError!.readDataToEndOfFile(), as: UTF8.self)
        #expect(try count.wait() == .exited(0), "\(errors)")
        #expect(output == "3\n")
        #expect(!FileManager.default.fileExists(atPath: path + "-lock"))

        // The library without the option says why it can't open the store.
        let (termination, message) = try Helper.runAs(asReader.count > 1, ["open-read-only", path])
        #expect(termination == .exited(1))
        #expect(message.contains("permission denied: the directory '\(storeDirectory)' is not writable, and LMDB must create the lock file"), "\(message)")
    }
}
