import Foundation
import NewsEngines

/// Kura alone, N objects of a flat entity and N of a superentity with two
/// sub-entities (half each): a fetch of all and a top 100 of each.
func runInheritanceSuite(size: Int, options: Options) throws -> String {
    let directories = try StoreDirectories(label: "inheritance-\(size)")
    let engine = try InheritanceEngine(directory: try directories.next())
    try engine.fill(count: size)
    let pairs: [(String, () throws -> Int, () throws -> Int)] = [
        ("fetch all, read a String", engine.fetchFlat, engine.fetchFamily),
        ("top 100 by an unindexed Int", engine.topFlat, engine.topFamily),
    ]
    func median(_ read: () throws -> Int) throws -> (Double, Double, Double) {
        _ = try read()  // warm-up
        var seconds: [Double] = []
        for _ in 0..<options.iterations { seconds.append(try time { try read() }.1) }
        seconds.sort()
        return (seconds[seconds.count / 2], seconds.first!, seconds.last!)
    }
    var table = "### Entity inheritance, Kura, N = \(size)\n\n| Operation | flat entity | superentity of two | / flat |\n|---|---|---|---|\n"
    for (name, flat, family) in pairs {
        let a = try median(flat)
        let b = try median(family)
        table += "| \(name) | \(formatTime(a.0)) (\(formatTime(a.1))–\(formatTime(a.2))) | "
            + "\(formatTime(b.0)) (\(formatTime(b.1))–\(formatTime(b.2))) | \(String(format: "%.2f", b.0 / a.0)) |\n"
    }
    progress("inheritance N=\(size) done")
    return table
}
