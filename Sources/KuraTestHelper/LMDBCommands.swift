#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KuraLMDB

/// Commands that exercise KuraLMDB alone.
enum LMDBCommands {
    /// `lmdb-grow PATH COUNT SIZE`: opens PATH with a 64 KiB map and writes
    /// COUNT values of SIZE bytes under keys `g` + index, one transaction each,
    /// so the map grows while another process uses the file. Reads back the
    /// parent's `p` keys between writes.
    static func grow(_ arguments: [String]) throws {
        guard arguments.count == 3, let count = Int(arguments[1]), let size = Int(arguments[2]) else {
            throw HelperError.usage("lmdb-grow PATH COUNT SIZE")
        }
        var options = Environment.Options(mapSize: 64 << 10, maxMapSize: 4 << 30)
        options.maxDatabases = 4
        let environment = try Environment(path: arguments[0], options: options)
        let database = try environment.createDatabase(named: "shared")
        var parentKeysSeen = 0
        for index in 0..<count {
            let value = growValue(index: index, size: size)
            try environment.write { txn in
                try database.put(value, forKey: growKey(index), in: txn)
            }
            parentKeysSeen = try environment.read { txn in
                var seen = 0
                try database.forEach(in: txn, range: .prefix(Array("p".utf8))) { _ in
                    seen += 1
                    return true
                }
                return seen
            }
        }
        let info = try environment.info()
        print("wrote \(count) map \(info.mapSize) parent-keys \(parentKeysSeen)")
    }

    /// `lmdb-hold-reader PATH`: opens a read transaction and sleeps inside it
    /// until killed, leaving a reader slot behind for `mdb_reader_check`.
    static func holdReader(_ arguments: [String]) throws {
        guard arguments.count == 1 else { throw HelperError.usage("lmdb-hold-reader PATH") }
        let environment = try Environment(path: arguments[0])
        try environment.read { _ in
            print("holding")
            while true { sleep(60) }
        }
    }

    /// `lmdb-hold-writer PATH SECONDS`: holds the file's writer lock (an
    /// open write transaction) from saying `holding` until its stdin closes
    /// or SECONDS pass; writes nothing.
    static func holdWriter(_ arguments: [String]) throws {
        guard arguments.count == 2, let seconds = Int32(arguments[1]) else {
            throw HelperError.usage("lmdb-hold-writer PATH SECONDS")
        }
        let environment = try Environment(path: arguments[0])
        try environment.write { _ in
            let line = "holding\n"
            _ = line.withCString { write(1, $0, strlen($0)) }
            var input = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            var byte: UInt8 = 0
            while poll(&input, 1, seconds * 1000) > 0, read(0, &byte, 1) > 0 {}
        }
        print("released")
    }

    static func growKey(_ index: Int) -> [UInt8] {
        Array("g".utf8) + withUnsafeBytes(of: UInt32(index).bigEndian, Array.init)
    }

    /// A value whose bytes depend on its index, so a mix-up is caught.
    static func growValue(index: Int, size: Int) -> [UInt8] {
        var value = [UInt8](repeating: UInt8(truncatingIfNeeded: index &* 7 &+ 1), count: size)
        withUnsafeBytes(of: UInt64(index).bigEndian) { bytes in
            for (offset, byte) in bytes.enumerated() where offset < size { value[offset] = byte }
        }
        return value
    }
}

enum HelperError: Error, CustomStringConvertible {
    case usage(String)
    case failed(String)

    var description: String {
        switch self {
        case .usage(let usage): "usage: kura-test-helper \(usage)"
        case .failed(let message): message
        }
    }
}
