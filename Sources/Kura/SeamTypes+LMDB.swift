import KuraLMDB
import KuraCore

// The seam's put flags and entries as KuraLMDB's: the same meanings,
// converted where the LMDB engine calls KuraLMDB (a copy of a few words).

extension KuraCore.PutFlags {
    var lmdb: KuraLMDB.PutFlags {
        var flags: KuraLMDB.PutFlags = []
        if contains(.noOverwrite) { flags.insert(.noOverwrite) }
        if contains(.append) { flags.insert(.append) }
        return flags
    }
}

extension StorageEntry {
    @inline(__always)
    init(_ entry: KuraLMDB.Entry) {
        self.init(key: entry.key, value: entry.value)
    }
}
