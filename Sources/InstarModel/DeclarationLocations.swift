/// Where each entity (`"Entity"`) and property (`"Entity.property"`) of a model was declared, kept
/// compact because a plan keeps every version's model for its whole run.
///
/// As a `[String: SourceLocation]` these took two thirds of the heap of `lint` on a plan of 1,000
/// generated versions once the entities were shared (66 of 99 MB): a key string of its own and a
/// location of 48 bytes for every property of every version. Here each file is named once per
/// model, a location is three 32-bit numbers, and the keys are split at their first dot, so that an
/// entity's and a property's names (most of them short enough for Swift to keep inline) are stored
/// without the joined string.
@_spi(Layouts) public struct DeclarationLocations: Sendable, Equatable {
    /// A location as indexes: its file in ``files``, its line and column (0 when unknown).
    private struct Packed: Sendable, Equatable {
        var file: UInt32
        var line: UInt32
        var column: UInt32
    }

    private var files: [String] = []
    /// First part of the key (before the first dot) → the rest (`""` for a key without a dot) → location.
    private var byEntity: [String: [String: Packed]] = [:]

    /// Keeps `locations`, keyed as ``Model/location(ofEntity:property:)`` looks them up.
    public init(_ locations: [String: SourceLocation] = [:]) {
        byEntity.reserveCapacity(locations.count / 4)
        for (key, location) in locations { self[key] = location }
    }

    /// The location kept under `key` (`"Entity"` or `"Entity.property"`), if any.
    public subscript(key: String) -> SourceLocation? {
        get {
            let (entity, rest) = Self.split(key)
            guard let packed = byEntity[entity]?[rest] else { return nil }
            return SourceLocation(
                file: files[Int(packed.file)],
                line: packed.line == 0 ? nil : Int(packed.line),
                column: packed.column == 0 ? nil : Int(packed.column))
        }
        set {
            let (entity, rest) = Self.split(key)
            guard let location = newValue else {
                byEntity[entity]?[rest] = nil
                return
            }
            let file: Int
            if let last = files.indices.last, files[last] == location.file {
                file = last
            } else if let known = files.firstIndex(of: location.file) {
                file = known
            } else {
                files.append(location.file)
                file = files.count - 1
            }
            byEntity[entity, default: [:]][rest] = Packed(
                file: UInt32(file), line: Self.number(location.line), column: Self.number(location.column))
        }
    }

    /// Every location, keyed as given.
    public var all: [String: SourceLocation] {
        var result: [String: SourceLocation] = [:]
        for (entity, properties) in byEntity {
            for rest in properties.keys {
                let key = rest.isEmpty ? entity : "\(entity).\(rest)"
                result[key] = self[key]
            }
        }
        return result
    }

    private static func split(_ key: String) -> (String, String) {
        guard let dot = key.firstIndex(of: ".") else { return (key, "") }
        return (String(key[..<dot]), String(key[key.index(after: dot)...]))
    }

    /// A line or column as kept: 0 for unknown (they are 1-based), clamped to 32 bits.
    private static func number(_ value: Int?) -> UInt32 {
        guard let value, value > 0 else { return 0 }
        return UInt32(clamping: value)
    }
}
