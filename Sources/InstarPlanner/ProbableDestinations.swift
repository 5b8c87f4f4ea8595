import Foundation
import InstarInference
@_spi(Layouts) import InstarModel

/// The values a step drops while it adds somewhere they probably belong, each with its most probable
/// destinations, scored by name similarity and type compatibility.
///
/// A drop with nothing added is taken as meant (the plan's risks name it); a drop beside an addition is
/// the shape of a rename, a type change or a split done without telling the framework, which every
/// inferred migration performs by losing the values.
struct Losses {
    /// One dropped attribute, relationship or entity with somewhere it probably went.
    struct Loss {
        var entity: String
        var property: String?
        /// What is dropped, in words: `attribute 'duration' (String)`.
        var what: String
        var droppedAt: SourceLocation?
        var destinations: [ReleaseFinding.Destination]
        /// The destinations' kind decides the fix.
        var into: Into
        /// The dropped attribute's and the best destination's types are the same (a plain rename).
        var sameType: Bool

        enum Into { case sameEntity, newEntity, entity }

        func finding(step: [String], framework: FixFramework) -> ReleaseFinding {
            let best = destinations[0]
            let also = destinations.dropFirst().map { "'\($0.subject)'" }
            var finding = ReleaseFinding(
                .undeclaredDataLoss, check: "droppedWhileAdding",
                "the step \(step[0]) → \(step[1]) drops \(what) while adding '\(best.subject)', where its values probably belong "
                    + "(\(best.score)% likely\(also.isEmpty ? "" : "; or " + also.joined(separator: ", "))): every value is lost, none is moved",
                hint: Fixes.hint(self, best: best, step: step, framework: framework), location: best.location ?? droppedAt,
                step: step, entity: entity, property: property)
            finding.droppedAt = droppedAt
            finding.destinations = destinations
            return finding
        }
    }

    private(set) var found: [Loss] = []

    init(old: Model, new: Model, diff: ModelDiff) {
        let addedEntities = diff.mappings.filter { $0.source == nil }.compactMap { $0.destination.flatMap(new.entity(named:)) }
        for mapping in diff.mappings {
            guard let source = mapping.source else { continue }
            guard let destination = mapping.destination else {
                if let entity = old.entity(named: source) { lossOfEntity(entity, old: old, new: new, added: addedEntities) }
                continue
            }
            let added = mapping.properties.filter { $0.source == nil }.compactMap(\.destination)
                .filter { $0.declaringEntity == destination }
            let removed = mapping.properties.filter { $0.destination == nil }.compactMap(\.source)
                .filter { $0.declaringEntity == source && !$0.property.isTransient }
            for property in removed {
                var destinations: [ReleaseFinding.Destination] = []
                var into = Loss.Into.sameEntity
                var sameType = false
                for candidate in added where !candidate.property.isTransient {
                    guard let score = Self.score(property.property, candidate.property), score >= 0.2 else { continue }
                    sameType = sameType || (destinations.isEmpty && property.property.attribute?.type == candidate.property.attribute?.type)
                    destinations.append(.init(
                        entity: destination, property: candidate.name, score: Int(score * 100),
                        location: new.location(ofEntity: destination, property: candidate.name)))
                }
                for entity in addedEntities {
                    guard let (name, score) = Self.bestInEntity(property.property, entity) else { continue }
                    if destinations.isEmpty { into = .newEntity }
                    destinations.append(.init(
                        entity: entity.name, property: name, score: Int(score * 100),
                        location: new.location(ofEntity: entity.name, property: name)))
                }
                guard !destinations.isEmpty else { continue }
                destinations.sort { $0.score > $1.score }
                if destinations[0].entity != destination { into = .newEntity }
                found.append(Loss(
                    entity: source, property: property.name, what: "\(property.property.kindName) '\(source).\(property.name)'"
                        + (property.property.attribute.map { " (\($0.type.xcodeName))" } ?? ""),
                    droppedAt: old.location(ofEntity: source, property: property.name),
                    destinations: Array(destinations.prefix(3)), into: into,
                    sameType: sameType && destinations[0].entity == destination))
            }
        }
    }

    /// A removed entity whose rows probably went into an added one (similar name, shared attributes).
    private mutating func lossOfEntity(_ entity: Entity, old: Model, new: Model, added: [Entity]) {
        let names = Set(entity.attributes.map { $0.name.lowercased() })
        var destinations: [ReleaseFinding.Destination] = []
        for candidate in added {
            let shared = names.isEmpty ? 0 : Double(names.intersection(candidate.attributes.map { $0.name.lowercased() }).count) / Double(names.count)
            let score = 0.5 * Self.similarity(entity.name, candidate.name) + 0.5 * shared
            guard score >= 0.45 else { continue }
            destinations.append(.init(entity: candidate.name, property: nil, score: Int(score * 100), location: new.location(ofEntity: candidate.name)))
        }
        guard !destinations.isEmpty else { return }
        destinations.sort { $0.score > $1.score }
        found.append(Loss(
            entity: entity.name, property: nil, what: "entity '\(entity.name)' and its rows",
            droppedAt: old.location(ofEntity: entity.name), destinations: Array(destinations.prefix(3)), into: .entity, sameType: false))
    }

    /// How probably `dropped`'s values belong in `added` of the same entity (0–1), nil when they cannot
    /// (an attribute for a relationship, an enum for a struct of another shape).
    static func score(_ dropped: Property, _ added: Property) -> Double? {
        let name = similarity(dropped.name, added.name)
        switch (dropped, added) {
        case (.attribute(let a), .attribute(let b)):
            guard let types = compatibility(a, b) else { return nil }
            return 0.5 * name + 0.5 * types
        case (.relationship(let a), .relationship(let b)):
            return 0.6 * name + 0.4 * (a.destination == b.destination ? 1 : 0.5)
        default:
            return nil
        }
    }

    /// The attribute of a new entity that most probably took `dropped`'s values (a similar name, a
    /// compatible type), or for a dropped to-one, the new entity standing in for it.
    static func bestInEntity(_ dropped: Property, _ entity: Entity) -> (String?, Double)? {
        switch dropped {
        case .attribute(let a):
            let scored = entity.attributes.compactMap { b -> (String?, Double)? in
                let name = similarity(a.name, b.name)
                guard name >= 0.75, let types = compatibility(a, b) else { return nil }
                return (b.name, 0.6 * name + 0.4 * types)
            }
            return scored.max { $0.1 < $1.1 }
        case .relationship(let r):
            let name = max(similarity(r.name, entity.name), similarity(r.destination, entity.name))
            return name >= 0.6 ? (nil, 0.7 * name + 0.3) : nil
        }
    }

    /// 1 for the same type; less for a conversion that keeps the value (numbers, text); nil where no
    /// conversion can (composites of another shape, a composite and a scalar).
    static func compatibility(_ a: Attribute, _ b: Attribute) -> Double? {
        if a.type == .composite || b.type == .composite {
            guard a.type == b.type else { return nil }
            let x = Set(a.elements.map(\.name)), y = Set(b.elements.map(\.name))
            let overlap = x.union(y).isEmpty ? 1 : Double(x.intersection(y).count) / Double(x.union(y).count)
            return overlap >= 0.5 ? overlap : nil
        }
        if a.type == b.type { return 1 }
        let numbers: Set<AttributeType> = [.integer16, .integer32, .integer64, .decimal, .double, .float, .boolean]
        if numbers.contains(a.type) && numbers.contains(b.type) { return 0.7 }
        if [a.type, b.type].contains(.string) { return 0.5 }
        if Set([a.type, b.type]).isSubset(of: [.binary, .transformable]) { return 0.6 }
        if [a.type, b.type].contains(.date) && (numbers.contains(a.type) || numbers.contains(b.type)) { return 0.5 }
        return 0.2
    }

    /// 0–1: 1 for the same name (case aside), 0.8 when one contains the other, else by edit distance.
    static func similarity(_ a: String, _ b: String) -> Double {
        let x = Array(a.lowercased()), y = Array(b.lowercased())
        if x == y { return 1 }
        if min(x.count, y.count) >= 3, a.lowercased().contains(b.lowercased()) || b.lowercased().contains(a.lowercased()) { return 0.8 }
        var previous = Array(0...y.count)
        for i in 1...max(x.count, 1) where !x.isEmpty {
            var current = [i] + Array(repeating: 0, count: y.count)
            for j in 1...max(y.count, 1) where !y.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            previous = current
        }
        let longest = max(x.count, y.count)
        return longest == 0 ? 1 : 1 - Double(previous[y.count]) / Double(longest)
    }
}
