// A store's content as comparable text, for the store's tests and the runtime's.
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts
import Foundation
import GRDB
@_spi(Layouts) import InstarSQL
@_spi(Layouts) import InstarStore

/// A store's rows and schema as one text: equal texts, equal stores.
package enum StoreContent {
    /// Every table's rows and the schema, with columns by name: a step altered in place appends added
    /// columns at the end (SQLite's ADD COLUMN), a fused step may rebuild the table in layout order,
    /// and layouts address columns by name, so column order is not part of a store's content.
    package static func digest(_ store: SQLiteStore) throws -> String {
        try store.withDatabase { db in
            var lines: [String] = []
            let schema = try SchemaReader.read(db)
            for table in schema.tables.sorted(by: { $0.name < $1.name }) {
                let columns = table.columns.sorted { $0.name < $1.name }.map {
                    "\($0.name) \($0.declaredType) nn=\($0.notNull) pk=\($0.isPrimaryKey) d=\(String(describing: $0.defaultValue)) r=\(String(describing: $0.references))"
                }
                lines.append("table \(table.name) pk(\(table.primaryKey)) \(columns.joined(separator: ", "))")
            }
            for index in schema.indexes.sorted(by: { $0.name < $1.name }) {
                lines.append("index \(index.name) on \(index.table) \(index.elements) unique=\(index.isUnique)")
            }
            for table in schema.tables.map(\.name).sorted() {
                let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(SQLIdentifier.quoted(table))").map { row in
                    row.columnNames.sorted().map { name -> String in
                        let value: DatabaseValue = row[name]
                        switch value.storage {
                        case .null: return "\(name)=N"
                        case .int64(let i): return "\(name)=i\(i)"
                        case .double(let d): return "\(name)=r\(d)"
                        case .string(let s): return "\(name)=t\(s)"
                        case .blob(let b): return "\(name)=b\(b.base64EncodedString())"
                        }
                    }.joined(separator: "|")
                }.sorted()
                lines.append("\(table): \(rows.joined(separator: "; "))")
            }
            return lines.joined(separator: "\n")
        }
    }
}
