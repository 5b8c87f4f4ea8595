@_spi(Layouts) import InstarModel

/// The concrete fix for a loss, in the framework the user writes: what to type where, not a rule to
/// look up. A rename of the same type needs one identifier; a type change or a move into a new entity
/// needs code that reads the old value before the step drops it.
enum Fixes {
    static func hint(_ loss: Losses.Loss, best: ReleaseFinding.Destination, step: [String], framework: FixFramework) -> String {
        let (a, b) = (step[0], step[1])
        let old = loss.property.map { "\(loss.entity).\($0)" } ?? loss.entity
        let keep = "or, if the values are meant to go, declare it in \(ChangeIntent.fileName): '- drop: \(old)' with a reason"
        let oldName = loss.property ?? loss.entity
        let newName = best.property ?? best.entity
        switch (loss.into, loss.sameType, framework) {
        case (.sameEntity, true, .coreData), (.entity, _, .coreData):
            return "set the Renaming ID of '\(best.subject)' to '\(oldName)' in \(b)'s model (Data Model inspector), "
                + "so that lightweight migration moves the values; \(keep)"
        case (.sameEntity, true, .swiftData):
            return "declare it as @Attribute(originalName: \"\(oldName)\") var \(newName) in \(b)'s schema; \(keep)"
        case (.sameEntity, true, .instar), (.entity, _, .instar):
            return "add 'renamedFrom: \(oldName)' to '\(newName)' in \(b)'s model file; \(keep)"
        case (.sameEntity, false, .coreData):
            return "a renaming identifier cannot convert the type: add a mapping model for \(a) → \(b) whose \(loss.entity) mapping sets "
                + "'\(newName)' from $source.\(oldName) (converted), or go through an intermediate version: \(a) → \(a)′ "
                + "('\(newName)' added beside '\(oldName)', filled by a hook) → \(b) ('\(oldName)' dropped); \(keep)"
        case (.sameEntity, false, .swiftData):
            return "a .custom(fromVersion: \(a), toVersion: \(b)) stage: in willMigrate read each \(loss.entity)'s \(oldName) "
                + "(and keep it, keyed by persistentModelID), in didMigrate set \(newName) from it and save; or add an intermediate "
                + "VersionedSchema with both, filled in didMigrate, then drop '\(oldName)'; \(keep)"
        case (.sameEntity, false, .instar):
            return "go through an intermediate version \(a)′ with '\(newName)' beside '\(oldName)' and a stage hook that fills "
                + "it (UPDATE … SET \(newName) = converted \(oldName)), then drop '\(oldName)'; \(keep)"
        case (.newEntity, _, .coreData):
            return "add a mapping model for \(a) → \(b) (or an intermediate version \(a)′ with \(best.entity) beside "
                + "'\(old)' and a hook creating one \(best.entity) per \(loss.entity) from it, then \(b) without it); \(keep)"
        case (.newEntity, _, .swiftData):
            return "a .custom(fromVersion: \(a), toVersion: \(b)) stage: willMigrate reads each \(loss.entity)'s \(oldName) "
                + "(keyed by persistentModelID), didMigrate creates a \(best.entity) for it (\(newName) set from the value) and links it; \(keep)"
        case (.newEntity, _, .instar):
            return "go through an intermediate version \(a)′ with \(best.entity) beside '\(old)' and a stage hook inserting one "
                + "\(best.entity) row per \(loss.entity) row from it, then drop '\(oldName)'; \(keep)"
        case (.entity, _, .swiftData):
            return "SwiftData matches a @Model by its class name: keep the class name \(oldName) (rename the Swift type with a "
                + "typealias), or copy the rows in a .custom(fromVersion: \(a), toVersion: \(b)) stage's willMigrate/didMigrate; \(keep)"
        }
    }
}
