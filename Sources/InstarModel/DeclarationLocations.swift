/// Where each entity (`"Entity"`) and property (`"Entity.property"`) of a model was declared, kept
/// compact because a plan keeps every version's model for its whole run.
///
/// As a `[String: SourceLocation]` these took two thirds of the heap of `lint` on a plan of 1,000
/// generated versions once the entities were shared (66 of 99 MB): a key string of its own and a
/// location of 48 bytes for every property of every version. Here each file is named once per
/// model, a location is three 32-bit numbers, and the keys are split at their first dot, so that an
/// entity's and a property's names (most of them short enough for Swift to keep inline) are stored
/// without the joined string.
///
/// The entries sit in two sorted arrays, not in a dictionary per entity: a dictionary keeps a third
/// or more of its slots empty and an object of its own for each entity, which made these 21 of the
/// 80 MB of heap of `plan` on 1,000 Core Data versions; arrays keep 32 bytes an entry. Lookups are
/// binary searches, rare next to the reading that fills them (errors and lint findings).
@_spi(Layouts) public struct DeclarationLocations: Sendable {
    /// A location as indexes: its file in ``files``, its line and column (0 when unknown).
    private struct Packed: Sendable, Equatable {
        var file: UInt32
        var line: UInt32
        var column: UInt32
    }

    /// The part of a key after its first dot (`""` for the entity itself), and its location.
    private struct Entry: Sendable {
        var rest: String
        var packed: Packed
    }

    /// The part of a key before its first dot, and where its entries are in ``entries``.
    private struct Group: Sendable {
        var name: String
        var start: Int32
        var count: Int32
    }

    private var files: [String] = []
    /// Sorted by name; their entries are contiguous in ``entries``, in the groups' order.
    private var groups: [Group] = []
    /// Sorted by `rest` within each group.
    private var entries: [Entry] = []

    /// Keeps `locations`, keyed as ``Model/location(ofEntity:property:)`` looks them up.
    public init(_ locations: [String: SourceLocation] = [:]) {
        var split = locations.map { key, location in (Self.split(key), location) }
        split.sort { $0.0.0 != $1.0.0 ? $0.0.0 < $1.0.0 : $0.0.1 < $1.0.1 }
        entries.reserveCapacity(split.count)
        for ((entity, rest), location) in split {
            if groups.last?.name != entity {
                groups.append(Group(name: entity, start: Int32(entries.count), count: 0))
            }
            groups[groups.count - 1].count += 1
            let packed = pack(location)
            entries.append(Entry(rest: rest, packed: packed))
        }
    }

    /// The location kept under `key` (`"Entity"` or `"Entity.property"`), if any.
    public subscript(key: String) -> SourceLocation? {
        get {
            let (entity, rest) = Self.split(key)
            guard case .found(let group) = findGroup(entity), case .found(let index) = findEntry(rest, in: groups[group])
            else { return nil }
            return unpack(entries[index].packed)
        }
        set {
            let (entity, rest) = Self.split(key)
            var packed: Packed?
            if let newValue { packed = pack(newValue) }
            switch (findGroup(entity), packed) {
            case (.found(let group), let packed?):
                switch findEntry(rest, in: groups[group]) {
                case .found(let index): entries[index].packed = packed
                case .insertAt(let index): insert(Entry(rest: rest, packed: packed), at: index, group: group)
                }
            case (.insertAt(let group), let packed?):
                let start = group < groups.count ? groups[group].start : Int32(entries.count)
                groups.insert(Group(name: entity, start: start, count: 0), at: group)
                insert(Entry(rest: rest, packed: packed), at: Int(start), group: group)
            case (.found(let group), nil):
                guard case .found(let index) = findEntry(rest, in: groups[group]) else { return }
                entries.remove(at: index)
                groups[group].count -= 1
                for later in groups.indices where later > group { groups[later].start -= 1 }
                if groups[group].count == 0 { groups.remove(at: group) }
            case (.insertAt, nil):
                return
            }
        }
    }

    /// Every location, keyed as given.
    public var all: [String: SourceLocation] {
        var result: [String: SourceLocation] = [:]
        result.reserveCapacity(entries.count)
        for group in groups {
            for entry in entries[Int(group.start)..<Int(group.start + group.count)] {
                let key = entry.rest.isEmpty ? group.name : "\(group.name).\(entry.rest)"
                result[key] = unpack(entry.packed)
            }
        }
        return result
    }

    private enum Search {
        case found(Int)
        case insertAt(Int)
    }

    private func findGroup(_ name: String) -> Search {
        var low = 0
        var high = groups.count
        while low < high {
            let middle = (low + high) / 2
            if groups[middle].name == name { return .found(middle) }
            if groups[middle].name < name { low = middle + 1 } else { high = middle }
        }
        return .insertAt(low)
    }

    private func findEntry(_ rest: String, in group: Group) -> Search {
        var low = Int(group.start)
        var high = Int(group.start + group.count)
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].rest == rest { return .found(middle) }
            if entries[middle].rest < rest { low = middle + 1 } else { high = middle }
        }
        return .insertAt(low)
    }

    private mutating func insert(_ entry: Entry, at index: Int, group: Int) {
        entries.insert(entry, at: index)
        groups[group].count += 1
        for later in groups.indices where later > group { groups[later].start += 1 }
    }

    private mutating func pack(_ location: SourceLocation) -> Packed {
        let file: Int
        if let last = files.indices.last, files[last] == location.file {
            file = last
        } else if let known = files.firstIndex(of: location.file) {
            file = known
        } else {
            files.append(location.file)
            file = files.count - 1
        }
        return Packed(file: UInt32(file), line: Self.number(location.line), column: Self.number(location.column))
    }

    private func unpack(_ packed: Packed) -> SourceLocation {
        SourceLocation(
            file: files[Int(packed.file)],
            line: packed.line == 0 ? nil : Int(packed.line),
            column: packed.column == 0 ? nil : Int(packed.column))
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

extension DeclarationLocations: Equatable {
    /// The same keys at the same locations, whatever order the files were first named in.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        guard lhs.entries.count == rhs.entries.count, lhs.groups.count == rhs.groups.count else { return false }
        for (left, right) in zip(lhs.groups, rhs.groups) where left.name != right.name || left.count != right.count {
            return false
        }
        for (left, right) in zip(lhs.entries, rhs.entries) {
            guard left.rest == right.rest, lhs.unpack(left.packed) == rhs.unpack(right.packed) else { return false }
        }
        return true
    }
}
