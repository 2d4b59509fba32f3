// lmdb-throughput: KuraLMDB alone, put and get of 100k small values (8-byte keys,
// 32-byte values), medians of 5 runs. `swift run -c release lmdb-throughput`

import Foundation
import KuraLMDB

// The puts go in one write transaction; the gets in one read transaction,
// each value borrowed in place (no copy).
let count = 100_000
let directory = NSTemporaryDirectory() + "lmdb-throughput-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
var puts: [Double] = []
var gets: [Double] = []
for run in 0..<5 {
    let environment = try Environment(path: directory + "/\(run).lmdb")
    let database = try environment.write { txn in try txn.createDatabase(named: "small") }
    let value = [UInt8](repeating: 0xAB, count: 32)
    puts.append(try seconds {
        try environment.write { txn in
            for i in 0..<count {
                try database.put(value, forKey: withUnsafeBytes(of: UInt64(i).bigEndian, Array.init), in: txn)
            }
        }
    })
    var total = 0
    gets.append(try seconds {
        try environment.read { txn in
            for i in 0..<count {
                total += try withUnsafeBytes(of: UInt64(i).bigEndian) { key in
                    try database.withValue(forKey: key, in: txn) { $0.count } ?? 0
                }
            }
        }
    })
    precondition(total == count * 32)
    environment.close()
}
let put = puts.sorted()[2]
let get = gets.sorted()[2]
print(String(format: "put 100k small values, one transaction: %.1f ms (%.2fM/s); get 100k in one read: %.1f ms (%.2fM/s); medians of 5",
             put * 1000, Double(count) / put / 1e6, get * 1000, Double(count) / get / 1e6))
