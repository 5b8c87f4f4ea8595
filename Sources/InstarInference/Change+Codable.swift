/// A change's JSON is what `instar diff --format json` (and every JSON output listing changes) has
/// always written: the verdict is spread over `inferable`, `reason` and `condition`, so that scripts
/// read flat keys, and decoding puts the verdict back together from them.
extension Change: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, entity, property, oldName, before, after, inferable, reason, condition, dropsData
    }

    /// Reads a change written by ``encode(to:)``: a `condition` makes the verdict conditional,
    /// `inferable: false` makes it not inferable.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let reason = try c.decode(String.self, forKey: .reason)
        let verdict: Verdict
        if !(try c.decode(Bool.self, forKey: .inferable)) {
            verdict = .notInferable(reason)
        } else if let condition = try c.decodeIfPresent(DataCondition.self, forKey: .condition) {
            verdict = .conditional(reason, condition)
        } else {
            verdict = .inferable(reason)
        }
        self.init(
            try c.decode(Kind.self, forKey: .kind), entity: try c.decode(String.self, forKey: .entity),
            property: try c.decodeIfPresent(String.self, forKey: .property),
            oldName: try c.decodeIfPresent(String.self, forKey: .oldName),
            before: try c.decodeIfPresent(String.self, forKey: .before),
            after: try c.decodeIfPresent(String.self, forKey: .after), verdict: verdict,
            dropsData: try c.decode(Bool.self, forKey: .dropsData))
    }

    /// Writes the change with its verdict as `inferable`, `reason` and (when conditional) `condition`;
    /// absent names and values are left out.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(entity, forKey: .entity)
        try c.encodeIfPresent(property, forKey: .property)
        try c.encodeIfPresent(oldName, forKey: .oldName)
        try c.encodeIfPresent(before, forKey: .before)
        try c.encodeIfPresent(after, forKey: .after)
        try c.encode(isInferable, forKey: .inferable)
        try c.encode(verdict.reason, forKey: .reason)
        try c.encodeIfPresent(verdict.condition, forKey: .condition)
        try c.encode(dropsData, forKey: .dropsData)
    }
}

extension Change.Kind: Codable {}

/// A condition's JSON names its case in `kind`, its associated values by name (the `linked` case's
/// `by` as `owner`) and its sentence in `text`, which decoding does not need: the case rebuilds it.
extension DataCondition: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, entity, property, properties, owner, relationship, text
    }

    /// Reads a condition written by ``encode(to:)``, by its `kind`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let entity = try c.decode(String.self, forKey: .entity)
        switch try c.decode(String.self, forKey: .kind) {
        case "noNulls": self = .noNulls(entity: entity, property: try c.decode(String.self, forKey: .property))
        case "noRows": self = .noRows(entity: entity)
        case "unique": self = .unique(entity: entity, properties: try c.decode([String].self, forKey: .properties))
        case "linked":
            self = .linked(
                entity: entity, by: try c.decode(String.self, forKey: .owner),
                relationship: try c.decode(String.self, forKey: .relationship))
        case let kind:
            throw DecodingError.dataCorruptedError(forKey: .kind, in: c, debugDescription: "unknown data condition '\(kind)'")
        }
    }

    /// Writes the case's name as `kind`, its values, and its ``description`` as `text`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .noNulls(let entity, let property):
            try c.encode("noNulls", forKey: .kind)
            try c.encode(entity, forKey: .entity)
            try c.encode(property, forKey: .property)
        case .noRows(let entity):
            try c.encode("noRows", forKey: .kind)
            try c.encode(entity, forKey: .entity)
        case .unique(let entity, let properties):
            try c.encode("unique", forKey: .kind)
            try c.encode(entity, forKey: .entity)
            try c.encode(properties, forKey: .properties)
        case .linked(let entity, let owner, let relationship):
            try c.encode("linked", forKey: .kind)
            try c.encode(entity, forKey: .entity)
            try c.encode(owner, forKey: .owner)
            try c.encode(relationship, forKey: .relationship)
        }
        try c.encode(description, forKey: .text)
    }
}

/// A warning's JSON is its kind, message, entity and property. ``Warning/dropped`` is the planner's
/// own bookkeeping (matching a warning with another step's) and is not written, so a decoded warning
/// has none: it equals the original only when that had none either.
extension Warning: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, message, entity, property
    }

    /// Reads a warning written by ``encode(to:)``; ``Warning/dropped`` is nil.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(Kind.self, forKey: .kind), entity: try c.decodeIfPresent(String.self, forKey: .entity),
            property: try c.decodeIfPresent(String.self, forKey: .property), message: try c.decode(String.self, forKey: .message))
    }

    /// Writes the kind, the message, and the entity and property when there are some.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(message, forKey: .message)
        try c.encodeIfPresent(entity, forKey: .entity)
        try c.encodeIfPresent(property, forKey: .property)
    }
}

extension Warning.Kind: Codable {}
