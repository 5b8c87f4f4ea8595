import Foundation
@_spi(Layouts) import InstarModel

extension ModelCacheArchive {
    /// The archive's object table, built entity by entity; ``reasons`` collects what cannot be written.
    struct Builder {
        let style: Style
        let configurations: Configurations
        let elementsNameTheirEntity: Bool
        var objects: [PlistItem] = [.string("$null")]
        var reasons: [String] = []
        private var classes: [String: Int] = [:]
        private var strings: [String: Int] = [:]
        private var sharedEmptyDictionary: PlistItem?
        private var sharedEmptyArray: PlistItem?

        init(style: Style, configurations: Configurations = .default, elementsNameTheirEntity: Bool = true) {
            self.style = style
            self.configurations = configurations
            self.elementsNameTheirEntity = elementsNameTheirEntity
        }

        var strict: Bool { style == .swiftDataCorpus }

        mutating func reserve() -> Int {
            objects.append(.string("$reserved"))
            return objects.count - 1
        }

        mutating func add(_ item: PlistItem) -> Int {
            if case .string(let text) = item {
                if let known = strings[text] { return known }
                objects.append(item)
                strings[text] = objects.count - 1
                return objects.count - 1
            }
            objects.append(item)
            return objects.count - 1
        }

        mutating func string(_ text: String?) -> PlistItem { text.map { .uid(add(.string($0))) } ?? .uid(0) }

        mutating func classRecord(_ chain: [String]) -> PlistItem {
            if let known = classes[chain[0]] { return .uid(known) }
            let index = add(.dictionary([
                .init(key: "$classes", value: .array(chain.map(PlistItem.string))),
                .init(key: "$classname", value: .string(chain[0])),
            ]))
            classes[chain[0]] = index
            return .uid(index)
        }

        /// An object of `chain[0]` at `index` (reserved) or appended.
        @discardableResult
        mutating func object(_ chain: [String], _ fields: [(String, PlistItem)], at index: Int? = nil) -> Int {
            let item = PlistItem.dictionary([.init(key: "$class", value: classRecord(chain))] + fields.map { .init(key: $0.0, value: $0.1) })
            if let index {
                objects[index] = item
                return index
            }
            return add(item)
        }

        mutating func collection(_ className: String, _ members: [PlistItem]) -> PlistItem {
            let chain: [String] = switch className {
            case "NSMutableArray": ["NSMutableArray", "NSArray", "NSObject"]
            case "NSArray": ["NSArray", "NSObject"]
            default: ["NSSet", "NSObject"]
            }
            return .uid(object(chain, [("NS.objects", .array(members))]))
        }

        mutating func emptyDictionary() -> PlistItem {
            if let sharedEmptyDictionary { return sharedEmptyDictionary }
            let made = dictionary("NSDictionary", [])
            sharedEmptyDictionary = made
            return made
        }

        /// The `[]` default of a transformable array: one NSArray object for every such attribute of the
        /// model, as ChefTime's cache holds it (SDRecipe.imageData and SDStep.imageData share it).
        mutating func emptyArray() -> PlistItem {
            if let sharedEmptyArray { return sharedEmptyArray }
            let made = collection("NSArray", [])
            sharedEmptyArray = made
            return made
        }

        mutating func dictionary(_ className: String, _ pairs: [(String, PlistItem)]) -> PlistItem {
            let chain = className == "NSDictionary"
                ? ["NSDictionary", "NSObject"] : ["NSMutableDictionary", "NSDictionary", "NSObject"]
            let keys = pairs.map { string($0.0) }
            return .uid(object(chain, [("NS.keys", .array(keys)), ("NS.objects", .array(pairs.map(\.1)))]))
        }

        mutating func build(_ model: Model) throws(Unsupported) {
            let root = reserve()
            precondition(root == 1)
            let entities = model.entities.sorted { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
            var entityIndex: [String: Int] = [:]
            for entity in entities { entityIndex[entity.name] = reserve() }
            var relationshipIndex: [String: Int] = [:]
            for entity in entities {
                for relationship in entity.relationships { relationshipIndex["\(entity.name).\(relationship.name)"] = reserve() }
            }
            let graph = EntityGraph(entityIndex: entityIndex, relationshipIndex: relationshipIndex)
            for entity in entities {
                self.entity(entity, model: model, at: entityIndex[entity.name]!, graph: graph)
            }
            let keys = collection("NSArray", entities.map { string($0.name) })
            let mapping = object(
                ["NSKnownKeysMappingStrategy1", "NSKnownKeysMappingStrategy", "NSObject"],
                [("keys", keys), ("length", .integer(entities.count)), ("version", .integer(1))])
            let values = collection("NSArray", entities.map { .uid(entityIndex[$0.name]!) })
            let known = object(
                ["NSKnownKeysDictionary1", "NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary", "NSObject"],
                [("values", values), ("searchMapping", .uid(mapping)),
                 ("emptyToken", string("__empty_slot_token_4c24_98dc_ac1e_b773__")), ("version", .integer(1))])
            let identifiers = model.versionIdentifiers.isEmpty ? [model.versionIdentifier].compactMap { $0 } : model.versionIdentifiers
            let versionSet = collection("NSSet", identifiers.map { string($0) })
            var fields: [(String, PlistItem)] = [
                ("NSEntities", .uid(known)), ("NSFetchRequestTemplates", .uid(0)), ("NSVersionIdentifiers", versionSet),
            ]
            if case .named(let name) = configurations {
                let members = collection("NSSet", entities.map { .uid(entityIndex[$0.name]!) })
                fields.append(("NSConfigurations", dictionary("NSMutableDictionary", [(name, members)])))
            }
            object(["NSManagedObjectModel", "NSObject"], fields, at: root)
            if !reasons.isEmpty { throw Unsupported(reasons: reasons) }
        }

        /// Where each entity and relationship object sits in the table (reserved before any is written,
        /// since they refer to each other).
        struct EntityGraph {
            let entityIndex: [String: Int]
            let relationshipIndex: [String: Int]
        }

        mutating func entity(_ entity: Entity, model: Model, at index: Int, graph: EntityGraph) {
            let children = model.entities.filter { $0.parent == entity.name }
                .sorted { $0.name.utf16.lexicographicallyPrecedes($1.name.utf16) }
            if strict && (entity.parent != nil || entity.isAbstract || !children.isEmpty) {
                reasons.append("\(entity.name): entity inheritance (no SwiftData cache in the corpus shows one)")
            }
            var properties: [(String, PlistItem)] = []
            let indexed = Set(entity.indexes.filter { $0.elements.count == 1 }.map { $0.elements[0].property })
            for attribute in entity.attributes {
                let marked = indexed.contains(attribute.name) || (!strict && attribute.isIndexed)
                properties.append((attribute.name, .uid(self.attribute(attribute, entity: entity.name, owner: index, indexed: marked))))
            }
            for relationship in entity.relationships {
                let me = graph.relationshipIndex["\(entity.name).\(relationship.name)"]!
                self.relationship(relationship, entity: entity.name, owner: index, at: me, graph: graph)
                properties.append((relationship.name, .uid(me)))
            }
            if strict, entity.versionHashModifier != nil {
                reasons.append("\(entity.name): an entity version hash modifier (SwiftData declares none)")
            }
            // Transient attributes (`.ephemeral`) are in PegaseUIData's cache; transient relationships in none.
            if strict, entity.relationships.contains(where: { $0.isTransient }) {
                reasons.append("\(entity.name): a transient relationship (no SwiftData cache in the corpus shows one)")
            }
            let tuples = entity.uniquenessConstraints.map { group in collection("NSMutableArray", group.map { string($0) }) }
            let subentities = children.compactMap { child in graph.entityIndex[child.name].map { (child.name, PlistItem.uid($0)) } }
            let parent = entity.parent.flatMap { graph.entityIndex[$0] }
            if entity.parent != nil, parent == nil {
                reasons.append("\(entity.name): its parent \(entity.parent!) is not an entity of the model")
            }
            var fields: [(String, PlistItem)] = [
                ("NSEntityName", string(entity.name)), ("NSClassNameForEntity", .uid(0)),
                ("NSUniqueTuples", collection("NSMutableArray", tuples)),
                // One empty NSDictionary for every entity, as in each cache (Foundation's immutable empty
                // singleton); Instar's model keeps no entity user info.
                ("NSUserInfo", emptyDictionary()),
                ("NSSubentities", dictionary("NSMutableDictionary", subentities)),
                ("NSVersionHashModifier", string(entity.versionHashModifier)),
                ("NSProperties", dictionary("NSMutableDictionary", properties)),
                ("NSRenamingIdentifier", string(entity.renamingIdentifier ?? entity.name)),
                ("NSManagedObjectModel", .uid(1)), ("NSSuperentity", .uid(parent ?? 0)),
            ]
            if entity.isAbstract { fields.append(("NSIsAbstract", .boolean(true))) }
            if !entity.indexes.isEmpty { fields += fetchIndexes(entity, owner: index) }
            object(["NSEntityDescription", "NSObject"], fields, at: index)
        }

        /// `NSFetchIndexDescriptions` (each with its elements) and `NSCompoundIndexes` (the older form's copy
        /// of each compound one).
        mutating func fetchIndexes(_ entity: Entity, owner index: Int) -> [(String, PlistItem)] {
            var descriptions: [PlistItem] = []
            for fetchIndex in entity.indexes {
                if strict, fetchIndex.elements.contains(where: { !$0.ascending }) {
                    reasons.append("\(entity.name): a descending fetch index element (no SwiftData cache in the corpus shows one)")
                }
                let description = reserve()
                let elements = fetchIndex.elements.map { element in
                    PlistItem.uid(object(
                        ["NSFetchIndexElementDescription", "NSObject"],
                        [("NSPropertyName", string(element.property)), ("NSFetchIndexElementType", .integer(0)),
                         ("NSFetchIndexDescription", .uid(description)), ("NSAscending", .boolean(element.ascending))]))
                }
                object(
                    ["NSFetchIndexDescription", "NSObject"],
                    [("NSIndexName", string(fetchIndex.name)), ("NSPartialIndexPredicate", .uid(0)),
                     ("NSIndexElements", collection("NSArray", elements)), ("NSEntity", .uid(index))],
                    at: description)
                descriptions.append(.uid(description))
            }
            let compound = entity.indexes.filter { $0.elements.count > 1 }.map { fetchIndex in
                collection("NSMutableArray", fetchIndex.elements.map { string($0.property) })
            }
            return [("NSFetchIndexDescriptions", collection("NSMutableArray", descriptions)),
                    ("NSCompoundIndexes", collection("NSMutableArray", compound))]
        }
    }
}
