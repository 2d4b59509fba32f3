import Foundation
import Kura
import KuraInspect
import KuraTestSupport
import Testing

/// A small store with fixed values, so outputs can be compared exactly.
struct BookStore {
    let directory: TemporaryDirectory
    let path: String

    init(function: String = #function) throws {
        directory = try TemporaryDirectory(function: function)
        path = directory.file("books.kura")
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Book", attributes: [
                AttributeDescription(name: "title", type: .string),
                AttributeDescription(name: "year", type: .int16),
                AttributeDescription(name: "price", type: .double, isOptional: true),
                AttributeDescription(name: "isbn", type: .string),
            ], indexes: [.unique("isbn"), .index("year")]),
            EntityDescription(name: "Shelf", attributes: [AttributeDescription(name: "name", type: .string)]),
        ])
        try model.setFetchRequestTemplate(FetchRequest(entityName: "Book", predicate: "isbn == $isbn"), forName: "byIsbn")
        try model.setFetchRequestTemplate(
            FetchRequest(entityName: "Book", predicate: "year >= $year", sortDescriptors: [FetchSortDescriptor(key: "year")]),
            forName: "since")
        let container = try PersistentContainer(path: path, model: model)
        let context = container.newContext()
        let books: [(String, Int, Double?, String)] = [
            ("Dune", 1965, 9.99, "isbn-1"),
            ("Neuromancer", 1984, nil, "isbn-2"),
            ("A title long enough to be cut in a table column", 2001, 12.5, "isbn-3"),
            ("Snow Crash", 1992, 7.25, "isbn-4"),
        ]
        for (title, year, price, isbn) in books {
            let book = try context.insertNewObject(forEntityName: "Book")
            try book.setValue(title, forKey: "title")
            try book.setValue(year, forKey: "year")
            try book.setValue(price, forKey: "price")
            try book.setValue(isbn, forKey: "isbn")
        }
        try context.save()
        container.close()
    }

    /// Runs `lines` in one session and returns everything it printed, and
    /// the error of the first failing line.
    func run(_ lines: [String], mode: OutputMode = .table, width: OutputWidth = .unlimited) throws -> (output: String, error: InspectError?) {
        try runSession(path: path, lines, mode: mode, width: width)
    }
}

/// Runs `lines` in one session on the store at `path` and returns
/// everything it printed, and the error of the first failing line.
func runSession(
    path: String, _ lines: [String], mode: OutputMode = .table, width: OutputWidth = .unlimited
) throws -> (output: String, error: InspectError?) {
    var output: [String] = []
    let session = try InspectSession(path: path, mode: mode, width: width) { output.append($0) }
    for line in lines {
        do {
            try session.run(line)
        } catch {
            return (output.joined(separator: "\n"), error)
        }
    }
    return (output.joined(separator: "\n"), nil)
}

/// A store with relationships: writers (unique names) write books
/// (cascade), books have genres (many-to-many).
///
/// Ann (Writer 1) wrote Dune (Book 1: sf, classic) and Emma (Book 2:
/// classic); Bob (Writer 2) wrote nothing; Orphan (Book 3) has no writer.
struct LibraryStore {
    let directory: TemporaryDirectory
    let path: String

    init(function: String = #function) throws {
        directory = try TemporaryDirectory(function: function)
        path = directory.file("library.kura")
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Writer", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("books", destination: "Book", inverse: "writer", deleteRule: .cascade)],
                              indexes: [.unique("name")]),
            EntityDescription(name: "Book", attributes: [AttributeDescription(name: "title", type: .string)],
                              relationships: [.toOne("writer", destination: "Writer"),
                                              .toMany("genres", destination: "Genre", inverse: "books")]),
            EntityDescription(name: "Genre", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [.toMany("books", destination: "Book")]),
        ])
        let container = try PersistentContainer(path: path, model: model)
        let context = container.newContext()
        func make(_ entity: String, _ key: String, _ value: String) throws -> ManagedObject {
            let object = try context.insertNewObject(forEntityName: entity)
            try object.setValue(value, forKey: key)
            return object
        }
        let ann = try make("Writer", "name", "Ann")
        _ = try make("Writer", "name", "Bob")
        let dune = try make("Book", "title", "Dune")
        let emma = try make("Book", "title", "Emma")
        _ = try make("Book", "title", "Orphan")
        let sf = try make("Genre", "name", "sf")
        let classic = try make("Genre", "name", "classic")
        try dune.setObject(ann, forKey: "writer")
        try emma.setObject(ann, forKey: "writer")
        try dune.mutableSetValue(forKey: "genres").set([sf, classic])
        try emma.mutableSetValue(forKey: "genres").insert(classic)
        try context.save()
        container.close()
    }

    func run(_ lines: [String], mode: OutputMode = .table) throws -> (output: String, error: InspectError?) {
        try runSession(path: path, lines, mode: mode)
    }
}

/// The `kura` executable built next to the tests.
enum KuraTool {
    static var path: String {
        Helper.buildDirectory.appendingPathComponent("kura").path
    }

    /// Runs `kura` with `arguments` and `input` on stdin.
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws
        -> (status: Int32, output: String, error: String) {
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        // stderr goes to a file: two pipes read one after the other could
        // deadlock on a child that fills the second.
        let errorPath = NSTemporaryDirectory() + "kura-stderr-\(UUID().uuidString)"
        let child = try ChildProcess(path, arguments, environment: merged,
                                     standardInput: .pipe, standardOutput: .pipe, standardError: .file(errorPath))
        defer { try? FileManager.default.removeItem(atPath: errorPath) }
        try child.send(input ?? "")
        let output = child.standardOutput!.readDataToEndOfFile()
        let termination = try child.wait()
        let error = try String(contentsOfFile: errorPath, encoding: .utf8)
        guard case .exited(let status) = termination else {
            throw ChildProcess.Failure(description: "kura \(arguments.joined(separator: " ")): \(termination)\n\(error)")
        }
        return (status, String(decoding: output, as: UTF8.self), error)
    }
}

/// A store whose `MATCHES` fetch takes seconds: `count` rows of text that
/// make the pattern `(a|aa)+b` backtrack for a long time.
struct SlowStore {
    let directory: TemporaryDirectory
    let path: String
    static let slowCount = "count Row where text MATCHES '(a|aa)+b'"

    init(rows count: Int = 3000, function: String = #function) throws {
        directory = try TemporaryDirectory(function: function)
        path = directory.file("slow.kura")
        let model = try ManagedObjectModel(entities: [
            EntityDescription(name: "Row", attributes: [AttributeDescription(name: "text", type: .string)])
        ])
        let container = try PersistentContainer(path: path, model: model)
        let context = container.newContext()
        for index in 0..<count {
            try context.insertNewObject(forEntityName: "Row").setValue(String(repeating: "a", count: 24) + "c\(index)", forKey: "text")
        }
        try context.save()
        container.close()
    }
}
