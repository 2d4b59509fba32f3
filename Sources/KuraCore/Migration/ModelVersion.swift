/// A ``ManagedObjectModel/versionIdentifier`` read as a version number, the
/// way semantic versioning orders them: what tells whether a model is older
/// or newer than the one a store holds.
///
/// The grammar (ASCII only, nothing before or after it, no white space):
///
/// ```
/// identifier  = core [ "-" prerelease ] [ "+" build ]
/// core        = number *( "." number )           ; "2", "1.10", "2026.11.30"
/// number      = "0" / ( "1"…"9" *( "0"…"9" ) )   ; no leading zeros
/// prerelease  = part *( "." part )               ; "beta", "rc.2", "alpha-1"
/// part        = number / 1*( "0"…"9" / "A"…"Z" / "a"…"z" / "-" )  ; not all digits with a leading zero
/// build       = 1*( alphanumerics / "-" ) *( "." … )  ; ignored by the order
/// ```
///
/// Order: the core's numbers by value, left to right, a missing number
/// counting as 0 (`"2"`, `"2.0"` and `"2.0.0"` are the same version); then
/// a version with a pre-release is older than the same core without one
/// (`"1.0-beta"` < `"1.0"`), and two pre-releases compare part by part
/// (numbers by value, below words, words in ASCII order; more parts is
/// newer when the others are equal). Build metadata doesn't order:
/// `"1.0+7"` and `"1.0+8"` are the same version.
///
/// (`"2026-11-30"` is valid, but a pre-release of 2026: write dates with dots.)
/// Anything else (`"1.00"`, `"02"`, `" 2"`, `"2\n"`, `"v2"`, `"２"`, `""`)
/// is not a version: a model with such an identifier is refused when it
/// opens a store, rather than ordered by a guess.
struct ModelVersion: Comparable, CustomStringConvertible {
    /// The core's numbers, trailing zeros dropped (so equal versions have equal cores).
    private let core: [Substring]
    /// The pre-release's parts; empty for a release.
    private let prerelease: [Substring]
    let description: String

    /// The version `text` names, or `nil` when it isn't one under the grammar.
    init?(_ text: String) {
        description = text
        let withoutBuild: Substring
        if let plus = text.firstIndex(of: "+") {
            let build = text[text.index(after: plus)...]
            guard Self.isDottedWords(build) else { return nil }
            withoutBuild = text[..<plus]
        } else {
            withoutBuild = text[...]
        }
        let coreText: Substring
        if let dash = withoutBuild.firstIndex(of: "-") {
            let tag = withoutBuild[withoutBuild.index(after: dash)...]
            guard Self.isDottedWords(tag) else { return nil }
            prerelease = tag.split(separator: ".", omittingEmptySubsequences: false)
            guard prerelease.allSatisfy({ !Self.isDigits($0) || Self.isNumber($0) }) else { return nil }
            coreText = withoutBuild[..<dash]
        } else {
            prerelease = []
            coreText = withoutBuild
        }
        var numbers = coreText.split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.allSatisfy(Self.isNumber) else { return nil }
        while numbers.count > 1, numbers.last == "0" { numbers.removeLast() }
        core = numbers
    }

    /// The grammar, for error messages.
    static let grammar = "a version number such as \"2\", \"1.10\" or \"2026.11.30\", "
        + "optionally with a pre-release (\"1.0-beta.2\", older than \"1.0\") or build metadata (\"1.0+42\", ignored); "
        + "ASCII digits without leading zeros, nothing around it"

    static func == (a: ModelVersion, b: ModelVersion) -> Bool {
        a.core == b.core && a.prerelease == b.prerelease
    }

    static func < (a: ModelVersion, b: ModelVersion) -> Bool {
        for index in 0..<max(a.core.count, b.core.count) {
            let x = index < a.core.count ? a.core[index] : "0"
            let y = index < b.core.count ? b.core[index] : "0"
            if x != y { return numberPrecedes(x, y) }
        }
        // A pre-release precedes its release.
        if a.prerelease.isEmpty || b.prerelease.isEmpty { return !a.prerelease.isEmpty && b.prerelease.isEmpty }
        for (x, y) in zip(a.prerelease, b.prerelease) where x != y {
            switch (isDigits(x), isDigits(y)) {
            case (true, true): return numberPrecedes(x, y)
            case (true, false): return true
            case (false, true): return false
            case (false, false): return x.utf8.lexicographicallyPrecedes(y.utf8)
            }
        }
        return a.prerelease.count < b.prerelease.count
    }

    /// Two numbers without leading zeros: the shorter is the smaller.
    private static func numberPrecedes(_ x: Substring, _ y: Substring) -> Bool {
        x.utf8.count != y.utf8.count ? x.utf8.count < y.utf8.count : x.utf8.lexicographicallyPrecedes(y.utf8)
    }

    private static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) }
    }

    private static func isNumber(_ text: Substring) -> Bool {
        isDigits(text) && (text == "0" || text.utf8.first != 0x30)
    }

    /// Dot-separated runs of ASCII letters, digits and hyphens, none empty.
    private static func isDottedWords(_ text: Substring) -> Bool {
        text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.utf8.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
            }
        }
    }
}

extension ManagedObjectModel {
    /// Throws ``KuraError/invalidModel(_:)`` when the model's
    /// ``versionIdentifier`` is not a version under ``ModelVersion``'s grammar.
    func checkVersionIdentifier() throws {
        guard let identifier = versionIdentifier, ModelVersion(identifier) == nil else { return }
        throw KuraError.invalidModel(
            "the versionIdentifier \(String(reflecting: identifier)) is not a version: use \(ModelVersion.grammar) "
                + "(Kura orders versions to know which model is older, and won't guess)")
    }
}
