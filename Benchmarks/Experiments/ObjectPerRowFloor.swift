// The least an insert through objects does besides LMDB's puts: make an
// object per row holding the row's values (the caller's strings retained),
// encode its record, register it by primary key, and free everything at the
// end, without change tracking, IDs, hooks, validation, notifications or
// index keys. A floor for the Kura insert row of `kura-compare`, measured
// apart (RESULTS.md, run L):
//
//     swiftc -O Benchmarks/Experiments/ObjectPerRowFloor.swift -o /tmp/object-floor
//     /tmp/object-floor 100000                 # each object keeps its record
//     /tmp/object-floor 100000 --shared-buffer # records encoded into one buffer, as raw LMDB's engine does
//
// Rows like the News dataset's: a UUID, a ~30-character title, a
// ~200-character body, an image URL on four rows of five, two dates and an
// integer. Prints the median and the fastest of seven runs.
import Foundation

enum Value { case string(String), int(Int64), date(Date) }

final class Row {
    var values = ContiguousArray<Value?>()
    var record: [UInt8]?
    var number: UInt64 = 0
}

struct News {
    var objectId: String, title: String, body: String, imageURL: String?
    var created: Date, updated: Date?, sortOrder: Int
}

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.first.flatMap { Int($0) } ?? 100_000
let sharesBuffer = arguments.contains("--shared-buffer")

let letters = Array("abcdefghij klmnop")
func sentence(_ length: Int) -> String { String((0..<length).map { _ in letters.randomElement()! }) }
let news = (0..<count).map { index in
    News(objectId: UUID().uuidString, title: sentence(30), body: sentence(200),
         imageURL: index % 5 == 0 ? nil : "https://images.example.com/news/\(index)/" + sentence(40) + ".jpg",
         created: Date(), updated: index % 2 == 0 ? Date() : nil, sortOrder: index)
}

func append(_ value: Value?, to bytes: inout [UInt8]) {
    switch value {
    case nil: bytes.append(0)
    case .string(let text)?: bytes.append(1); bytes.append(contentsOf: text.utf8)
    case .int(let number)?: bytes.append(2); withUnsafeBytes(of: number) { bytes.append(contentsOf: $0) }
    case .date(let date)?: bytes.append(3); withUnsafeBytes(of: date.timeIntervalSinceReferenceDate) { bytes.append(contentsOf: $0) }
    }
}

/// Milliseconds to make, encode, register and free `count` rows.
func run() -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    var encoded = 0
    do {
        var table: [UInt64: Row] = [:]
        var rows: [Row] = []
        for item in news {
            let row = Row()
            row.values = ContiguousArray(repeating: nil, count: 7)
            row.values[0] = .string(item.objectId)
            row.values[1] = .string(item.title)
            row.values[2] = .string(item.body)
            row.values[3] = item.imageURL.map(Value.string)
            row.values[4] = .date(item.created)
            row.values[5] = item.updated.map(Value.date)
            row.values[6] = .int(Int64(item.sortOrder))
            rows.append(row)
        }
        var shared: [UInt8] = []
        shared.reserveCapacity(420)
        for (position, row) in rows.enumerated() {
            if sharesBuffer {
                shared.removeAll(keepingCapacity: true)
                for value in row.values { append(value, to: &shared) }
                encoded &+= shared.count
            } else {
                var record: [UInt8] = []
                record.reserveCapacity(420)
                for value in row.values { append(value, to: &record) }
                encoded &+= record.count
                row.record = record
            }
            row.number = UInt64(position + 1)
            table[row.number] = row
        }
        rows = []
        withExtendedLifetime(table) {}
    }
    precondition(encoded > 0)
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

let times = (0..<7).map { _ in run() }.sorted()
print("\(count) rows\(sharesBuffer ? ", one shared buffer" : ""): median \(times[3]) ms, fastest \(times[0]) ms")
