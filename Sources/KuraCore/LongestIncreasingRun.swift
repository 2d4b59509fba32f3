extension Array<Int> {
    /// The indices of one longest strictly increasing subsequence of the
    /// values (patience sorting, O(n log n)); negative values are never in
    /// it. What stays in place when a list is reordered: the results
    /// difference's moves, an ordered to-many's members that keep their
    /// order keys.
    func longestIncreasingRun() -> Set<Int> {
        var tails: [Int] = []  // index of the smallest tail of a run of each length
        var previous = [Int](repeating: -1, count: count)
        for (index, value) in enumerated() where value >= 0 {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if self[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run = Set<Int>()
        var index = tails.last ?? -1
        while index >= 0 {
            run.insert(index)
            index = previous[index]
        }
        return run
    }
}
