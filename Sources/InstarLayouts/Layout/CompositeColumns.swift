@_spi(Layouts) import InstarModel

extension Attribute {
    /// What a layout stores for this attribute, each with its key in ``EntityStorage/columns``: the
    /// attribute itself under its name, or — for a composite — each element under `composite.element`.
    ///
    /// Core Data (and so SwiftData) flattens a composite into one column per element on the entity's
    /// own table and keeps no column for the composite itself (MetaCocktails `ZCOCKTAIL`: `author`'s
    /// elements are `ZPERSON`, `ZPLACE`, `ZYEAR`, `ZID`). Keying the elements by the dotted path keeps
    /// every consumer that looks a plain attribute up by name working unchanged: a composite's own name
    /// has no column, so it is skipped there and handled through its parts.
    package var storedParts: [(key: String, attribute: Attribute)] {
        guard type == .composite else { return [(name, self)] }
        return elements.map { ("\(name).\($0.name)", $0) }
    }
}
