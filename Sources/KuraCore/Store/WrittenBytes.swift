extension Array where Element == UInt8 {
    /// `count` bytes, written by `body` into a temporary buffer (on the
    /// stack when small) and then copied in.
    ///
    /// `[UInt8](unsafeUninitializedCapacity:)` would write in place, but it
    /// allocates through the standard library's unspecialized path, which
    /// looks up the array's storage type at run time: more than the rest of
    /// encoding a seven-attribute record costs. The copy made here is
    /// specialized, and a record's few hundred bytes copy at once.
    @inline(__always)
    init(writing count: Int, _ body: (UnsafeMutableRawBufferPointer) -> Void) {
        self = withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
            body(buffer)
            return [UInt8](UnsafeRawBufferPointer(buffer))
        }
    }
}
