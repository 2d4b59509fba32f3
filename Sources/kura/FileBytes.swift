#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The whole of the file at `path` (`-`: standard input) as bytes, read
/// straight into the array: going through `Data` costs a second copy of the
/// file in memory, which a 50 MB import pays for in page faults.
func fileBytes(_ path: String) -> [UInt8]? {
    let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { if path != "-" { close(descriptor) } }
    var bytes: [UInt8] = []
    var status = stat()
    if fstat(descriptor, &status) == 0, status.st_size > 0 { bytes.reserveCapacity(Int(status.st_size)) }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        if count == 0 { return bytes }
        bytes.append(contentsOf: chunk[..<count])
    }
}
