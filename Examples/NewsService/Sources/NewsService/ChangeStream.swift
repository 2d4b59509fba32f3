import Foundation
import Kura
import NewsAPI
import NIOCore
import ServiceLifecycle

/// `GET /changes`: server-sent events from an observed fetch. The first
/// event holds the current results; another follows each save (by this
/// process or another) that changes them, with what changed.
enum ChangeStream {
    /// One event's data.
    struct Event: Encodable {
        /// The results now (the page the query asks for), newest first by default.
        var news: [NewsJSON]
        /// Positions in the previous results of items no longer there.
        var removed: [Int]
        /// Positions in these results of new items.
        var inserted: [Int]
        /// Positions in these results of items a save changed.
        var updated: [Int]
        /// Positions that moved, from the previous results to these.
        var moved: [[Int]]
    }

    /// The events of `request`'s results, as the bytes of an
    /// `text/event-stream` body. The stream ends when the client goes (its
    /// task is cancelled), when the service begins to shut down, or when
    /// the store closes.
    static func events(of request: FetchRequest<News>, in container: PersistentContainer) -> AsyncThrowingStream<ByteBuffer, any Error> {
        let (stream, continuation) = AsyncThrowingStream<ByteBuffer, any Error>.makeStream()
        // A task of its own (which inherits the server's graceful shutdown):
        // the context is its own, and its results are read and encoded there.
        let task = Task {
            let context = container.newContext()
            let encoder = ServiceJSON.encoder()
            await withGracefulShutdownHandler {
                do {
                    // A comment first: the client knows the stream is open.
                    continuation.yield(ByteBuffer(string: ": observing\n\n"))
                    for try await results in context.results(for: request) {
                        let difference = results.difference
                        let event = Event(
                            news: try results.objects.map(NewsJSON.init), removed: difference.removed, inserted: difference.inserted,
                            updated: difference.updated, moved: difference.moved.map { [$0.from, $0.to] })
                        let data = String(decoding: try encoder.encode(event), as: UTF8.self)
                        continuation.yield(ByteBuffer(string: "event: results\ndata: \(data)\n\n"))
                    }
                    continuation.finish()
                } catch {
                    // The store closed, or the fetch failed: tell the client, then end.
                    continuation.yield(ByteBuffer(string: "event: error\ndata: \(String(describing: error).replacingOccurrences(of: "\n", with: " "))\n\n"))
                    continuation.finish()
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
