#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Walks every tree of one snapshot by reading the file with `pread`, never
/// through the memory map, so that damage ends in a problem report instead
/// of a crash: page numbers are checked against the snapshot and the file,
/// page headers and node bounds against the page, keys against their
/// neighbours and their parent's separators, page and entry counts against
/// each database's record, and every page must be used once, by a tree or
/// the free list.
struct StructureVerifier {
    let descriptor: Int32
    let fileSize: Int
    let meta: MetaPage
    let problemLimit: Int
    /// The named databases to walk, or `nil` for all (and the free list,
    /// and the page accounting).
    let only: Set<String>?

    private(set) var report: StructureReport
    /// One bit per page of the snapshot: seen in a tree or the free list.
    private var seen: [UInt64]
    private var accountingIsPossible = true

    init(descriptor: Int32, fileSize: Int, meta: MetaPage, problemLimit: Int, only: Set<String>? = nil) {
        self.only = only
        self.descriptor = descriptor
        self.fileSize = fileSize
        self.meta = meta
        self.problemLimit = problemLimit
        let pages = Int(clamping: min(meta.lastPage, UInt64(fileSize / max(meta.pageSize, 1))) + 1)
        seen = [UInt64](repeating: 0, count: pages / 64 + 1)
        report = StructureReport(
            transactionID: Int(clamping: meta.transactionID), pageSize: meta.pageSize,
            totalPages: Int(clamping: meta.lastPage &+ 1), usedPages: 0, freePages: 0, databases: [])
    }

    // MARK: Running

    mutating func run() {
        var free = DatabaseTally(name: "(free pages)")
        if only == nil {
            walk(meta.free, tally: &free, integerKeys: true, leafFlags: PageFormat.bigData) { verifier, node, page in
                verifier.visitFreeList(node, in: page)
            }
        } else {
            accountingIsPossible = false
        }
        var main = DatabaseTally(name: nil)
        var named: [(String, DatabaseRecord)] = []
        walk(meta.main, tally: &main, integerKeys: false, leafFlags: PageFormat.bigData | PageFormat.subDatabase) { verifier, node, page in
            guard node.flags & PageFormat.subDatabase != 0 else { return }
            guard node.flags & PageFormat.bigData == 0, let data = node.data, data.count == PageFormat.databaseRecordSize else {
                verifier.problem(PageProblem(page: page, "the record of a named database has the wrong size") as any Error)
                return
            }
            named.append((String(decoding: node.key, as: UTF8.self), DatabaseRecord(data)))
        }
        report.databases.append(main.database)
        for (name, record) in named where only?.contains(name) ?? true {
            var tally = DatabaseTally(name: name)
            walk(record, tally: &tally, integerKeys: record.flags & PageFormat.integerKey != 0, leafFlags: PageFormat.bigData) { _, _, _ in }
            report.databases.append(tally.database)
        }
        report.usedPages = report.databases.reduce(0) { $0 + $1.branchPages + $1.leafPages + $1.overflowPages }
            + free.branchPages + free.leafPages + free.overflowPages
        let accounted = report.usedPages + report.freePages + PageFormat.metaCount
        if accountingIsPossible && report.problemCount == 0 && accounted != report.totalPages {
            problem(
                "the snapshot has \(report.totalPages) pages, but the trees and the free list account for \(accounted)")
        }
    }

    // MARK: Problems

    private mutating func problem(_ text: String) {
        report.problemCount += 1
        if report.problems.count < problemLimit { report.problems.append(text) }
    }

    private mutating func problem(_ error: any Error, in tally: DatabaseTally? = nil) {
        let place = tally.map { " (\($0.label))" } ?? ""
        self.problem("\(error)\(place)")
    }

    // MARK: Pages

    /// Marks `count` pages from `first` as used; a page used twice, or one
    /// outside the snapshot, is a problem.
    private mutating func claim(_ first: UInt64, count: UInt64, from page: UInt64) throws(PageProblem) {
        guard first >= UInt64(PageFormat.metaCount), count > 0, first <= meta.lastPage,
              count - 1 <= meta.lastPage - first else {
            throw PageProblem(page: page, "refers to page \(first)\(count > 1 ? " (\(count) pages)" : ""), outside the snapshot's \(meta.lastPage &+ 1) pages")
        }
        for number in first..<(first + count) {
            let word = Int(number / 64)
            let bit = UInt64(1) << (number % 64)
            guard word < seen.count else {
                throw PageProblem(page: page, "refers to page \(number), past the end of the file")
            }
            if seen[word] & bit != 0 { throw PageProblem(page: page, "refers to page \(number), which is already in use") }
            seen[word] |= bit
        }
    }

    /// Reads pages from the file, checking that they are there.
    private func read(_ first: UInt64, count: Int = 1) throws(PageProblem) -> [UInt8] {
        let size = count * meta.pageSize
        let (offset, overflow) = first.multipliedReportingOverflow(by: UInt64(meta.pageSize))
        guard !overflow, offset <= UInt64(Int.max), Int(offset) + size <= fileSize else {
            throw PageProblem(page: first, "lies past the end of the file")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, size - done, off_t(Int(offset) + done))
            }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { throw PageProblem(page: first, "could not be read (\(got < 0 ? String(cString: strerror(errno)) : "end of file"))") }
            done += got
        }
        return bytes
    }

    // MARK: Trees

    /// Counts kept while walking one database.
    private struct DatabaseTally {
        var name: String?
        var branchPages = 0
        var leafPages = 0
        var overflowPages = 0
        var entries = 0
        var isIntact = true

        var label: String { name.map { "database \($0)" } ?? "main database" }

        var database: StructureReport.Database {
            StructureReport.Database(
                name: name, isIntact: isIntact, branchPages: branchPages, leafPages: leafPages,
                overflowPages: overflowPages, entries: entries)
        }
    }

    /// Walks one tree, calling `visitLeaf` with each leaf node (its value
    /// checked to lie in the page or on overflow pages of its own).
    ///
    /// A leaf node may only carry `leafFlags`: LMDB reads a node marked as
    /// holding duplicates (`F_DUPDATA`) in a database without them through
    /// a cursor that isn't there, and crashes.
    private mutating func walk(
        _ record: DatabaseRecord, tally: inout DatabaseTally, integerKeys: Bool, leafFlags: UInt16,
        visitLeaf: (inout StructureVerifier, TreePage.Node, UInt64) -> Void
    ) {
        if record.flags & PageFormat.duplicateSort != 0 {
            // Kura never makes databases with duplicate keys; their pages
            // can't be accounted for here.
            accountingIsPossible = false
            problem("\(tally.label) has duplicate keys (MDB_DUPSORT), which Kura's stores never use")
            tally.isIntact = false
            return
        }
        if record.isEmpty {
            if record.pageCount != 0 || record.entries != 0 || record.depth != 0 {
                problem("\(tally.label) is empty but its record counts \(record.pageCount) pages and \(record.entries) entries")
                tally.isIntact = false
            }
            return
        }
        do {
            try claim(record.root, count: 1, from: record.root)
            try visit(record.root, level: 1, depth: record.depth, lower: nil, upper: nil, tally: &tally,
                      integerKeys: integerKeys, leafFlags: leafFlags, visitLeaf: visitLeaf)
        } catch {
            problem(error, in: tally)
            tally.isIntact = false
            return
        }
        guard tally.isIntact else { return }
        let counted = (UInt64(tally.branchPages), UInt64(tally.leafPages), UInt64(tally.overflowPages), UInt64(tally.entries))
        if counted != (record.branchPages, record.leafPages, record.overflowPages, record.entries) {
            problem("\(tally.label) has \(tally.branchPages) branch, \(tally.leafPages) leaf and \(tally.overflowPages) overflow "
                + "pages and \(tally.entries) entries, but its record says \(record.branchPages), \(record.leafPages), "
                + "\(record.overflowPages) and \(record.entries)")
            tally.isIntact = false
        }
    }

    private mutating func visit(
        _ number: UInt64, level: Int, depth: Int, lower: [UInt8]?, upper: [UInt8]?, tally: inout DatabaseTally,
        integerKeys: Bool, leafFlags: UInt16, visitLeaf: (inout StructureVerifier, TreePage.Node, UInt64) -> Void
    ) throws {
        guard level <= depth, level <= 32 else {
            throw PageProblem(page: number, "is deeper in its tree than the tree's depth (\(depth))")
        }
        let bytes = try read(number)
        try bytes.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) throws in
            let page = try TreePage(buffer, number: number)
            if page.isBranch {
                guard level < depth else { throw PageProblem(page: number, "is a branch page at the depth of the tree's leaves") }
                tally.branchPages += 1
            } else {
                guard level == depth else { throw PageProblem(page: number, "is a leaf page above the depth of the tree's leaves") }
                tally.leafPages += 1
            }
            var nodes: [TreePage.Node] = []
            nodes.reserveCapacity(page.nodeCount)
            var previous: UnsafeRawBufferPointer?
            for index in 0..<page.nodeCount {
                let node = try page.node(index)
                // A branch page's first key is the implicit lowest: not compared.
                if !(page.isBranch && index == 0) {
                    if let previous, Self.compare(previous, node.key, integerKeys: integerKeys) >= 0 {
                        throw PageProblem(page: number, "entry \(index) is out of key order")
                    }
                    if let lower, lower.withUnsafeBytes({ Self.compare($0, node.key, integerKeys: integerKeys) }) > 0 {
                        throw PageProblem(page: number, "entry \(index) sorts before its parent's separator")
                    }
                    if let upper, upper.withUnsafeBytes({ Self.compare(node.key, $0, integerKeys: integerKeys) }) >= 0 {
                        throw PageProblem(page: number, "entry \(index) sorts after the next separator of its parent")
                    }
                    previous = node.key
                }
                nodes.append(node)
            }
            if page.isBranch {
                for (index, node) in nodes.enumerated() {
                    let child = node.child!
                    try claim(child, count: 1, from: number)
                    let childLower = index == 0 ? lower : Array(node.key)
                    let childUpper = index == nodes.count - 1 ? upper : Array(nodes[index + 1].key)
                    try visit(child, level: level + 1, depth: depth, lower: childLower, upper: childUpper, tally: &tally,
                              integerKeys: integerKeys, leafFlags: leafFlags, visitLeaf: visitLeaf)
                }
                return
            }
            for (index, node) in nodes.enumerated() {
                guard node.flags & ~leafFlags == 0 else {
                    throw PageProblem(page: number, "entry \(index) has flags 0x\(String(node.flags, radix: 16)), which this database can't hold")
                }
                tally.entries += 1
                if let overflow = node.overflowPage {
                    let pages = try checkOverflow(overflow, dataSize: node.dataSize, from: number)
                    tally.overflowPages += pages
                }
                visitLeaf(&self, node, number)
            }
        }
    }

    /// Checks the overflow pages of a value and claims them; returns how many.
    private mutating func checkOverflow(_ first: UInt64, dataSize: Int, from page: UInt64) throws(PageProblem) -> Int {
        let header = try read(first)
        let (stored, flags, pages) = header.withUnsafeBytes { bytes in
            (bytes.loadLittleEndian(at: 0, as: UInt64.self), bytes.loadLittleEndian(at: 10, as: UInt16.self),
             bytes.loadLittleEndian(at: 12, as: UInt32.self))
        }
        guard stored == first, flags & PageFormat.kindMask == PageFormat.overflow else {
            throw PageProblem(page: page, "refers to page \(first) for a value, which is not an overflow page")
        }
        let needed = (PageFormat.headerSize + dataSize + meta.pageSize - 1) / meta.pageSize
        guard Int(pages) >= needed else {
            throw PageProblem(page: first, "holds \(pages) overflow pages, too few for a value of \(dataSize) bytes")
        }
        try claim(first, count: UInt64(pages), from: page)
        _ = try read(first, count: Int(pages))  // every page must be in the file
        return Int(pages)
    }

    /// A free-list entry: a count, then that many page numbers, each free.
    private mutating func visitFreeList(_ node: TreePage.Node, in page: UInt64) {
        do {
            let value: [UInt8]
            if let data = node.data {
                value = Array(data)
            } else if let overflow = node.overflowPage {
                value = Array(try read(overflow, count: (PageFormat.headerSize + node.dataSize + meta.pageSize - 1) / meta.pageSize)
                    .dropFirst(PageFormat.headerSize).prefix(node.dataSize))
            } else {
                return
            }
            try value.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) throws in
                guard bytes.count >= 8 else { throw PageProblem(page: page, "a free-list entry is too short") }
                let count = bytes.loadLittleEndian(at: 0, as: UInt64.self)
                guard count <= UInt64(bytes.count / 8 - 1) else {
                    throw PageProblem(page: page, "a free-list entry counts \(count) pages but holds fewer")
                }
                for index in 0..<Int(count) {
                    let free = bytes.loadLittleEndian(at: 8 * (index + 1), as: UInt64.self)
                    try claim(free, count: 1, from: page)
                    report.freePages += 1
                }
            }
        } catch {
            problem(error, in: DatabaseTally(name: "(free pages)"))
        }
    }

    /// Key order: `memcmp`, shorter first on a tie; or native integers.
    static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, integerKeys: Bool) -> Int {
        if integerKeys && a.count == b.count && (a.count == 8 || a.count == 4) {
            let x: UInt64 = a.count == 8 ? a.loadLittleEndian(at: 0, as: UInt64.self) : UInt64(a.loadLittleEndian(at: 0, as: UInt32.self))
            let y: UInt64 = b.count == 8 ? b.loadLittleEndian(at: 0, as: UInt64.self) : UInt64(b.loadLittleEndian(at: 0, as: UInt32.self))
            return x < y ? -1 : (x == y ? 0 : 1)
        }
        let common = min(a.count, b.count)
        if common > 0 {
            let order = memcmp(a.baseAddress!, b.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return a.count - b.count
    }
}
