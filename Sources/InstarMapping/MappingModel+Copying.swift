extension MappingModel {
    /// True when the mapping model does only what inference would: no custom migration policy, no
    /// filter, each attribute either `$source.<its own name>` (what Xcode generates) or left at its
    /// default, relationships as Xcode fills them. An inferred step may pass over such a mapping model
    /// without losing anything it computes; over any other, it may not.
    package var onlyCopiesValues: Bool {
        entityMappings.allSatisfy { mapping in
            guard mapping.customPolicyClass == nil, mapping.filter == nil, mapping.kind != .custom else { return false }
            let attributesCopied = mapping.attributeMappings.allSatisfy { property in
                switch property.origin {
                case .generated, .none: return true
                case .pendingGeneration: return false
                case .written:
                    guard case .keyPath(let base, let path)? = property.valueExpression else { return false }
                    return path == [property.name] && (base == nil || base == .variable("source"))
                }
            }
            let relationshipsFilled = mapping.relationshipMappings.allSatisfy { $0.origin != .written || $0.sourceKeyPath != nil }
            return attributesCopied && relationshipsFilled
        }
    }
}
