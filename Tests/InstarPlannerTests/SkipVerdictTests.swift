import InstarInference
@_spi(Layouts) import InstarModel
import InstarPlanner
import Testing

/// Issue 41: `instar graph` judges skips entity pair by entity pair (``SkipVerdicts``), and must draw
/// exactly the edges that diffing both whole versions of every skip gives.
@Suite struct SkipVerdictTests {
    /// A reproducible random history: each version makes one to three changes to the one before,
    /// drawn from what real histories do (attributes added, removed, renamed through a renaming
    /// identifier, retyped, made required; relationships added with or without an inverse, removed,
    /// made to-one; entities added, removed, re-added under an old name; a constraint added), some
    /// inferable, some not. With `renames`, entities are sometimes renamed (the matcher then decides);
    /// with `hierarchy`, an entity sometimes gains a parent: pairs cannot be judged alone there.
    struct History {
        var random: Generator
        var entities: [Entity] = []
        var counter = 0
        let renames: Bool
        let hierarchy: Bool

        init(seed: UInt64, renames: Bool = false, hierarchy: Bool = false) {
            random = Generator(seed: seed)
            self.renames = renames
            self.hierarchy = hierarchy
            for _ in 0..<5 { entities.append(newEntity()) }
        }

        mutating func fresh(_ prefix: String) -> String {
            counter += 1
            return "\(prefix)\(counter)"
        }

        mutating func newEntity() -> Entity {
            let name = fresh("E")
            let attributes = (0..<random.next(3)).map { _ in Attribute(name: fresh("a"), type: .integer64) }
            return Entity(name: name, attributes: [Attribute(name: "title", type: .string)] + attributes)
        }

        mutating func versions(_ count: Int) throws -> [Model] {
            var models: [Model] = []
            let interner = EntityInterner()
            for v in 0..<count {
                if v > 0 { for _ in 0...random.next(2) { change() } }
                models.append(try Model(name: "V\(v)", entities: interner.intern(entities), validation: .xcode))
            }
            return models
        }

        mutating func change() {
            let e = random.next(entities.count)
            var entity = entities[e]
            entity.renamingIdentifier = nil
            for k in entity.attributes.indices { entity.attributes[k].renamingIdentifier = nil }
            switch random.next(14) {
            case 0:
                entity.attributes.append(Attribute(name: fresh("a"), type: .integer64))
            case 1 where entity.attributes.count > 1:
                entity.attributes.remove(at: 1 + random.next(entity.attributes.count - 1))
            case 2 where entity.attributes.count > 1, 3 where entity.attributes.count > 1:
                let k = 1 + random.next(entity.attributes.count - 1)
                let old = entity.attributes[k].name
                entity.attributes[k].name = fresh("r")
                entity.attributes[k].renamingIdentifier = old
            case 4 where entity.attributes.count > 1:
                let k = 1 + random.next(entity.attributes.count - 1)
                entity.attributes[k].type = entity.attributes[k].type == .integer64 ? .string : .integer64
            case 5:
                entity.attributes.append(Attribute(name: fresh("q"), type: .string, isOptional: false))
            case 6 where !entity.attributes.isEmpty:
                entity.attributes[0].isOptional.toggle()
            case 7, 8:
                let target = entities[random.next(entities.count)].name
                if target != entity.name && random.next(2) == 0 {
                    // A pair of inverses: the other side is changed too.
                    let forward = fresh("to"), back = fresh("from")
                    entity.relationships.append(Relationship(name: forward, destination: target, inverse: back))
                    entities[e] = entity
                    if let t = entities.firstIndex(where: { $0.name == target }) {
                        entities[t].relationships.append(
                            Relationship(name: back, destination: entity.name, inverse: forward, isToMany: true))
                    }
                    return
                }
                entity.relationships.append(Relationship(name: fresh("to"), destination: target, isToMany: random.next(2) == 0))
            case 9 where !entity.relationships.isEmpty:
                let removed = entity.relationships.remove(at: random.next(entity.relationships.count))
                entities[e] = entity
                dropInverse(of: removed, from: entity.name)
                return
            case 10 where entity.relationships.contains(where: \.isToMany):
                let k = entity.relationships.firstIndex(where: \.isToMany)!
                entity.relationships[k].isToMany = false
            case 11 where entities.count > 3:
                removeEntity(at: e)
                return
            case 12:
                entities.append(newEntity())
                return
            case 13 where entity.parent == nil:
                entity.uniquenessConstraints = entity.uniquenessConstraints.isEmpty ? [["title"]] : []
            default:
                break
            }
            if renames && random.next(8) == 0 {
                let old = entity.name
                entity.name = fresh("N")
                entity.renamingIdentifier = old
                entities[e] = entity
                for k in entities.indices {
                    for r in entities[k].relationships.indices where entities[k].relationships[r].destination == old {
                        entities[k].relationships[r].destination = entity.name
                    }
                    if entities[k].parent == old { entities[k].parent = entity.name }
                }
                return
            }
            if hierarchy && random.next(10) == 0 && entity.parent == nil,
                let parent = entities.first(where: { $0.name != entity.name && $0.parent == nil && $0.relationships.isEmpty }),
                !entities.contains(where: { $0.parent == entity.name })
            {
                entity.parent = parent.name
                entity.attributes.removeAll { $0.name == "title" }
                entity.uniquenessConstraints = []
            }
            entities[e] = entity
        }

        mutating func dropInverse(of relationship: Relationship, from entity: String) {
            guard let inverse = relationship.inverse,
                let t = entities.firstIndex(where: { $0.name == relationship.destination })
            else { return }
            entities[t].relationships.removeAll { $0.name == inverse && $0.destination == entity }
        }

        /// Removes the entity and every relationship leading to it; sometimes an entity of the same
        /// name comes back a version later (a skip over both sees it kept, the steps see it dropped).
        mutating func removeEntity(at e: Int) {
            let removed = entities.remove(at: e)
            for k in entities.indices { entities[k].relationships.removeAll { $0.destination == removed.name } }
            for k in entities.indices where entities[k].parent == removed.name {
                entities[k].parent = nil
                entities[k].attributes.insert(Attribute(name: "title", type: .string), at: 0)
            }
            if random.next(3) == 0 {
                entities.append(Entity(name: removed.name, attributes: removed.attributes))
            }
        }
    }

    /// A small deterministic generator (SplitMix64), so a failure names the seed that reproduces it.
    struct Generator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next(_ bound: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            return Int(z % UInt64(max(bound, 1)))
        }
    }

    /// Every skip (up to `maxSkip` versions ahead) judged both ways; returns (judged, steps, not steps).
    func compareEverySkip(_ versions: [Model], maxSkip: Int, seed: UInt64) -> (judged: Int, steps: Int, skips: Int) {
        let graph = VersionGraph(plan: Plan(name: "p", file: "p.yaml", versions: versions))
        let verdicts = SkipVerdicts(graph: graph)
        var judged = 0, steps = 0, skips = 0
        for i in versions.indices {
            var trace = ChainTrace(from: i, in: graph)
            for j in stride(from: i + 2, to: min(versions.count, i + maxSkip + 1), by: 1) {
                skips += 1
                let whole = graph.step(i, j) != nil
                guard let pairwise = verdicts.isStep(i, j, following: &trace) else { continue }
                judged += 1
                if whole { steps += 1 }
                #expect(pairwise == whole, "seed \(seed): V\(i) → V\(j): pairwise \(pairwise), whole \(whole)")
            }
        }
        return (judged, steps, skips)
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func pairVerdictsGiveEverySkipTheWholeDiffsVerdict(seed: UInt64) throws {
        var history = History(seed: seed)
        let versions = try history.versions(40)
        let result = compareEverySkip(versions, maxSkip: 12, seed: seed)
        // Without hierarchies or entity renames every skip is judged pair by pair, and the histories
        // have both kinds of skip.
        #expect(result.judged == result.skips)
        #expect(result.steps > 0 && result.steps < result.judged, "\(result)")
    }

    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func entityRenamesAndHierarchiesAreLeftToTheWholeDiff(seed: UInt64) throws {
        var history = History(seed: seed, renames: true, hierarchy: true)
        let versions = try history.versions(40)
        let result = compareEverySkip(versions, maxSkip: 12, seed: seed)
        #expect(result.judged < result.skips, "\(result)")
    }

    /// A pair is judged once per pair of revisions, not once per skip: the reuse is the point.
    @Test func eachPairIsJudgedOnce() throws {
        var history = History(seed: 21)
        let versions = try history.versions(60)
        let graph = VersionGraph(plan: Plan(name: "p", file: "p.yaml", versions: versions))
        let verdicts = SkipVerdicts(graph: graph)
        var shared = 0
        for i in versions.indices {
            var trace = ChainTrace(from: i, in: graph)
            for j in stride(from: i + 2, to: min(versions.count, i + 17), by: 1) where verdicts.isStep(i, j, following: &trace) != nil {
                shared += Set(versions[i].entities.map(\.name)).intersection(versions[j].entities.map(\.name)).count
            }
        }
        #expect(verdicts.computedVerdicts * 4 < shared, "\(verdicts.computedVerdicts) verdicts for \(shared) pairs")
    }

    /// An entity removed and added again under its name is the same entity to a skip over both, and a
    /// lost one to the steps: the skip is no step.
    @Test func anEntityDroppedAndAddedAgainIsNoSkip() throws {
        let kept = Entity(name: "Kept", attributes: [Attribute(name: "title", type: .string)])
        let note = Entity(name: "Note", attributes: [Attribute(name: "body", type: .string)])
        let versions = [
            try Model(name: "V0", entities: [kept, note]),
            try Model(name: "V1", entities: [kept]),
            try Model(name: "V2", entities: [kept, note]),
            try Model(name: "V3", entities: [kept, note]),
        ]
        let graph = VersionGraph(plan: Plan(name: "p", file: "p.yaml", versions: versions))
        let verdicts = SkipVerdicts(graph: graph)
        var trace = ChainTrace(from: 0, in: graph)
        #expect(verdicts.isStep(0, 2, following: &trace) == false)
        #expect(verdicts.isStep(0, 3, following: &trace) == false)
        var later = ChainTrace(from: 1, in: graph)
        #expect(verdicts.isStep(1, 3, following: &later) == true)
        #expect(graph.step(0, 2) == nil && graph.step(1, 3) != nil)
    }
}
