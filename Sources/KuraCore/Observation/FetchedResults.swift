/// One state of an observed fetch request's results (see
/// ``ManagedObjectContext/results(for:sectionNameKey:)``): the objects, in
/// the request's order and of its class, grouped into sections, and how
/// they differ from the previous state.
///
/// The objects belong to the observing context, like the results of
/// ``ManagedObjectContext/fetch(_:)``; the value is not `Sendable` for that
/// reason. Pass ``objectIDs`` to other tasks.
public struct FetchedResults<Object: ManagedObject> {
    /// A run of consecutive results with the same value of the section key.
    public typealias Section = FetchedResultsSection

    /// The results, in the request's order.
    public let objects: [Object]
    /// The sections, in order: one per run of equal section-key values (so
    /// sort by the section key first), or one section named `""` holding
    /// everything when no key was given (none when there are no results).
    public let sections: [Section]
    /// How these results differ from the previous ones; for the first
    /// results, every object is inserted.
    public let difference: ResultsDifference

    /// The IDs of ``objects``, to pass to another task.
    public var objectIDs: [ObjectID] { objects.map(\.objectID) }

    /// The section and row of a position among ``objects``.
    public func indexPath(ofPosition position: Int) -> (section: Int, row: Int) {
        var low = 0, high = sections.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if sections[middle].range.lowerBound <= position { low = middle } else { high = middle - 1 }
        }
        return (low, position - (sections.isEmpty ? 0 : sections[low].range.lowerBound))
    }

    /// The objects of the section at `index`.
    public func objects(inSection index: Int) -> ArraySlice<Object> {
        objects[sections[index].range]
    }

    /// The same results typed by `Other`, the class of their objects.
    func retyped<Other: ManagedObject>(as type: Other.Type) -> FetchedResults<Other> {
        FetchedResults<Other>(objects: unsafeBitCast(objects, to: [Other].self), sections: sections, difference: difference)
    }
}

/// A run of consecutive results with the same value of the section key
/// (``FetchedResults/sections``).
public struct FetchedResultsSection: Sendable, Hashable {
    /// The value of the section key, as text (`""` for no value).
    public let name: String
    /// The section's positions among ``FetchedResults/objects``.
    public let range: Range<Int>
}
