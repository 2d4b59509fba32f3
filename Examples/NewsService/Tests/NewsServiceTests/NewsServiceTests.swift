import Foundation
import Kura
import NewsAPI
import NewsService
import Testing

/// The service as a client meets it: a real process on a loopback port,
/// real HTTP requests from curl and wrk, SIGTERM, and the store reopened.
/// Serialized: the load and stall measurements are the service's alone.
@Suite(.serialized, .timeLimit(.minutes(5))) struct NewsServiceTests {
    @Test func everyEndpointAnswersAsTheReadmeSays() throws {
        let service = try ServiceProcess()
        defer { service.terminate() }
        #expect(try service.request("GET", "/health").object["status"] as? String == "ok")

        // Create: the hooks set objectId and the dates.
        let created = try service.request("POST", "/news", json: #"{"title":"Kura ships","body":"b","author":"Ann","tags":["swift","kura"]}"#)
        #expect(created.status == 201, "\(created.text)")
        let objectId = try #require(created.object["objectId"] as? String)
        #expect(UUID(uuidString: objectId) != nil)
        #expect(created.object["dateCreated"] is String && created.object["dateUpdated"] is String)
        #expect(created.object["authorName"] as? String == "Ann" && created.object["tags"] as? [String] == ["kura", "swift"])
        _ = try service.request("POST", "/news", json: #"{"title":"A second","author":"Bob","tags":["linux"]}"#)

        // Get one through the getNews template; an unknown one is a 404.
        #expect(try service.request("GET", "/news/\(objectId)").object["title"] as? String == "Kura ships")
        #expect(try service.request("GET", "/news/nope").status == 404)

        // List with filters, sort, limit and offset; a bad parameter says which.
        func titles(_ query: String) throws -> [String] {
            let page = try service.request("GET", "/news?\(query)").object
            return (page["news"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
        #expect(try titles("author=Ann") == ["Kura ships"])
        #expect(try titles("tag=linux") == ["A second"])
        #expect(try titles("sort=title") == ["A second", "Kura ships"])
        #expect(try titles("sort=-title&limit=1&offset=1") == ["A second"])
        #expect(try titles("since=2000-01-01T00:00:00Z&until=2100-01-01T00:00:00Z").count == 2)
        #expect(try titles("until=2000-01-01T00:00:00Z").isEmpty)
        let bad = try service.request("GET", "/news?limit=x")
        #expect(bad.status == 400 && bad.text.contains("limit=x"))

        // Update: willSave moves dateUpdated, dateCreated stays.
        let patched = try service.request("PATCH", "/news/\(objectId)", json: #"{"title":"Kura ships again"}"#)
        #expect(patched.object["title"] as? String == "Kura ships again")
        #expect(patched.object["dateCreated"] as? String == created.object["dateCreated"] as? String)
        #expect(try service.request("PATCH", "/news/nope", json: "{}").status == 404)

        // Import a feed by objectId, twice: upserts, one save each.
        let feed = #"[{"objectId":"feed-1","title":"One","author":"Ann"},{"objectId":"feed-2","title":"Two"}]"#
        #expect(try service.request("POST", "/feed", json: feed).object["inserted"] as? Int == 2)
        let again = try service.request("POST", "/feed", json: #"[{"objectId":"feed-1","title":"One, updated"},{"objectId":"feed-3","title":"Three"}]"#)
        #expect(again.object["inserted"] as? Int == 1 && again.object["updated"] as? Int == 1)
        let updated = try service.request("GET", "/news/feed-1").object
        #expect(updated["title"] as? String == "One, updated" && updated["authorName"] as? String == "Ann")
        #expect(try service.request("POST", "/feed", json: #"[{"objectId":"x","title":"a"},{"objectId":"x","title":"b"}]"#).status == 400)

        // Delete old news with a batch request.
        #expect(try service.request("DELETE", "/news?before=2000-01-01T00:00:00Z").object["deleted"] as? Int == 0)
        #expect(try service.request("DELETE", "/news").status == 400)
        #expect(try service.request("DELETE", "/news?before=2100-01-01T00:00:00Z").object["deleted"] as? Int == 5)
        #expect(try titles("").isEmpty)
    }

    @Test func theChangeStreamSendsTheResultsThenEachChange() throws {
        let service = try ServiceProcess()
        defer { service.terminate() }
        let stream = Process()
        stream.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        stream.arguments = ["-sN", service.url + "/changes?author=Ann&limit=5"]
        let pipe = Pipe()
        stream.standardOutput = pipe
        try stream.run()
        defer { stream.terminate() }
        var received = ""
        /// Reads the stream until `count` events have come.
        func events(_ count: Int) throws -> [String] {
            while received.components(separatedBy: "event: results\n").count - 1 < count {
                let chunk = pipe.fileHandleForReading.availableData
                guard !chunk.isEmpty else { throw ServiceError("the stream ended: \(received)") }
                received += String(decoding: chunk, as: UTF8.self)
            }
            return received.components(separatedBy: "event: results\n").dropFirst().map { String($0) }
        }
        #expect(try events(1)[0].contains(#""news":[]"#), "the first event: the results now, none")
        _ = try service.request("POST", "/news", json: #"{"title":"Streamed","author":"Ann"}"#)
        let second = try events(2)[1]
        #expect(second.contains(#""title":"Streamed""#) && second.contains(#""inserted":[0]"#), "\(second)")
        _ = try service.request("POST", "/news", json: #"{"title":"Bob's, not in the stream","author":"Bob"}"#)
        _ = try service.request("DELETE", "/news?before=2100-01-01T00:00:00Z")
        let third = try events(3)[2]
        #expect(third.contains(#""removed":[0]"#) && !third.contains("Bob"), "\(third)")
    }

    @Test func concurrentRequestsHoldABoundedNumberOfThreadsAndNoEventLoopStalls() throws {
        let service = try ServiceProcess(threads: 4)
        defer { service.terminate() }
        for number in 0..<50 { _ = try service.request("POST", "/news", json: #"{"title":"seed \#(number)","author":"Ann","tags":["swift"]}"#) }
        func stats(reset: Bool = false) throws -> [String: Any] { try service.request("GET", "/stats\(reset ? "?reset=1" : "")").object }

        // The probe catches a blocked loop: a 50 ms block shows.
        _ = try stats(reset: true)
        _ = try service.request("POST", "/test/block-event-loop?ms=50")
        let blocked = try #require(try stats(reset: true)["worstEventLoopStallMilliseconds"] as? Double)
        #expect(blocked >= 45, "the probe saw \(blocked) ms of a 50 ms block")

        // Bursts of 200 concurrent requests from curl: Kura's (a tenth of
        // them writes), and as a baseline the same burst of /health, which
        // touches no store. 200 connections at once keep a loop busy by
        // themselves (9-20 ms in a debug build, seen here), and Kura's
        // threads take the loops' cores on a 2-core machine (18-32 ms seen),
        // so Kura is judged against that baseline: a save or fetch run on a
        // loop would queue the burst's 90 reads or 20 saves of that loop
        // behind each other, 45 ms or more, in every burst.
        func burst(kura: Bool) throws -> Double {
            let config = try service.curlConfig(count: 200) { index in
                guard kura else { return "url = \"\(service.url)/health\"\nwrite-out = \"%{http_code}\\n\"" }
                return index % 10 == 0
                    ? "url = \"\(service.url)/news\"\nrequest = \"POST\"\nheader = \"content-type: application/json\"\ndata = \"{\\\"title\\\":\\\"burst \(index)\\\",\\\"author\\\":\\\"Bob\\\"}\"\nwrite-out = \"%{http_code}\\n\""
                    : "url = \"\(service.url)/news\(index % 2 == 0 ? "?author=Ann&limit=10" : "?tag=swift&sort=title&limit=10")\"\nwrite-out = \"%{http_code}\\n\""
            }
            _ = try stats(reset: true)
            let output = try ServiceProcess.run("/usr/bin/curl", ["-s", "--parallel", "--parallel-immediate", "--parallel-max", "200", "-K", config])
            let answers = String(decoding: output, as: UTF8.self).split(separator: "\n")
            #expect(answers.count == 200 && answers.allSatisfy { $0 == "200" || $0 == "201" }, "\(Set(answers))")
            return try #require(try stats()["worstEventLoopStallMilliseconds"] as? Double)
        }
        var baseline: [Double] = [], stalls: [Double] = []
        for _ in 0..<3 {
            baseline.append(try burst(kura: false))
            stalls.append(try burst(kura: true))
        }
        #expect(stalls.min()! <= max(10, 2 * baseline.max()! + 10),
                "worst event-loop stall per burst of 200: \(stalls) ms with Kura, \(baseline) ms without")

        // 1,000 concurrent connections from wrk: the threads stay bounded.
        let before = try stats()
        let wrk = String(decoding: try ServiceProcess.run("/usr/bin/wrk", ["-t", "2", "-c", "1000", "-d", "3s", service.url + "/news?limit=5"]), as: UTF8.self)
        let after = try stats()
        let threadsBefore = try #require(before["processThreads"] as? Int), threadsAfter = try #require(after["processThreads"] as? Int)
        let pool = try #require(after["poolThreads"] as? Int), limit = try #require(after["poolThreadLimit"] as? Int)
        let answered = (after["requestsAnswered"] as? Int ?? 0) - (before["requestsAnswered"] as? Int ?? 0)
        #expect(answered >= 1_000, "wrk had \(answered) requests answered: \(wrk)")
        #expect(pool <= limit)
        #expect(threadsAfter <= threadsBefore + (limit - (before["poolThreads"] as? Int ?? 0)),
                "threads \(threadsBefore) before, \(threadsAfter) after 1,000 connections")
        print("news-service: 1,000 connections (\(answered) requests) on \(threadsAfter) threads (Kura pool \(pool) of \(limit)); "
            + "worst event-loop stall per burst of 200: \(stalls) ms with Kura, \(baseline) ms without; a 50 ms block measured \(blocked) ms")
    }

    @Test func sigtermUnderLoadLosesNoAcknowledgedWrite() throws {
        let service = try ServiceProcess()
        let config = try service.curlConfig(count: 600) { index in
            "url = \"\(service.url)/news?n=\(index)\"\nrequest = \"POST\"\nheader = \"content-type: application/json\"\ndata = \"{\\\"title\\\":\\\"load \(index)\\\"}\"\nwrite-out = \"%{http_code} %{url}\\n\""
        }
        let load = Process()
        load.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        load.arguments = ["-s", "--parallel", "--parallel-max", "32", "-K", config]
        let pipe = Pipe()
        load.standardOutput = pipe
        try load.run()
        // SIGTERM once 100 writes are acknowledged (progress, not time).
        var output = ""
        while output.components(separatedBy: "201 ").count - 1 < 100 {
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            output += String(decoding: chunk, as: UTF8.self)
        }
        let status = service.terminate()
        output += String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        load.waitUntilExit()
        #expect(status == 0, "the service ended with \(status) after SIGTERM")
        let acknowledged = output.split(separator: "\n").filter { $0.hasPrefix("201 ") }.compactMap { $0.split(separator: "=").last.map(String.init) }
        #expect(acknowledged.count >= 100)

        // Reopen the store: every acknowledged write is there.
        let container = try NewsServer.openContainer(ServerOptions(store: service.storePath), logger: .init(label: "test"))
        defer { container.close() }
        let titles = Set(try container.newContext().fetch(FetchRequest<News>()).map(\.title))
        let missing = acknowledged.filter { !titles.contains("load \($0)") }
        #expect(missing.isEmpty, "acknowledged but not stored: \(missing)")
        print("SIGTERM under load: \(acknowledged.count) of 600 writes acknowledged before the service stopped, all \(titles.count >= acknowledged.count ? "stored" : "NOT stored") (\(titles.count) in the store)")
    }
}
