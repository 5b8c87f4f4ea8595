@_spi(Layouts) import InstarStore

/// Names the importer gives relationships it makes up: a to-one after its key column (`author_id` →
/// `author`), its inverse after the referring table in the plural (`Book.author` → `Person.books`),
/// and, when one table refers to another more than once, each inverse qualified by its column
/// (`Book.author_id`, `Book.editor_id` → `Person.books_as_author`, `Person.books_as_editor`), so that
/// a reader of the model can tell which foreign key an inverse belongs to. The style (snake or camel
/// case) follows the column's. Collisions with columns and other relationships are resolved by the
/// importer (``ImportedEntityBuilder``), which never reuses a name.
enum InverseNames {
    /// `artist_id`, `ArtistId`, `artistID` → `artist`, `Artist`, `artist`.
    static func stem(of column: String) -> String {
        for suffix in ["_id", "_ID", "_Id", "Id", "ID"] where column.count > suffix.count && column.hasSuffix(suffix) {
            return String(column.dropLast(suffix.count))
        }
        return column
    }

    /// English plural of the last word, in its case: `Category` → `Categories`, `Box` → `Boxes`,
    /// `Shelf` → `Shelves`, `book` → `books`, `USER` → `USERS`. Regular rules only: a name such as
    /// `Person` becomes `Persons`, which is plain enough to rename in the model file.
    static func plural(_ word: String) -> String {
        let lower = word.lowercased()
        let upper = word.count > 1 && word.contains(where: \.isUppercase) && !word.contains(where: \.isLowercase)
        func suffix(_ s: String) -> String { upper ? s.uppercased() : s }
        if lower.hasSuffix("y"), let before = lower.dropLast().last, !"aeiou".contains(before) {
            return String(word.dropLast()) + suffix("ies")
        }
        if ["s", "x", "z", "ch", "sh"].contains(where: { lower.hasSuffix($0) }) { return word + suffix("es") }
        if lower.hasSuffix("lf") { return String(word.dropLast()) + suffix("ves") }
        return word + suffix("s")
    }

    /// `books_as_author` for the column `author_id`, `BooksAsAuthor` for `AuthorId`.
    static func qualified(_ table: String, by column: String) -> String {
        let stem = stem(of: column)
        if column.contains("_") || !column.contains(where: \.isUppercase) {
            return "\(plural(table))_as_\(stem)"
        }
        return "\(plural(table))As\(stem.prefix(1).uppercased())\(stem.dropFirst())"
    }

    /// `tags_in_volume_tag`: a many-to-many's name when the plain one is taken.
    static func qualified(_ stem: String, in linkTable: String) -> String {
        "\(plural(stem))_in_\(linkTable)"
    }
}
