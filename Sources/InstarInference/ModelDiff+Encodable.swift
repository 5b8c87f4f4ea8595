/// `instar diff --format json`: the versions, whether inference performs the step, its changes and
/// warnings.
///
/// Encodable only: a diff also holds how every entity and property of the two versions correspond
/// (``ModelDiff/mappings``, what the compiler turns into SQL), which is computed from the two models
/// and is not in the JSON. A diff read back from JSON would be one that compiles to the wrong SQL, so
/// there is none; programs read the output's `changes` and `warnings` as ``Change`` and ``Warning``
/// values.
extension ModelDiff: Encodable {
    private enum CodingKeys: String, CodingKey {
        case from, to, inferable, changes, warnings
    }

    /// Writes `from`, `to`, `inferable`, `changes` and `warnings`.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(fromVersion, forKey: .from)
        try c.encode(toVersion, forKey: .to)
        try c.encode(isInferable, forKey: .inferable)
        try c.encode(changes, forKey: .changes)
        try c.encode(warnings, forKey: .warnings)
    }
}
