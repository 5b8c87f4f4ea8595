@_spi(Layouts) import InstarModel

/// An archived entity's uniqueness constraints and indexes.
///
/// Both are lists of property references, which the compiler writes as names and Core Data's own
/// encoder may write as property objects: either is accepted. Fetch indexes carry their names;
/// `NSCompoundIndexes` is the pre-Xcode 9 form, which momc still emits as a copy of each fetch index,
/// so a compound index is kept only when no fetch index already covers the same properties — the
/// source XML holds just the fetch index, and a duplicate would become a second SQL index.
struct CompiledEntityExtras {
    let entity: String
    let object: ArchivedObject
    var problems: [(kind: ModelProblem.Kind, message: String)] = []

    init(entity: String, object: ArchivedObject) {
        self.entity = entity
        self.object = object
    }

    /// `NSUniqueTuples`: an array of arrays of property names.
    func uniquenessConstraints() throws(KeyedArchiveError) -> [[String]] {
        guard let tuples = try object.object("NSUniqueTuples") else { return [] }
        var result: [[String]] = []
        for tuple in try tuples.elements() {
            guard case .object(let members) = tuple else {
                throw tuples.malformed("a uniqueness constraint is \(tuple.kindName), expected an array")
            }
            result.append(try propertyNames(in: members))
        }
        return result
    }

    mutating func indexes() throws(KeyedArchiveError) -> [FetchIndex] {
        var result: [FetchIndex] = []
        if let list = try object.object("NSFetchIndexDescriptions") {
            for item in try list.elements() {
                guard case .object(let description) = item else {
                    throw list.malformed("a fetch index is \(item.kindName)")
                }
                if let index = try fetchIndex(from: description) { result.append(index) }
            }
        }
        if let list = try object.object("NSCompoundIndexes") {
            for item in try list.elements() {
                guard case .object(let members) = item else {
                    throw list.malformed("a compound index is \(item.kindName), expected an array")
                }
                let properties = try propertyNames(in: members)
                if properties.isEmpty || result.contains(where: { $0.elements.map(\.property) == properties }) {
                    continue
                }
                // Core Data names the SQL index of a compound index after its columns, as the XML reader does.
                result.append(
                    FetchIndex(
                        name: properties.joined(separator: "_"), elements: properties.map { .init(property: $0) }))
            }
        }
        return result
    }

    /// An `NSFetchIndexDescription`: `NSIndexName` and `NSIndexElements`, each element an
    /// `NSFetchIndexElementDescription` with `NSPropertyName` (or `NSProperty`) and `NSAscending`.
    private mutating func fetchIndex(from description: ArchivedObject) throws(KeyedArchiveError) -> FetchIndex? {
        let name = try description.requiredString("NSIndexName")
        var elements: [FetchIndex.Element] = []
        for item in try description.object("NSIndexElements")?.elements() ?? [] {
            guard case .object(let element) = item else {
                throw description.malformed("an element of fetch index '\(name)' is \(item.kindName)")
            }
            var property = try element.string("NSPropertyName")
            if property == nil { property = try element.object("NSProperty")?.requiredString("NSPropertyName") }
            guard let property else {
                problems.append(
                    (
                        .invalidValue,
                        "fetch index '\(name)' has an element without a property (\(element.label)); "
                            + "Instar supports fetch index elements over properties, not expression elements"
                    ))
                continue
            }
            elements.append(FetchIndex.Element(property: property, ascending: try element.bool("NSAscending")))
        }
        return FetchIndex(name: name, elements: elements)
    }

    /// The members of an archived array as property names, whether stored as names or as properties.
    private func propertyNames(in members: ArchivedObject) throws(KeyedArchiveError) -> [String] {
        var names: [String] = []
        for member in try members.elements() {
            switch member {
            case .string(let name): names.append(name)
            case .object(let property) where property.isKind(of: "NSPropertyDescription"):
                names.append(try property.requiredString("NSPropertyName"))
            default: throw members.malformed("a member is \(member.kindName), expected a property name")
            }
        }
        return names
    }
}
