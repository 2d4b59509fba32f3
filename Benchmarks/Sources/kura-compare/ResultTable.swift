import Foundation

/// One row of a result table: an operation's name and unit, and each
/// engine's measurement.
struct ResultRow {
    let name: String
    let unit: String
    let measurements: [String: Measurement]
    /// For the GRDB-only lookup rows (cached statement, one read): Kura's median on the row they are compared with.
    var kuraBaseline: Double?
}

/// A markdown table with each engine's median (min–max) and rate, and the
/// ratios Kura / raw LMDB and, for each GRDB engine, GRDB / Kura. Only the
/// engines that took part in some row get a column.
func resultTable(title: String, rows: [ResultRow]) -> String {
    let engines = ["Kura", "raw LMDB", "GRDB", "GRDB tuned", "postgres-nio", "postgres-kv", "Kura on PostgreSQL"].filter { name in rows.contains { $0.measurements[name] != nil } }
    let comparedWithKura = engines.filter { $0.hasPrefix("GRDB") }
    var table = "### \(title)\n\n"
    let columns = ["Operation"] + engines + ["Kura / LMDB"] + comparedWithKura.map { "\($0) / Kura" }
    table += "| " + columns.joined(separator: " | ") + " |\n"
    table += "|---|" + String(repeating: "---|", count: engines.count + 1 + comparedWithKura.count) + "\n"
    for result in rows {
        var row = "| \(result.name) |"
        for name in engines {
            guard let measurement = result.measurements[name] else {
                row += " — |"
                continue
            }
            let objects = max(1, result.unit == "counts" ? 1 : measurement.checksum?.count ?? 1)
            row += " \(formatTime(measurement.median)) (\(formatTime(measurement.minimum))–\(formatTime(measurement.maximum))) · \(formatRate(Double(objects) / measurement.median, unit: result.unit)) |"
        }
        let kura = result.measurements["Kura"]?.median ?? result.kuraBaseline
        let lmdb = result.measurements["raw LMDB"]?.median
        if let kura, let lmdb, result.measurements["Kura"] != nil { row += String(format: " %.2f |", kura / lmdb) } else { row += " — |" }
        for name in comparedWithKura {
            if let kura, let other = result.measurements[name]?.median { row += String(format: " %.2f |", other / kura) } else { row += " — |" }
        }
        table += row + "\n"
    }
    return table
}

func formatTime(_ seconds: Double) -> String {
    if seconds >= 1 { return String(format: "%.2f s", seconds) }
    if seconds >= 0.001 { return String(format: "%.1f ms", seconds * 1000) }
    return String(format: "%.0f µs", seconds * 1_000_000)
}

func formatRate(_ perSecond: Double, unit: String) -> String {
    switch perSecond {
    case 1_000_000...: String(format: "%.2fM %@/s", perSecond / 1_000_000, unit)
    case 1_000...: String(format: "%.0fk %@/s", perSecond / 1_000, unit)
    default: String(format: "%.0f %@/s", perSecond, unit)
    }
}
