import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a session's output goes: a file descriptor (standard output), a
/// named file, or a closure (tests, apps). Writes to a descriptor go out in
/// large pieces, and every one is checked: output that can't be written (a
/// full disk, `/dev/full`, a closed standard output) is an error, never
/// lost without a word.
///
/// A named file is written under a temporary name beside it and renamed to
/// its name only once complete (``close()``); a failed one is removed, so a
/// file of that name is always whole.
public final class OutputSink {
    private enum Target {
        case lines((String) -> Void)
        case descriptor(Int32)
        /// A temporary file, renamed to `path` when closed.
        case file(descriptor: Int32, temporary: String, path: String)
    }

    private var target: Target
    /// What the output is, for messages: "standard output", or the file's name.
    let name: String
    private var buffer: [UInt8] = []
    /// The first write that failed; nothing is written after it.
    private(set) var failure: InspectError?
    private var isClosed = false

    /// Lines handed to `write`, one call each.
    public init(lines write: @escaping (String) -> Void) {
        target = .lines(write)
        name = "the output"
    }

    private init(descriptor: Int32, name: String) {
        target = .descriptor(descriptor)
        self.name = name
        buffer.reserveCapacity(1 << 16)
    }

    /// The process's standard output, written with `write(2)`.
    public static func standardOutput() -> OutputSink {
        OutputSink(descriptor: STDOUT_FILENO, name: "standard output")
    }

    /// A new file at `path` (replacing one that is there, once complete),
    /// written under a temporary name in the same directory until ``close()``.
    ///
    /// - Throws: ``InspectError`` when the directory can't take a file.
    public static func file(at path: String) throws -> OutputSink {
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        var template = Array(((directory.isEmpty ? "" : directory + "/") + ".\(base).kura-XXXXXX").utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw InspectError("can't write \(path): \(String(cString: strerror(errno)))")
        }
        _ = fchmod(descriptor, 0o644)
        let sink = OutputSink(descriptor: descriptor, name: path)
        sink.target = .file(descriptor: descriptor, temporary: String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), path: path)
        return sink
    }

    /// Writes `line` and a line break (in the buffer until it fills). After
    /// a failure, nothing more is written.
    public func write(_ line: String) {
        guard failure == nil, !isClosed else { return }
        switch target {
        case .lines(let write):
            write(line)
        case .descriptor, .file:
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            if buffer.count >= 1 << 16 { try? flush() }
        }
    }

    /// Writes what is buffered.
    /// - Throws: ``InspectError`` naming the output and why it failed
    ///   (the first failure, every time after it).
    public func flush() throws(InspectError) {
        if let failure { throw failure }
        guard !buffer.isEmpty else { return }
        let descriptor: Int32
        switch target {
        case .lines: return
        case .descriptor(let number), .file(let number, _, _): descriptor = number
        }
        var written = 0
        let count = buffer.count
        while written < count {
            let result = buffer.withUnsafeBytes { writeBytes(descriptor, $0.baseAddress! + written, count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                let failure = InspectError("can't write \(name): \(String(cString: strerror(errno)))")
                self.failure = failure
                buffer.removeAll()
                throw failure
            }
            written += result
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, and for a named file makes it durable and gives it its
    /// name (or, when anything failed, removes it).
    public func close() throws(InspectError) {
        guard !isClosed else {
            if let failure { throw failure }
            return
        }
        defer { isClosed = true }
        guard case .file(let descriptor, let temporary, let path) = target else {
            try flush()
            return
        }
        do throws(InspectError) {
            try flush()
            guard fsync(descriptor) == 0 else {
                throw InspectError("can't write \(name): \(String(cString: strerror(errno)))")
            }
            guard closeDescriptor(descriptor) == 0 else {
                throw InspectError("can't write \(name): \(String(cString: strerror(errno)))")
            }
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw InspectError("can't write \(path): \(reason)")
            }
        } catch {
            _ = closeDescriptor(descriptor)
            unlink(temporary)
            failure = failure ?? error
            throw error
        }
    }

    /// Gives up a named file: its temporary file is removed.
    func discard() {
        guard !isClosed else { return }
        isClosed = true
        if case .file(let descriptor, let temporary, _) = target {
            _ = closeDescriptor(descriptor)
            unlink(temporary)
        }
    }

    deinit {
        if case .file = target, !isClosed { discard() }
    }
}

// The system's calls, named apart from the sink's own methods.
private func writeBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
