import Foundation
import Kura

/// A family of entities: abstract `Medium` (unique `code`, indexed `rank`),
/// `Video` and its sub-entity `Clip`, and `Track`; `Rack`s hold media
/// (a to-many to the superentity, with inverse) and feature one (a to-one
/// without inverse); `Note`s are about a medium (cascade from it).
class Medium: ManagedObject {
    override class var isAbstract: Bool { true }
    @Attribute(.unique) var code: String = ""
    @Attribute(.indexed) var rank: Int = 0
    @Attribute var title: String = ""
    @Relationship var rack: Rack?
    @Relationship(inverse: \Note.subject, deleteRule: .cascade) var notes: Set<Note>
}

class Video: Medium {
    @Attribute var seconds: Double = 0
    @Relationship var sequel: Video?
}

final class Clip: Video {
    @Attribute var source: String = ""
}

final class Track: Medium {
    @Attribute(.indexed) var bitrate: Int = 128
}

final class Rack: ManagedObject {
    @Attribute(.unique) var name: String = ""
    @Relationship(inverse: \Medium.rack) var media: Set<Medium>
    @Relationship var featured: Medium?
}

final class Note: ManagedObject {
    @Attribute var text: String = ""
    @Relationship var subject: Medium?
}

extension ManagedObjectModel {
    static func library() throws -> ManagedObjectModel {
        try ManagedObjectModel(Medium.self, Video.self, Clip.self, Track.self, Rack.self, Note.self)
    }
}
