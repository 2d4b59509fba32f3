import Foundation
import NewsEngines

/// Kura alone, N objects: fetch all and read a String attribute, an
/// enumeration (stored by raw value), a Codable value (stored as JSON).
func runAttributeKindsSuite(size: Int, options: Options) throws -> String {
    let directories = try StoreDirectories(label: "kinds-\(size)")
    let engine = try AttributeKindsEngine(directory: try directories.next())
    try engine.fill(count: size)
    let reads: [(String, () throws -> Int)] = [
        ("fetch all, read a String", engine.readStrings),
        ("fetch all, read an enumeration", engine.readEnumerations),
        ("fetch all, read a Codable value", engine.readCodables),
    ]
    var medians: [Double] = []
    var table = "### Attribute kinds, Kura, N = \(size)\n\n| Operation | Kura | / String |\n|---|---|---|\n"
    for (name, read) in reads {
        _ = try read()  // warm-up
        var seconds: [Double] = []
        for _ in 0..<options.iterations { seconds.append(try time { try read() }.1) }
        seconds.sort()
        let median = seconds[seconds.count / 2]
        medians.append(median)
        table += "| \(name) | \(formatTime(median)) (\(formatTime(seconds.first!))–\(formatTime(seconds.last!))) · "
            + "\(formatRate(Double(size) / median, unit: "objects")) | \(String(format: "%.2f", median / medians[0])) |\n"
    }
    progress("kinds N=\(size) done")
    return table
}
