/// Shares the storage of entities that one version of a history declares exactly as the version
/// before it did: the versions of a bundle, a plan's model files, a SwiftData app's `VersionedSchema`s.
///
/// A long-lived app's history repeats most entities unchanged from version to version (a generated
/// 117-version bundle changes three attributes per version among 60 entities), and a plan keeps
/// every version in memory: without sharing, each version holds its own copy of every attribute,
/// about a quarter of the memory of planning such a bundle and two thirds of linting a plan of
/// 1,000 model files. An entity equal in every field to the
/// last one read under its name is replaced by that one, whose arrays Swift then shares (copy on
/// write), so the result cannot be told apart from the entity as read.
package final class EntityInterner {
    private var latest: [String: Entity] = [:]

    package init() {}

    /// `entities`, each replaced by an equal entity read before when there is one.
    package func intern(_ entities: [Entity]) -> [Entity] {
        entities.map { entity in
            if let earlier = latest[entity.name], earlier == entity { return earlier }
            latest[entity.name] = entity
            return entity
        }
    }
}
