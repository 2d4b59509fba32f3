import Foundation
import Kura
import KuraTestSupport
import Testing

/// Output that can't be written is an error with a message and a non-zero
/// exit status, and a file kura names is whole or absent: on `/dev/full`,
/// with standard output closed, and on a real full file system (a small
/// tmpfs mounted in a mount namespace of the test's own).
@Suite struct OutputFailureTests {
    /// Runs `kura` with `arguments`, its standard output going to `output`;
    /// returns its status and what it wrote to standard error.
    static func run(_ arguments: [String], output: ChildProcess.Stream) throws -> (status: Int32, error: String) {
        let errorPath = NSTemporaryDirectory() + "kura-stderr-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        let child = try ChildProcess(KuraTool.path, arguments, standardInput: .null, standardOutput: output, standardError: .file(errorPath))
        let termination = try child.wait()
        let error = try String(contentsOfFile: errorPath, encoding: .utf8)
        guard case .exited(let status) = termination else { throw ChildProcess.Failure(description: "\(termination): \(error)") }
        return (status, error)
    }

    @Test(arguments: [
        ["export"], ["export", "--format", "csv", "Book"], ["dump", "Book"], ["fetch", "Book"], ["count", "Book"], ["stats"],
    ])
    func aCommandWritingToAFullDeviceFailsWithAMessage(command: [String]) throws {
        let store = try BookStore()
        let arguments = [command[0], store.path] + command.dropFirst()
        let result = try Self.run(arguments, output: .file("/dev/full"))
        #expect(result.status == 1, "\(arguments)")
        #expect(result.error.contains("can't write standard output: No space left on device"), "\(result.error)")
    }

    @Test func aCommandWithItsStandardOutputClosedFailsWithAMessage() throws {
        let store = try BookStore()
        let errorPath = store.directory.file("stderr")
        let child = try ChildProcess("/bin/sh", ["-c", "exec \"$0\" export \"$1\" Book >&- 2>\"$2\"", KuraTool.path, store.path, errorPath],
                                     standardInput: .null, standardOutput: .null)
        #expect(try child.wait() == .exited(1))
        #expect(try String(contentsOfFile: errorPath, encoding: .utf8).contains("can't write standard output: Bad file descriptor"))
    }

    @Test func backupNamesPassThroughUntouched() throws {
        let store = try BookStore()
        for name in ["a\\b.kura", "ends with a backslash\\", "it's \"quoted\".kura"] {
            let copy = store.directory.file(name)
            let result = try Self.run(["backup", store.path, copy], output: .null)
            #expect(result.status == 0, "\(name): \(result.error)")
            #expect(FileManager.default.fileExists(atPath: copy), "\(name)")
        }
        // In the shell, a backslash escapes only the quote and itself.
        let session = try runSession(path: store.path, [
            "backup '\(store.directory.file("x\\y.kura"))'", "backup '\(store.directory.file("z\\\\"))'",
        ])
        #expect(session.error == nil, "\(String(describing: session.error))")
        #expect(FileManager.default.fileExists(atPath: store.directory.file("x\\y.kura")))
        #expect(FileManager.default.fileExists(atPath: store.directory.file("z\\")))
    }

    /// Runs `script` with `sh` in a mount namespace of its own (as root, or
    /// as root of a user namespace), where it may mount a tmpfs.
    static func inMountNamespace(_ script: String, _ arguments: [String]) throws -> String {
        let asRoot = getuid() == 0
        let child = try ChildProcess("/usr/bin/unshare", (asRoot ? ["-m"] : ["-r", "-m"]) + ["/bin/sh", "-c", script, "sh"] + arguments,
                                     standardInput: .null, standardOutput: .pipe)
        let output = String(decoding: child.standardOutput!.readDataToEndOfFile(), as: UTF8.self)
        #expect(try child.wait() == .exited(0), "\(output)")
        return output
    }

    @Test func onAFullFileSystemBackupsAndOutputFilesLeaveNothingHalfWritten() throws {
        let store = try BookStore()
        let mount = store.directory.file("full")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let output = try Self.inMountNamespace("""
            set -u
            kura=$1; store=$2; dir=$3
            mount -t tmpfs -o size=4m tmpfs "$dir" || { echo "mount failed"; exit 1; }
            dd if=/dev/zero of="$dir/fill" bs=4096 2>/dev/null
            "$kura" backup "$store" "$dir/copy.kura" >/dev/null 2>"$dir/../backup.err"; echo "backup $?"
            "$kura" backup "$store" "$dir/copy.kura" --compact >/dev/null 2>>"$dir/../backup.err"; echo "compact $?"
            printf '.once %s\\nexport Book\\n' "$dir/once.jsonl" | "$kura" inspect "$store" >/dev/null 2>"$dir/../once.err"; echo "once $?"
            printf '.output %s\\ndump Book\\n' "$dir/output.jsonl" | "$kura" inspect "$store" >/dev/null 2>"$dir/../output.err"; echo "output $?"
            "$kura" export "$store" Book > "$dir/export.jsonl" 2>"$dir/../export.err"; echo "export $?"
            "$kura" create "$dir/created.kura" --model-from "$store" >/dev/null 2>"$dir/../create.err"; echo "create $?"
            echo "files: $(ls -A "$dir" | grep -v -e '^fill$' -e '^export.jsonl$' | tr '\\n' ' ')"
            rm -f "$dir/export.jsonl"
            "$kura" backup "$store" "$dir/../retry.kura" >/dev/null 2>&1; echo "retry $?"
            """, [KuraTool.path, store.path, mount])
        #expect(output.contains("backup 1\n") && output.contains("compact 1\n"), "\(output)")
        #expect(output.contains("once 1\n") && output.contains("output 1\n") && output.contains("export 1\n"), "\(output)")
        #expect(output.contains("create 1\n"), "\(output)")
        // (export.jsonl is the shell's, made by its redirection.)
        #expect(output.contains("files: \n"), "nothing half written stays: \(output)")
        #expect(output.contains("retry 0\n"), "\(output)")
        let errors = try ["backup", "once", "output", "export", "create"].map { try String(contentsOfFile: store.directory.file("\($0).err"), encoding: .utf8) }
        for error in errors { #expect(error.contains("No space left on device") || error.contains("the disk is full"), "\(error)") }
    }

    @Test func openingAStoreOnAFullFileSystemIsAnErrorNotASignal() throws {
        let store = try BookStore()
        let mount = store.directory.file("full")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        let output = try Self.inMountNamespace("""
            kura=$1; helper=$2; store=$3; dir=$4
            mount -t tmpfs -o size=2m tmpfs "$dir" || { echo "mount failed"; exit 1; }
            cp "$store" "$dir/s.kura"
            dd if=/dev/zero of="$dir/fill" bs=4096 2>/dev/null
            rm -f "$dir/s.kura-lock"
            "$kura" check "$dir/s.kura" >/dev/null 2>"$dir/../check.err"; echo "check $?"
            "$kura" count "$dir/s.kura" Book 2>/dev/null; echo "count $?"
            rm -f "$dir/s.kura-lock"
            "$helper" check-store "$dir/s.kura" >"$dir/../helper.out" 2>&1; echo "library $?"
            """, [KuraTool.path, Helper.path, store.path, mount])
        // Read-only, with no lock file and no room to make one, kura reads
        // without one; the library opening it as apps do says the disk is full.
        #expect(output.contains("check 0\n") && output.contains("count 0\n"), "\(output)")
        #expect(output.contains("library 1\n"), "\(output)")
        let library = try String(contentsOfFile: store.directory.file("helper.out"), encoding: .utf8)
        #expect(library.contains("the disk is full"), "\(library)")
    }
}
