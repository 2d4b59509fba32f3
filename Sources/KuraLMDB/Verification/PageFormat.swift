/// LMDB's on-disk page layout (format version 1, as written by LMDB 0.9 on
/// a 64-bit little-endian machine), read from bytes that may be damaged.
///
/// ```
/// page header (16 bytes)   pgno: UInt64 · pad: UInt16 · flags: UInt16 ·
///                          lower: UInt16, upper: UInt16 (or pages: UInt32 for overflow)
/// node pointers            UInt16 offsets from the page's start, after the header
/// node (8 bytes + data)    lo: UInt16 · hi: UInt16 · flags: UInt16 · key size: UInt16 · key · data
/// meta (pages 0 and 1)     after the header: magic, version, address, map size,
///                          free and main database records (48 bytes each), last page, txn ID
/// ```
///
/// Every accessor checks its bounds: a damaged page gives a ``PageProblem``,
/// never a read past the buffer.
enum PageFormat {
    static let headerSize = 16
    static let nodeHeaderSize = 8
    static let databaseRecordSize = 48
    static let metaCount = 2
    static let magic: UInt32 = 0xBEEF_C0DE
    static let dataVersion: UInt32 = 1
    static let invalidPage = UInt64.max

    // Page flags.
    static let branch: UInt16 = 0x01
    static let leaf: UInt16 = 0x02
    static let overflow: UInt16 = 0x04
    static let meta: UInt16 = 0x08
    static let leaf2: UInt16 = 0x20
    static let subPage: UInt16 = 0x40
    static let kindMask: UInt16 = branch | leaf | overflow | meta | leaf2 | subPage

    // Node flags.
    static let bigData: UInt16 = 0x01
    static let subDatabase: UInt16 = 0x02
    static let duplicateData: UInt16 = 0x04

    // Database flags.
    static let reverseKey: UInt16 = 0x02
    static let duplicateSort: UInt16 = 0x04
    static let integerKey: UInt16 = 0x08

    /// The largest key LMDB 0.9 stores (`MDB_MAXKEYSIZE`).
    static let maxKeySize = 511
}

/// A database's record (`MDB_db`): in a meta page for the free and main
/// databases, or as the value of a named database's entry in the main one.
struct DatabaseRecord: Equatable {
    var flags: UInt16
    var depth: Int
    var branchPages: UInt64
    var leafPages: UInt64
    var overflowPages: UInt64
    var entries: UInt64
    var root: UInt64

    init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= PageFormat.databaseRecordSize)
        flags = bytes.loadLittleEndian(at: 4, as: UInt16.self)
        depth = Int(bytes.loadLittleEndian(at: 6, as: UInt16.self))
        branchPages = bytes.loadLittleEndian(at: 8, as: UInt64.self)
        leafPages = bytes.loadLittleEndian(at: 16, as: UInt64.self)
        overflowPages = bytes.loadLittleEndian(at: 24, as: UInt64.self)
        entries = bytes.loadLittleEndian(at: 32, as: UInt64.self)
        root = bytes.loadLittleEndian(at: 40, as: UInt64.self)
    }

    var isEmpty: Bool { root == PageFormat.invalidPage }
    var pageCount: UInt64 { branchPages &+ leafPages &+ overflowPages }
}

/// One of the two meta pages.
struct MetaPage {
    var pageSize: Int
    var mapSize: UInt64
    var free: DatabaseRecord
    var main: DatabaseRecord
    var lastPage: UInt64
    var transactionID: UInt64

    /// Reads a meta page, or says what is wrong with it.
    init(_ page: UnsafeRawBufferPointer, number: UInt64) throws(PageProblem) {
        let metaStart = PageFormat.headerSize
        guard page.count >= metaStart + 16 + 2 * PageFormat.databaseRecordSize + 16 else {
            throw PageProblem(page: number, "the meta page is too short")
        }
        guard page.loadLittleEndian(at: 10, as: UInt16.self) & PageFormat.meta != 0 else {
            throw PageProblem(page: number, "is not marked as a meta page")
        }
        guard page.loadLittleEndian(at: metaStart, as: UInt32.self) == PageFormat.magic else {
            throw PageProblem(page: number, "the meta page has no LMDB magic number")
        }
        guard page.loadLittleEndian(at: metaStart + 4, as: UInt32.self) == PageFormat.dataVersion else {
            throw PageProblem(page: number, "the meta page has an unknown format version")
        }
        mapSize = page.loadLittleEndian(at: metaStart + 16, as: UInt64.self)
        let records = metaStart + 24
        free = DatabaseRecord(UnsafeRawBufferPointer(rebasing: page[records..<(records + PageFormat.databaseRecordSize)]))
        main = DatabaseRecord(UnsafeRawBufferPointer(
            rebasing: page[(records + PageFormat.databaseRecordSize)..<(records + 2 * PageFormat.databaseRecordSize)]))
        pageSize = Int(page.loadLittleEndian(at: records, as: UInt32.self))  // the free record's pad holds the page size
        let tail = records + 2 * PageFormat.databaseRecordSize
        lastPage = page.loadLittleEndian(at: tail, as: UInt64.self)
        transactionID = page.loadLittleEndian(at: tail + 8, as: UInt64.self)
    }
}

/// What is wrong with one page, for the structure report.
struct PageProblem: Error, CustomStringConvertible {
    var page: UInt64
    var message: String

    init(page: UInt64, _ message: String) {
        self.page = page
        self.message = message
    }

    var description: String { "page \(page): \(message)" }
}

/// A branch or leaf page, its header read and its node pointers checked.
struct TreePage {
    let bytes: UnsafeRawBufferPointer
    let number: UInt64
    let flags: UInt16
    let nodeCount: Int

    init(_ bytes: UnsafeRawBufferPointer, number: UInt64) throws(PageProblem) {
        guard bytes.count >= PageFormat.headerSize else { throw PageProblem(page: number, "is too short") }
        self.bytes = bytes
        self.number = number
        let stored = bytes.loadLittleEndian(at: 0, as: UInt64.self)
        guard stored == number else {
            throw PageProblem(page: number, "says it is page \(stored)")
        }
        flags = bytes.loadLittleEndian(at: 10, as: UInt16.self)
        let kind = flags & PageFormat.kindMask
        guard kind == PageFormat.branch || kind == PageFormat.leaf else {
            throw PageProblem(page: number, "should be a branch or leaf page, but its flags are 0x\(String(flags, radix: 16))")
        }
        let lower = Int(bytes.loadLittleEndian(at: 12, as: UInt16.self))
        let upper = Int(bytes.loadLittleEndian(at: 14, as: UInt16.self))
        guard lower >= PageFormat.headerSize, (lower - PageFormat.headerSize) % 2 == 0, lower <= upper,
              upper <= bytes.count else {
            throw PageProblem(page: number, "its free-space bounds (\(lower), \(upper)) are impossible")
        }
        nodeCount = (lower - PageFormat.headerSize) / 2
        guard nodeCount > 0 else { throw PageProblem(page: number, "has no entries") }
        for index in 0..<nodeCount {
            let offset = Int(bytes.loadLittleEndian(at: PageFormat.headerSize + 2 * index, as: UInt16.self))
            guard offset >= upper, offset + PageFormat.nodeHeaderSize <= bytes.count else {
                throw PageProblem(page: number, "entry \(index) starts outside the page's node area")
            }
        }
    }

    var isBranch: Bool { flags & PageFormat.kindMask == PageFormat.branch }

    /// Node `index`: its flags, key and (for a leaf) its data or overflow
    /// page, each checked to lie inside the page.
    func node(_ index: Int) throws(PageProblem) -> Node {
        let offset = Int(bytes.loadLittleEndian(at: PageFormat.headerSize + 2 * index, as: UInt16.self))
        let low = UInt64(bytes.loadLittleEndian(at: offset, as: UInt16.self))
        let high = UInt64(bytes.loadLittleEndian(at: offset + 2, as: UInt16.self))
        let flags = bytes.loadLittleEndian(at: offset + 4, as: UInt16.self)
        let keySize = Int(bytes.loadLittleEndian(at: offset + 6, as: UInt16.self))
        let keyStart = offset + PageFormat.nodeHeaderSize
        guard keySize <= PageFormat.maxKeySize, keyStart + keySize <= bytes.count else {
            throw PageProblem(page: number, "the key of entry \(index) runs past the end of the page")
        }
        let key = UnsafeRawBufferPointer(rebasing: bytes[keyStart..<(keyStart + keySize)])
        if isBranch {
            return Node(flags: 0, key: key, child: low | high << 16 | UInt64(flags) << 32, data: nil, dataSize: 0, overflowPage: nil)
        }
        let dataSize = Int(low | high << 16)
        let dataStart = keyStart + keySize
        if flags & PageFormat.bigData != 0 {
            guard dataStart + 8 <= bytes.count else {
                throw PageProblem(page: number, "the overflow reference of entry \(index) runs past the end of the page")
            }
            let overflow = bytes.loadLittleEndian(at: dataStart, as: UInt64.self)
            return Node(flags: flags, key: key, child: nil, data: nil, dataSize: dataSize, overflowPage: overflow)
        }
        guard dataStart + dataSize <= bytes.count else {
            throw PageProblem(page: number, "the value of entry \(index) runs past the end of the page")
        }
        let data = UnsafeRawBufferPointer(rebasing: bytes[dataStart..<(dataStart + dataSize)])
        return Node(flags: flags, key: key, child: nil, data: data, dataSize: dataSize, overflowPage: nil)
    }

    struct Node {
        let flags: UInt16
        let key: UnsafeRawBufferPointer
        /// For a branch node: the child page.
        let child: UInt64?
        /// For a leaf node stored in the page.
        let data: UnsafeRawBufferPointer?
        let dataSize: Int
        /// For a leaf node whose value is on overflow pages.
        let overflowPage: UInt64?
    }
}

extension UnsafeRawBufferPointer {
    /// A little-endian integer at `offset`; the caller checked the bounds.
    @inline(__always)
    func loadLittleEndian<Integer: FixedWidthInteger>(at offset: Int, as type: Integer.Type) -> Integer {
        precondition(offset >= 0 && offset + MemoryLayout<Integer>.size <= count, "read past a checked buffer")
        return Integer(littleEndian: loadUnaligned(fromByteOffset: offset, as: Integer.self))
    }
}
