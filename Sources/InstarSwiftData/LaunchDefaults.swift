import Foundation
@_spi(Layouts) import InstarModel

/// Defaults SwiftData computes at launch (`= UUID()`, `= Date()`, `= .now`), made concrete for a run.
///
/// SwiftData evaluates such an initializer once, when it builds the schema, and the model keeps that
/// one value as the attribute's default (myhome's stores carry a concrete UUID and date where the
/// source says `UUID()` and `Date()`). A migration that adds such an attribute therefore gives every
/// existing row the same value — the "constant default" that myhome's V9→V10 `didMigrate` backfills
/// away. Instar reproduces it: one value per attribute per run, chosen when the plan is made. Defaults
/// never enter the version hash, so the schema's identity is unchanged.
package enum LaunchDefaults {
    /// The default Core Data would hold for `expression` on an attribute of `type`, evaluated now;
    /// nil for anything but a fresh UUID or the current date.
    package static func value(of expression: String, type: AttributeType, now: Date = Date()) -> String? {
        let compact = expression.filter { !$0.isWhitespace }
        switch type {
        case .uuid where ["UUID()", "Foundation.UUID()", ".init()", "UUID.init()"].contains(compact):
            return UUID().uuidString
        case .date where ["Date()", "Foundation.Date()", ".now", "Date.now", ".init()", "Date.init()"].contains(compact):
            // Core Data keeps a date default as seconds since 2001-01-01 (`defaultDateTimeInterval`).
            return String(now.timeIntervalSinceReferenceDate.rounded())
        default:
            return nil
        }
    }

    /// `model` with every launch-evaluated default it can evaluate made concrete.
    package static func evaluated(_ model: Model, now: Date = Date()) throws(ModelError) -> Model {
        var changed = false
        let entities = model.entities.map { entity -> Entity in
            var entity = entity
            for index in entity.attributes.indices {
                let attribute = entity.attributes[index]
                guard attribute.defaultValue == nil,
                    let expression = attribute.userInfo[SwiftDataSchema.appEvaluatedDefaultKey],
                    let value = value(of: expression, type: attribute.type, now: now)
                else { continue }
                entity.attributes[index].defaultValue = value
                changed = true
            }
            return entity
        }
        guard changed else { return model }
        return try Model(
            name: model.name, versionIdentifier: model.versionIdentifier, entities: entities, locations: model.locations.all,
            source: model.source, versionIdentifiers: model.versionIdentifiers, rawSQL: model.rawSQL)
    }
}
