import Foundation
import NewsEngines

/// Kura alone: an ordered to-many of 10 members and one of N / 2 (50,000
/// at N = 100,000), and the same small changes saved to each, 100 saves a
/// sample, each in a new context (issue 40: an append within 2 times).
func runOrderedSuite(size: Int, options: Options) throws -> String {
    let directories = try StoreDirectories(label: "ordered-\(size)")
    let engine = try OrderedListEngine(directory: try directories.next())
    let longLength = size / 2
    try engine.fill(shortLength: 10, longLength: longLength)
    let saves = 100
    let operations: [(String, (Int, Bool) throws -> Int)] = [
        ("append a comment + save", engine.append),
        ("insert a comment at the front + save", engine.insertAtFront),
        ("move the last comment to the front + save", engine.moveLastToFront),
        ("read the list (no save)", engine.readList),
    ]
    func median(_ run: () throws -> Int) throws -> (Double, Double, Double) {
        var seconds: [Double] = []
        for _ in 0..<options.iterations { seconds.append(try time { try run() }.1) }
        seconds.sort()
        return (seconds[seconds.count / 2], seconds.first!, seconds.last!)
    }
    var table = "### Ordered to-many, Kura, \(saves) saves a sample\n\n"
        + "| Operation | list of 10 | list of \(longLength) | / 10 |\n|---|---|---|---|\n"
    for (name, operation) in operations where options.selects(name) {
        let short = try median { try operation(saves, false) }
        let long = try median { try operation(saves, true) }
        table += "| \(name) | \(formatTime(short.0)) (\(formatTime(short.1))–\(formatTime(short.2))) | "
            + "\(formatTime(long.0)) (\(formatTime(long.1))–\(formatTime(long.2))) | \(String(format: "%.2f", long.0 / short.0)) |\n"
        progress("ordered N=\(size): \(name) done")
    }
    let lengths = try [false, true].map { try engine.readList(1, long: $0) }
    guard lengths[0] > 10, lengths[1] > longLength else { throw Mismatch(description: "the lists lost members: \(lengths)") }
    return table
}
