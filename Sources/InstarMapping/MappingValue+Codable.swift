import Foundation

/// Plain JSON for values: `null`, `true`, `3`, `0.2`, `"text"`, `[…]`, `{…}`; a date is
/// `{"date": secondsSince2001}` and bytes `{"data": "base64"}`, so that reports read naturally.
extension MappingValue {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .real(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([MappingValue].self) {
            self = .array(value)
        } else {
            let entries = try container.decode([String: MappingValue].self)
            if entries.count == 1, case .real(let seconds)? = entries["date"] {
                self = .date(seconds)
            } else if entries.count == 1, case .integer(let seconds)? = entries["date"] {
                self = .date(Double(seconds))
            } else if entries.count == 1, case .string(let base64)? = entries["data"], let bytes = Data(base64Encoded: base64) {
                self = .data(bytes)
            } else {
                self = .dictionary(entries)
            }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .date(let seconds): try container.encode(["date": seconds])
        case .data(let bytes): try container.encode(["data": bytes.base64EncodedString()])
        case .array(let items): try container.encode(items)
        case .dictionary(let entries): try container.encode(entries)
        }
    }
}
