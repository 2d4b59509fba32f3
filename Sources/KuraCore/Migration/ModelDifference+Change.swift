extension ModelDifference {
    /// What changed: compare it with the static members (`.attributeAdded`,
    /// `.attributeRenamed(from: "title")`), or read its ``Kind`` and what
    /// it carries.
    ///
    /// A struct, not an enum, so a new kind of difference breaks no
    /// caller's `switch`.
    public struct Change: Sendable, Hashable {
        let base: Base

        enum Base: Sendable, Hashable {
            case entityAdded
            case entityRemoved
            case entityRenamed(from: String)
            case attributeAdded
            case attributeRemoved
            case attributeRenamed(from: String)
            case attributeTypeChanged(from: AttributeType, to: AttributeType)
            case attributeMadeOptional
            case attributeMadeRequired
            case defaultValueChanged(from: String?, to: String?)
            case propertiesReordered
            case indexAdded(unique: Bool)
            case indexRemoved
            case relationshipAdded
            case relationshipRemoved
            case relationshipRenamed(from: String)
            case relationshipChanged(from: String, to: String)
            case superentityChanged(from: String?, to: String?)

            var kind: Kind {
                switch self {
                case .entityAdded: .entityAdded
                case .entityRemoved: .entityRemoved
                case .entityRenamed: .entityRenamed
                case .attributeAdded: .attributeAdded
                case .attributeRemoved: .attributeRemoved
                case .attributeRenamed: .attributeRenamed
                case .attributeTypeChanged: .attributeTypeChanged
                case .attributeMadeOptional: .attributeMadeOptional
                case .attributeMadeRequired: .attributeMadeRequired
                case .defaultValueChanged: .defaultValueChanged
                case .propertiesReordered: .propertiesReordered
                case .indexAdded: .indexAdded
                case .indexRemoved: .indexRemoved
                case .relationshipAdded: .relationshipAdded
                case .relationshipRemoved: .relationshipRemoved
                case .relationshipRenamed: .relationshipRenamed
                case .relationshipChanged: .relationshipChanged
                case .superentityChanged: .superentityChanged
                }
            }
        }

        init(_ base: Base) {
            self.base = base
        }

        /// What kind of change this is.
        public var kind: Kind { base.kind }

        /// The old name, for a rename.
        public var renamedFrom: String? {
            switch base {
            case .entityRenamed(let old), .attributeRenamed(let old), .relationshipRenamed(let old): old
            default: nil
            }
        }

        /// The stored type and the model's, for ``Kind/attributeTypeChanged``.
        public var attributeTypes: (from: AttributeType, to: AttributeType)? {
            guard case .attributeTypeChanged(let old, let new) = base else { return nil }
            return (old, new)
        }

        /// The store's and the model's text, for ``Kind/defaultValueChanged``
        /// (the default values), ``Kind/relationshipChanged`` (the
        /// relationship as described) and ``Kind/superentityChanged`` (the
        /// superentities' names; `nil` for none).
        public var texts: (from: String?, to: String?)? {
            switch base {
            case .defaultValueChanged(let old, let new), .superentityChanged(let old, let new): (old, new)
            case .relationshipChanged(let old, let new): (old, new)
            default: nil
            }
        }

        /// Whether the index added is unique, for ``Kind/indexAdded``.
        public var isUniqueIndex: Bool? {
            guard case .indexAdded(let unique) = base else { return nil }
            return unique
        }

        /// Kinds of ``Change``, each matched by `==`.
        public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
            /// The kind's name, as the static property that holds it is named.
            public let rawValue: String

            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            public var description: String { rawValue }

            public static let entityAdded = Kind(rawValue: "entityAdded")
            public static let entityRemoved = Kind(rawValue: "entityRemoved")
            public static let entityRenamed = Kind(rawValue: "entityRenamed")
            public static let attributeAdded = Kind(rawValue: "attributeAdded")
            public static let attributeRemoved = Kind(rawValue: "attributeRemoved")
            public static let attributeRenamed = Kind(rawValue: "attributeRenamed")
            public static let attributeTypeChanged = Kind(rawValue: "attributeTypeChanged")
            public static let attributeMadeOptional = Kind(rawValue: "attributeMadeOptional")
            public static let attributeMadeRequired = Kind(rawValue: "attributeMadeRequired")
            public static let defaultValueChanged = Kind(rawValue: "defaultValueChanged")
            public static let propertiesReordered = Kind(rawValue: "propertiesReordered")
            public static let indexAdded = Kind(rawValue: "indexAdded")
            public static let indexRemoved = Kind(rawValue: "indexRemoved")
            public static let relationshipAdded = Kind(rawValue: "relationshipAdded")
            public static let relationshipRemoved = Kind(rawValue: "relationshipRemoved")
            public static let relationshipRenamed = Kind(rawValue: "relationshipRenamed")
            public static let relationshipChanged = Kind(rawValue: "relationshipChanged")
            public static let superentityChanged = Kind(rawValue: "superentityChanged")
        }

        public static let entityAdded = Change(.entityAdded)
        public static let entityRemoved = Change(.entityRemoved)
        public static func entityRenamed(from old: String) -> Change { Change(.entityRenamed(from: old)) }
        public static let attributeAdded = Change(.attributeAdded)
        public static let attributeRemoved = Change(.attributeRemoved)
        public static func attributeRenamed(from old: String) -> Change { Change(.attributeRenamed(from: old)) }
        public static func attributeTypeChanged(from old: AttributeType, to new: AttributeType) -> Change {
            Change(.attributeTypeChanged(from: old, to: new))
        }
        public static let attributeMadeOptional = Change(.attributeMadeOptional)
        public static let attributeMadeRequired = Change(.attributeMadeRequired)
        public static func defaultValueChanged(from old: String?, to new: String?) -> Change {
            Change(.defaultValueChanged(from: old, to: new))
        }
        public static let propertiesReordered = Change(.propertiesReordered)
        public static func indexAdded(unique: Bool) -> Change { Change(.indexAdded(unique: unique)) }
        public static let indexRemoved = Change(.indexRemoved)
        public static let relationshipAdded = Change(.relationshipAdded)
        public static let relationshipRemoved = Change(.relationshipRemoved)
        public static func relationshipRenamed(from old: String) -> Change { Change(.relationshipRenamed(from: old)) }
        /// Delete rule, counts, optionality, ordering, inverse or cardinality:
        /// the relationship as the store had it and as the model has it.
        public static func relationshipChanged(from old: String, to new: String) -> Change {
            Change(.relationshipChanged(from: old, to: new))
        }
        /// An entity's superentity changes (or it gets or loses one): its
        /// objects' keys carry their family's tag (see the StoreFormat
        /// article), so they can't move in place.
        public static func superentityChanged(from old: String?, to new: String?) -> Change {
            Change(.superentityChanged(from: old, to: new))
        }
    }
}
