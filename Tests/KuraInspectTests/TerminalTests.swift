import Foundation
import Kura
import KuraTestSupport
import Testing

/// Drives `kura inspect` in a real terminal under tmux: typing, history and
/// tab completion, reading the screen back.
@Suite(.serialized) struct TerminalTests {
    struct Tmux {
        let session = "kura-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        /// Runs tmux. Output is read from a file, not a pipe: the tmux server
        /// a new session starts would keep a pipe open for ever.
        @discardableResult
        func run(_ arguments: [String]) throws -> String {
            let outputPath = NSTemporaryDirectory() + "\(session)-\(UUID().uuidString).out"
            defer { try? FileManager.default.removeItem(atPath: outputPath) }
            let tmux = try ChildProcess("/usr/bin/env", ["tmux"] + arguments,
                                        standardOutput: .file(outputPath), standardError: .null)
            let termination = try tmux.wait(timeout: 30)
            guard termination == .exited(0) else {
                throw ChildProcess.Failure(description: "tmux \(arguments.joined(separator: " ")): \(termination)")
            }
            return try String(contentsOfFile: outputPath, encoding: .utf8)
        }

        /// Starts `kura` with `arguments` in an 80-column terminal of `rows`
        /// rows, with its own home directory (for the history file).
        func start(_ arguments: String, home: TemporaryDirectory, rows: Int) throws {
            try run(["new-session", "-d", "-s", session, "-x", "80", "-y", String(rows),
                     "env HOME=\(home.path) TERM=xterm \(KuraTool.path) \(arguments)"])
        }

        func keys(_ keys: String...) throws { try run(["send-keys", "-t", session] + keys) }
        func screen() throws -> String { try run(["capture-pane", "-t", session, "-p"]) }

        /// Waits until the screen contains `text`.
        func waitFor(_ text: String, timeout: Double = 10) throws -> String {
            try waitFor(anyOf: [text], timeout: timeout)
        }

        /// Waits until the screen contains one of `texts`: wait for a
        /// command's output, not its echo, or a loaded machine fails the
        /// test between the two.
        func waitFor(anyOf texts: [String], timeout: Double = 10) throws -> String {
            try waitUntil(texts.map { "\"\($0)\"" }.joined(separator: " or "), timeout: timeout) { screen in
                texts.contains(where: screen.contains)
            }
        }

        /// Waits until `condition` holds for the screen.
        func waitUntil(_ description: String, timeout: Double = 10, _ condition: (String) -> Bool) throws -> String {
            let deadline = Date().addingTimeInterval(timeout)
            var last = ""
            while Date() < deadline {
                last = try screen()
                if condition(last) { return last }
                usleep(50_000)
            }
            Issue.record("the screen never showed \(description):\n\(last)")
            return last
        }
    }

    @Test func typingHistoryAndTabCompletionWorkInARealTerminal() throws {
        #expect(FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux"), "tmux is needed: run Scripts/install-dependencies")
        let store = try BookStore()
        let home = try TemporaryDirectory()
        let tmux = Tmux()
        try tmux.start("inspect \(store.path)", home: home, rows: 40)
        defer { _ = try? tmux.run(["kill-session", "-t", tmux.session]) }

        _ = try tmux.waitFor("kura>")
        // Tab completes the command and the entity.
        try tmux.keys("cou", "Tab")
        try tmux.keys("Bo", "Tab")
        try tmux.keys("Enter")
        var screen = try tmux.waitFor(anyOf: ["kura> count Book \n4", "kura> count Book\n4"])
        #expect(screen.contains("kura> count Book \n4") || screen.contains("kura> count Book\n4"))
        // A fetch, then Up brings it back from history.
        try tmux.keys("fetch Book where year < 1970", "Enter")
        // (The prompt, not only the output: keys typed before the line
        // editor takes the terminal again are echoed as they are.)
        screen = try tmux.waitFor("(1 object)\nkura>")
        #expect(screen.contains("Dune"))
        try tmux.keys("Up")
        let recalled = "kura> fetch Book where year < 1970"
        screen = try tmux.waitUntil("the fetch recalled at the prompt") { screen in
            screen.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) == recalled } ?? false
        }
        try tmux.keys("C-u", "bogus", "Enter")
        screen = try tmux.waitFor("error: unknown command 'bogus'")
        try tmux.keys("quit", "Enter")
        // The history file is written as the session ends: wait for it.
        let expected = "fetch\\040Book\\040where\\040year\\040<\\0401970"
        var history = ""
        let deadline = Date().addingTimeInterval(10)
        repeat {
            history = (try? String(contentsOfFile: home.file(".kura_history"), encoding: .utf8)) ?? ""
            if history.contains(expected) { break }
            usleep(50_000)
        } while Date() < deadline
        #expect(history.contains(expected), "\(history)")
    }
}

extension TerminalTests {
    @Test func tabCompletesKeyPathsThroughRelationships() throws {
        let store = try LibraryStore()
        let home = try TemporaryDirectory()
        let tmux = Tmux()
        try tmux.start("inspect \(store.path)", home: home, rows: 24)
        defer { _ = try? tmux.run(["kill-session", "-t", tmux.session]) }

        _ = try tmux.waitFor("kura>")
        try tmux.keys("count Book where wri", "Tab")
        try tmux.keys(".na", "Tab")
        try tmux.keys("== 'Ann'", "Enter")
        var screen = try tmux.waitFor("kura> count Book where writer.name == 'Ann'\n2")
        #expect(screen.contains("kura> count Book where writer.name == 'Ann'\n2"), "\(screen)")
        try tmux.keys("count Writer where books.@c", "Tab")
        try tmux.keys("== 0", "Enter")
        screen = try tmux.waitFor("kura> count Writer where books.@count == 0\n1")
        #expect(screen.contains("kura> count Writer where books.@count == 0\n1"), "\(screen)")
        try tmux.keys("quit", "Enter")
    }

    @Test func ctrlCClearsTheLineAtThePromptAndCancelsARunningCommand() throws {
        let store = try SlowStore()
        let home = try TemporaryDirectory()
        let tmux = Tmux()
        let statusFile = home.file("status")
        try tmux.start("inspect \(store.path); echo $? > \(statusFile); sleep 30", home: home, rows: 24)
        defer { _ = try? tmux.run(["kill-session", "-t", tmux.session]) }
        _ = try tmux.waitFor("kura>")

        // At the prompt: the half-typed line is dropped, the session goes on.
        try tmux.keys("fetch Ro")
        _ = try tmux.waitFor("kura> fetch Ro")
        try tmux.keys("C-c")
        try tmux.keys("count Row", "Enter")
        var screen = try tmux.waitFor("\n3000")
        #expect(screen.contains("kura> count Row\n3000"), "\(screen)")

        // During a command that takes many seconds: cancelled at once.
        try tmux.keys(SlowStore.slowCount, "Enter")
        usleep(800_000)
        let interrupted = Date()
        try tmux.keys("C-c")
        screen = try tmux.waitFor("error: interrupted")
        #expect(Date().timeIntervalSince(interrupted) < 3, "cancelling took \(Date().timeIntervalSince(interrupted)) s")
        try tmux.keys("count Row", "Enter")
        screen = try tmux.waitFor("error: interrupted\nkura> count Row\n3000")
        #expect(screen.contains("^C\nerror: interrupted"), "\(screen)")

        try tmux.keys("quit", "Enter")
        let deadline = Date().addingTimeInterval(10)
        // The shell makes the file before it writes the status: wait for the line.
        while (try? String(contentsOfFile: statusFile, encoding: .utf8))?.hasSuffix("\n") != true && Date() < deadline {
            usleep(50_000)
        }
        #expect((try? String(contentsOfFile: statusFile, encoding: .utf8)) == "0\n", "the session ended normally")
    }
}

extension TerminalTests {
    @Test func aWideEntityFitsEightyColumnsAndEveryModeShowsInTheTerminal() throws {
        let home = try TemporaryDirectory()
        let store = home.file("news.kura")
        #expect(try KuraTool.run(["demo", store, "--count", "20"]).status == 0)
        let tmux = Tmux()
        try tmux.start("\(store)", home: home, rows: 50)
        defer { _ = try? tmux.run(["kill-session", "-t", tmux.session]) }
        _ = try tmux.waitFor("kura>")

        // Ten columns, some of 150 characters: cut to fit, marked, the rest named.
        try tmux.keys("fetch News sort sortOrder limit 3", "Enter")
        var screen = try tmux.waitFor("(3 objects)")
        #expect(screen.split(separator: "\n").allSatisfy { TerminalTextWidth.columns(of: String($0)) <= 80 })
        #expect(screen.contains("…") && screen.contains("(left out to fit: "))
        #expect(!screen.contains("Story 1: the storehouse a fetch template the query planner swift"), "a whole body on one row")

        try tmux.keys("C-l")
        try tmux.keys("fetch News title, author.name, tags.@count where dateCreated > CAST(\"2001-01-01T00:00:00Z\", \"NSDate\") sort sortOrder limit 2", "Enter")
        screen = try tmux.waitFor("(2 objects)")
        #expect(screen.contains("title") && screen.contains("author.name") && screen.contains("tags.@count"))

        try tmux.keys("C-l")
        try tmux.keys(".mode line", "Enter", "fetch News sort sortOrder limit 1", "Enter")
        screen = try tmux.waitFor("       tags = ")
        #expect(screen.contains("   objectID = kura://News/") && screen.contains("       body = Story "))

        try tmux.keys("C-l")
        try tmux.keys(".mode csv", "Enter", "fetch Tag name limit 2", "Enter", ".mode json", "Enter", "count Tag", "Enter")
        screen = try tmux.waitFor(#"{"count":8}"#)
        #expect(screen.contains("name\nswift\nlinux"))
        try tmux.keys("quit", "Enter")
    }
}

/// Display width as the terminal counts it (the tool's own count is internal).
enum TerminalTextWidth {
    static func columns(of line: String) -> Int {
        line.unicodeScalars.reduce(0) { $0 + ($1.properties.isEmojiPresentation || (0x1100...0x115F).contains($1.value)
            || (0x2E80...0xA4CF).contains($1.value) || (0xAC00...0xD7A3).contains($1.value) || (0xFF00...0xFF60).contains($1.value) ? 2 : 1) }
    }
}

extension TerminalTests {
    /// Eight long text columns and long object IDs in 80 columns: the other
    /// columns give way, the IDs `show` needs stay whole; `nullvalue`,
    /// did-you-mean for attribute names, and the hint for a bare word.
    @Test func theObjectIDIsNeverCutAndNamesGetSuggestions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("wide.kura")
        let names = ["title", "subtitle", "publisher", "editor", "country", "language", "subject", "summary"]
        do {
            let model = try ManagedObjectModel(entities: [
                EntityDescription(name: "Periodical", attributes: names.map { AttributeDescription(name: $0, type: .string, isOptional: true) }),
            ])
            let container = try PersistentContainer(path: path, model: model)
            let context = container.newContext()
            for number in 1...3 {
                let object = try context.insertNewObject(forEntityName: "Periodical")
                for name in names where !(number == 2 && name == "title") {
                    try object.setValue("\(name) \(number) " + String(repeating: "x", count: 30), forKey: name)
                }
            }
            try context.save()
            container.close()
        }
        let home = try TemporaryDirectory()
        let tmux = Tmux()
        try tmux.start("inspect \(path)", home: home, rows: 40)
        defer { _ = try? tmux.run(["kill-session", "-t", tmux.session]) }
        _ = try tmux.waitFor("kura>")

        try tmux.keys("nullvalue NULL", "Enter")
        try tmux.keys("fetch Periodical", "Enter")
        var screen = try tmux.waitFor("(3 objects)")
        for number in 1...3 { #expect(screen.contains("kura://Periodical/\(number)  "), "the ID whole: \(screen)") }
        #expect(screen.contains("left out to fit"), "\(screen)")
        #expect(screen.contains("NULL"), "nullvalue shows no value: \(screen)")
        #expect(screen.split(separator: "\n").allSatisfy { $0.count <= 80 })

        try tmux.keys("count Periodical where titel == 'x'", "Enter")
        screen = try tmux.waitFor("(did you mean 'title'?)")
        try tmux.keys("count Periodical where title == Kura", "Enter")
        screen = try tmux.waitFor("text is quoted")
        #expect(screen.contains("entity Periodical has no attribute 'Kura'; text is quoted: \"Kura\""), "\(screen)")
        try tmux.keys("quit", "Enter")
    }
}
