/// Something to fuzz: a decoder or parser, the valid inputs to start from,
/// and the properties every input must keep.
public protocol FuzzTarget: Sendable {
    /// The name on the command line: `kura-fuzz NAME`.
    var name: String { get }
    /// Valid inputs; most fuzz inputs are mutations of these.
    var seeds: [[UInt8]] { get }
    /// Fragments worth inserting whole (keywords, JSON tokens, tags).
    var dictionary: [[UInt8]] { get }
    /// A new input built from the format's grammar, valid or nearly: it
    /// reaches the checks past the parser that byte mutations rarely do.
    /// `nil` (the default) when the target has no generator.
    func generate(using generator: inout SplitMix64) -> [UInt8]?

    /// Runs one input: true when it was accepted, false when it was refused
    /// with an error.
    ///
    /// - Throws: ``FuzzFailure`` when a property failed: the bug the
    ///   harness looks for (crashes and hangs are caught around it).
    func run(_ input: [UInt8]) throws(FuzzFailure) -> Bool
}

extension FuzzTarget {
    public func generate(using generator: inout SplitMix64) -> [UInt8]? { nil }
}

/// A property a fuzz input broke.
public struct FuzzFailure: Error, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
