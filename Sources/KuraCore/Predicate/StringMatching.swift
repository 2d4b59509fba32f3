import Foundation
import Synchronization

/// The string side of predicates: `[c]`/`[d]` folding, `LIKE` wildcards and
/// `MATCHES` regular expressions.
enum StringMatching {
    /// `text` with case and/or diacritics removed, as `options` asks: Unicode
    /// case folding ("STRASSE" and "straße" fold alike) and diacritic removal
    /// ("déjà" → "deja"). ASCII text takes a fast path.
    static func fold(_ text: String, _ options: FetchPredicate.ComparisonOptions) -> String {
        guard !options.isEmpty else { return text }
        if IndexKeyEncoding.isASCII(text) {
            guard options.contains(.caseInsensitive) else { return text }
            return String(decoding: text.utf8.map { (0x41...0x5A).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        }
        var foldingOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { foldingOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { foldingOptions.insert(.diacriticInsensitive) }
        return text.folding(options: foldingOptions, locale: nil)
    }

    /// Whether `part` appears in `text` as whole characters (grapheme
    /// clusters, compared by canonical equivalence), as every string
    /// operator compares (`BEGINSWITH` and `ENDSWITH` through Swift's
    /// `hasPrefix` and `hasSuffix`, `LIKE` character by character): a
    /// scalar inside a longer character is not a part. (Foundation's
    /// `contains` would find 👩 in 👨‍👩‍👧.)
    /// The empty string is part of nothing, as in Foundation.
    static func contains(_ text: String, _ part: String) -> Bool {
        if part.isEmpty { return false }
        if IndexKeyEncoding.isASCII(text) && IndexKeyEncoding.isASCII(part) && !text.utf8.contains(0x0D) {
            // ASCII without CR (whose CR LF is one character): bytes are characters.
            return text.utf8.withContiguousStorageIfAvailable { haystack in
                part.utf8.withContiguousStorageIfAvailable { needle in containsBytes(haystack, needle) }
            }.flatMap { $0 } ?? (text.firstRange(of: part) != nil)
        }
        return text.firstRange(of: part) != nil
    }

    private static func containsBytes(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= haystack.count else { return false }
        var start = 0
        let last = haystack.count - needle.count
        while start <= last {
            if haystack[start] == first,
               memcmp(haystack.baseAddress! + start, needle.baseAddress!, needle.count) == 0 {
                return true
            }
            start += 1
        }
        return false
    }

    /// Whether `text` matches a `LIKE` pattern over its whole length: `*`
    /// matches any run of characters, `?` one character. Both are folded already.
    static func like(_ text: String, pattern: [Character]) -> Bool {
        let characters = Array(text)
        // Greedy matching with backtracking to the last `*`: linear in practice.
        var textIndex = 0
        var patternIndex = 0
        var starPattern = -1
        var starText = 0
        while textIndex < characters.count {
            if patternIndex < pattern.count && (pattern[patternIndex] == "?" || pattern[patternIndex] == characters[textIndex]) {
                textIndex += 1
                patternIndex += 1
            } else if patternIndex < pattern.count && pattern[patternIndex] == "*" {
                starPattern = patternIndex
                starText = textIndex
                patternIndex += 1
            } else if starPattern >= 0 {
                patternIndex = starPattern + 1
                starText += 1
                textIndex = starText
            } else {
                return false
            }
        }
        while patternIndex < pattern.count && pattern[patternIndex] == "*" { patternIndex += 1 }
        return patternIndex == pattern.count
    }
}

/// A compiled `MATCHES` pattern. `@unchecked Sendable`: NSRegularExpression
/// is immutable and documented as safe to use from several threads.
struct RegularExpression: @unchecked Sendable, Hashable {
    let pattern: String
    let expression: NSRegularExpression

    /// `pattern` compiled to match whole strings (as NSPredicate's MATCHES
    /// does), from a process-wide cache: a key-to-key `MATCHES` compiles its
    /// pattern per object, and swift-corelibs-foundation leaks a pattern's
    /// UTF-16 copy on every compile of one longer than 256 units
    /// (`_CFRegularExpressionCreate`), so each pattern is compiled once.
    static func compiled(_ pattern: String, caseInsensitive: Bool) throws -> RegularExpression {
        let key = CacheKey(pattern: pattern, caseInsensitive: caseInsensitive)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let expression = try RegularExpression(pattern, caseInsensitive: caseInsensitive)
        cache.withLock { entries in
            if entries.count >= cacheLimit { entries.removeAll() }
            entries[key] = expression
        }
        return expression
    }

    private struct CacheKey: Hashable {
        let pattern: String
        let caseInsensitive: Bool
    }

    private static let cacheLimit = 512
    private static let cache = Mutex<[CacheKey: RegularExpression]>([:])

    private init(_ pattern: String, caseInsensitive: Bool) throws {
        self.pattern = pattern
        do {
            expression = try NSRegularExpression(
                pattern: "^(?:\(pattern))$", options: caseInsensitive ? [.caseInsensitive] : [])
        } catch {
            throw KuraError.invalidRegularExpression(pattern: pattern, reason: "\(error.localizedDescription)")
        }
        // A pattern like "a)(b" compiles once wrapped; check it alone too.
        do {
            _ = try NSRegularExpression(pattern: pattern)
        } catch {
            throw KuraError.invalidRegularExpression(pattern: pattern, reason: "\(error.localizedDescription)")
        }
    }

    func matches(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return expression.firstMatch(in: text, options: [], range: range) != nil
    }

    static func == (lhs: RegularExpression, rhs: RegularExpression) -> Bool { lhs.pattern == rhs.pattern }
    func hash(into hasher: inout Hasher) { hasher.combine(pattern) }
}
