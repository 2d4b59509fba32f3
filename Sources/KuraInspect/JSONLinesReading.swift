import Dispatch
import Foundation
import Synchronization

/// Reads an import's JSON lines into ``ImportRecord``s on a thread of its
/// own, a chunk of lines at a time, while the caller inserts the records of
/// the chunks before: parsing and converting (about a quarter of an
/// import's work) overlaps with inserting, on a second core.
///
/// Chunks reach the caller in order, at most ``chunksAhead`` ahead of it. A
/// chunk with a bad line carries the records before that line and the
/// failure, and reading stops there; so the caller meets problems in line
/// order, as a reading on one thread would. When the caller stops early (an
/// error of its own), the reading thread stops too before this returns.
enum JSONLinesReading {
    static let chunkSize = 1024
    static let chunksAhead = 8

    /// The records of some lines, and the failure that ended them, if any.
    typealias Chunk = (records: [ImportRecord], failure: ObjectImport.Failure?)

    /// Calls `insert` with every record of `bytes`, in line order.
    static func forEachRecord(
        in bytes: [UInt8], reader: ImportRecordReader, _ insert: (ImportRecord) throws -> Void
    ) throws {
        // Split as bytes: splitting a String by Characters costs more than parsing it.
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        let chunkCount = (lines.count + chunkSize - 1) / chunkSize
        guard chunkCount > 1 else {
            var reader = reader
            let chunk = read(lines[...], firstNumber: 1, with: &reader)
            for record in chunk.records { try insert(record) }
            if let failure = chunk.failure { throw failure }
            return
        }
        let handoff = Handoff()
        let thread = Thread {
            var reader = reader
            for index in 0..<chunkCount {
                handoff.room.wait()
                // Records the caller is done with are let go of here, on the thread that made them:
                // freed on the caller's thread, each would lock this thread's malloc arena.
                let (isStopped, spent) = handoff.state.withLock { state in
                    defer { state.spent.removeAll() }
                    return (state.isStopped, state.spent)
                }
                withExtendedLifetime(spent) {}
                if isStopped { break }
                let start = index * chunkSize
                let chunk = read(lines[start..<min(start + chunkSize, lines.count)], firstNumber: start + 1, with: &reader)
                handoff.state.withLock { $0.chunks[index] = chunk }
                handoff.ready.signal()
                if chunk.failure != nil { break }
            }
            handoff.finished.signal()
        }
        thread.start()
        defer {
            handoff.state.withLock { $0.isStopped = true }
            handoff.room.signal()
            handoff.finished.wait()
        }
        for index in 0..<chunkCount {
            handoff.ready.wait()
            let chunk = handoff.state.withLock { $0.chunks.removeValue(forKey: index)! }
            handoff.room.signal()
            for record in chunk.records { try insert(record) }
            if let failure = chunk.failure { throw failure }
            handoff.state.withLock { $0.spent.append(chunk.records) }
        }
    }

    /// The records of `lines`, the first of which is line `firstNumber`.
    private static func read(
        _ lines: ArraySlice<ArraySlice<UInt8>>, firstNumber: Int, with reader: inout ImportRecordReader
    ) -> Chunk {
        var records: [ImportRecord] = []
        records.reserveCapacity(lines.count)
        for (offset, line) in lines.enumerated() {
            do {
                if let record = try reader.record(jsonLine: line, number: firstNumber + offset) { records.append(record) }
            } catch {
                return (records, error)
            }
        }
        return (records, nil)
    }

    /// What the reading thread and the caller share.
    private final class Handoff: Sendable {
        struct State {
            var chunks: [Int: Chunk] = [:]
            var isStopped = false
            /// Records inserted, for the reading thread to let go of.
            var spent: [[ImportRecord]] = []
        }
        let state = Mutex(State())
        /// Signalled once per chunk read.
        let ready = DispatchSemaphore(value: 0)
        /// How many more chunks the thread may read ahead of the caller.
        /// Made at 0 and signalled up: libdispatch stops the program when a
        /// semaphore is let go of below the value it was made with.
        let room: DispatchSemaphore = {
            let room = DispatchSemaphore(value: 0)
            for _ in 0..<chunksAhead { room.signal() }
            return room
        }()
        /// Signalled when the thread is done.
        let finished = DispatchSemaphore(value: 0)
    }
}
