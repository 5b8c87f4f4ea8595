/// `userInfo` keys the SwiftData reader sets on attributes for facts a Core Data model has no field for.
///
/// They live here, below both the SwiftData reader (which sets them) and the model-cache writer in
/// InstarModelIO (which reads them when it archives a model for a store's `Z_MODELCACHE`): neither of
/// those modules may import the other. Every key starts with ``prefix`` and is never archived itself.
package enum SwiftDataUserInfo {
    /// What every key of Instar's own starts with: such keys are Instar's notes, not the app's user info.
    package static let prefix = "instar."
    /// The value class SwiftData records for a transformable attribute: `Array<String>` / `Array<Data>` for a
    /// top-level `[String]` / `[Data]`, the property's type (`NSColor`) for `.transformable(by:)`.
    package static let valueClass = "instar.swiftdata.valueClass"
    /// A composite initialised with `T()` where every member of `T` is optional and has no initial value:
    /// SwiftData's default is then an empty dictionary.
    package static let emptyCompositeDefault = "instar.swiftdata.emptyCompositeDefault"
    /// A transformable attribute initialised with `[]`: SwiftData's default is then an empty array (ChefTime
    /// SDRecipe.imageData).
    package static let emptyArrayDefault = "instar.swiftdata.emptyArrayDefault"
    /// An attribute whose Swift initializer is not a literal (`= Date()`): its text. SwiftData evaluates it
    /// once and the model keeps that value as the default, so the reader cannot know it; it is not hashed.
    package static let appEvaluatedDefault = "instar.swiftdata.appEvaluatedDefault"
    /// An attribute whose Core Data shape no real store shows (`CGFloat` → Double, `UInt64` → Integer 64,
    /// `Set<String>` → Transformable): the Swift type and the shape assumed, as `CGFloat → Double`. Analysis
    /// goes on with it; a migration that would write a schema or hashes resting on it is refused unless the
    /// store proves it or the app accepts assumed mappings (docs/swiftdata.md lists every mapping).
    package static let assumedMapping = "instar.swiftdata.assumedMapping"
}
