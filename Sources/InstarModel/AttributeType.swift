/// The sixteen attribute types of Core Data, with the raw values that feed the version hash.
///
/// Instar keeps Core Data's vocabulary on purpose: a model read from an `.xcdatamodeld` and one read
/// from an Instar YAML file must hash identically when they describe the same schema, so the type
/// set, and each type's `NSAttributeType` raw value, is exactly Core Data's.
public enum AttributeType: String, Sendable, Hashable, CaseIterable, Codable {
    /// No type (Xcode's "Undefined"); only valid for transient attributes.
    case undefined
    /// 16-bit signed integer (`Integer 16`).
    case integer16
    /// 32-bit signed integer (`Integer 32`).
    case integer32
    /// 64-bit signed integer (`Integer 64`).
    case integer64
    /// Arbitrary-precision decimal (`NSDecimalNumber`).
    case decimal
    /// 64-bit floating point.
    case double
    /// 32-bit floating point.
    case float
    /// Text.
    case string
    /// Boolean, stored as 0 or 1.
    case boolean
    /// A point in time; see the value encodings for how a store keeps it.
    case date
    /// Raw bytes (`Data`).
    case binary
    /// A UUID.
    case uuid
    /// A URL.
    case uri
    /// A value archived by a value transformer; stored as bytes.
    case transformable
    /// A managed object ID; derived, never stored in a column.
    case objectID
    /// A composite attribute (Core Data 2023): named sub-values stored as separate columns.
    case composite

    /// `NSAttributeType` raw value, hashed as a little-endian Int32.
    @_spi(Layouts) public var coreDataCode: Int32 {
        switch self {
        case .undefined: 0
        case .integer16: 100
        case .integer32: 200
        case .integer64: 300
        case .decimal: 400
        case .double: 500
        case .float: 600
        case .string: 700
        case .boolean: 800
        case .date: 900
        case .binary: 1000
        case .uuid: 1100
        case .uri: 1200
        case .transformable: 1800
        case .objectID: 2000
        case .composite: 2100
        }
    }

    /// The spelling Xcode writes in a model's `contents` XML (`attributeType="Integer 16"`).
    @_spi(Layouts) public var xcodeName: String {
        switch self {
        case .undefined: "Undefined"
        case .integer16: "Integer 16"
        case .integer32: "Integer 32"
        case .integer64: "Integer 64"
        case .decimal: "Decimal"
        case .double: "Double"
        case .float: "Float"
        case .string: "String"
        case .boolean: "Boolean"
        case .date: "Date"
        case .binary: "Binary"
        case .uuid: "UUID"
        case .uri: "URI"
        case .transformable: "Transformable"
        case .objectID: "Object ID"
        case .composite: "Composite"
        }
    }

    /// The spelling used in Instar model files (`title: string?`).
    @_spi(Layouts) public var modelFileName: String {
        switch self {
        case .undefined: "undefined"
        case .integer16: "int16"
        case .integer32: "int32"
        case .integer64: "int64"
        case .decimal: "decimal"
        case .double: "double"
        case .float: "float"
        case .string: "string"
        case .boolean: "bool"
        case .date: "date"
        case .binary: "binary"
        case .uuid: "uuid"
        case .uri: "uri"
        case .transformable: "transformable"
        case .objectID: "objectid"
        case .composite: "composite"
        }
    }

    /// Reads Xcode's spelling (`"Integer 16"`); nil for a name Xcode does not write.
    @_spi(Layouts) public init?(xcodeName: String) {
        guard let match = Self.allCases.first(where: { $0.xcodeName == xcodeName }) else { return nil }
        self = match
    }

    /// Accepts the model-file spelling and a few common aliases (`int`, `boolean`, `text`, `data`).
    @_spi(Layouts) public init?(modelFileName: String) {
        let key = modelFileName.lowercased()
        if let match = Self.allCases.first(where: { $0.modelFileName == key }) {
            self = match
            return
        }
        switch key {
        case "int", "integer": self = .integer64
        case "boolean": self = .boolean
        case "text": self = .string
        case "data", "blob": self = .binary
        case "url": self = .uri
        case "real": self = .double
        default: return nil
        }
    }

    /// Integer, decimal and floating-point types: Core Data converts freely between these and Boolean.
    @_spi(Layouts) public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: true
        default: false
        }
    }

    /// The three integer types: the ones whose values must fit a range (see ``DefaultValue/problem(with:for:)``).
    @_spi(Layouts) public var isInteger: Bool {
        switch self {
        case .integer16, .integer32, .integer64: true
        default: false
        }
    }

    /// Types that a SQLite store keeps in a column (object IDs are computed, never stored).
    @_spi(Layouts) public var isStored: Bool { self != .objectID }
}
