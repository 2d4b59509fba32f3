/// A fetch request template whose variables have Swift types: a request
/// from it takes one value of each type, in order, which the compiler
/// checks, and fetches `Object`s.
///
/// ```swift
/// let byURL = try model.setFetchRequestTemplate(
///     FetchRequest<Article>(predicate: "url == $url"), forName: "articleByURL", variables: ("url", String.self))
/// let byWriter = try model.setFetchRequestTemplate(
///     #Predicate<Article, String, Int> { article, name, least in article.writer?.name == name && article.rating >= least },
///     forName: "byWriter", variables: "name", "least")
///
/// let article = try context.fetch(byURL, "https://kura.dev/1").first    // Article?
/// let good = try context.fetch(byWriter, "Ann", 4)                       // [Article]
/// ```
///
/// Registering checks each declared type against what its variable is
/// compared with (a `String` for a string attribute, any number for a
/// number, an array or set for `IN $list` and `BETWEEN $pair`, the
/// destination's class or an ``ObjectID`` for a relationship; optionals
/// for `nil`); the template stays in the model under its name, so
/// ``ManagedObjectModel/fetchRequestFromTemplate(withName:substitutionVariables:)``
/// and `kura` can use it too. A template whose predicate is equality on
/// every attribute of a unique index (`url == $url`), with no sorts, offset
/// or prefetching, makes no request when fetched: its values become the
/// index key, and the entry and its record are read in one transaction
/// (unsaved changes of the entity, a child context or a slow-fetch reporter
/// take the general path, with the same results).
public struct FetchTemplate<Object: ManagedObject, each Value>: Sendable {
    /// The template's name in its model.
    public let name: String
    /// The names of its `$variables`, in the order their values are given.
    public let variableNames: [String]
    @usableFromInline let template: FetchRequestTemplate
    /// For each variable of the template's ``FetchRequestTemplate/variableList``,
    /// the position of its value among those given.
    @usableFromInline let valuePositions: [Int]

    init(name: String, variableNames: [String], template: FetchRequestTemplate, valuePositions: [Int]) {
        self.name = name
        self.variableNames = variableNames
        self.template = template
        self.valuePositions = valuePositions
    }

    /// A request of the template with `values` in place of its variables, in
    /// the order of ``variableNames``.
    ///
    /// - Throws: ``KuraError/substitutionTypeMismatch(variable:expected:found:)``
    ///   for a value that doesn't fit (a number too large for the
    ///   attribute's type, an object of another entity).
    public func request(_ values: repeat each Value) throws -> FetchRequest<Object> {
        let given = Self.list(repeat each values)
        return FetchRequest(retyping: try template.request { given[valuePositions[$0]] })
    }

    /// `values` as a list, in the order of ``variableNames``.
    @inlinable
    static func list(_ values: repeat each Value) -> [Any] {
        var given: [Any] = []
        for value in repeat each values { given.append(value) }
        return given
    }
}

extension ManagedObjectContext {
    /// The objects a template's request finds with `values` for its
    /// variables, in order: `try context.fetch(byURL, url)`.
    ///
    /// Inlined into the caller, where `Object` and the values' types are
    /// known: the untyped fetch it calls asks the runtime for no generic
    /// type, and a template that looks up a unique index makes no request.
    @inlinable
    public func fetch<Object: ManagedObject, each Value>(
        _ template: FetchTemplate<Object, repeat each Value>, _ values: repeat each Value
    ) throws -> [Object] {
        let given = FetchTemplate<Object, repeat each Value>.list(repeat each values)
        let positions = template.valuePositions
        // Registering checked that the entity's objects are `Object`s.
        return unsafeBitCast(try fetchObjects(template: template.template) { given[positions[$0]] }, to: [Object].self)
    }
}
