/// "Did you mean …?" for a mistyped command or entity name.
enum Suggestion {
    /// The candidate closest to `word` (case ignored) within two edits (one
    /// for words of up to four letters), or `nil` when none is that close.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let typed = Array(word.lowercased())
        let allowed = typed.count <= 4 ? 1 : 2
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(typed, Array(candidate.lowercased()))
            if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.candidate
    }

    /// `" (did you mean 'fetch'?)"`, or `""` when nothing is close.
    static func phrase(for word: String, in candidates: [String]) -> String {
        closest(to: word, in: candidates).map { " (did you mean '\($0)'?)" } ?? ""
    }

    /// Insertions, deletions, substitutions and swaps of neighbours
    /// (optimal string alignment) turning `a` into `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
