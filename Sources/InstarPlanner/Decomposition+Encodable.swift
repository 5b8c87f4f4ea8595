import InstarInference

/// A proposal as `instar plan --format json` writes it where no chain exists: its versions, recipes,
/// steps, hooks (SQL, or a template), risks and notes.
///
/// Encodable only: a proposal holds the intermediate and target models themselves (what `--scaffold`
/// writes out as model files, and what the steps were checked on), and the JSON names them only
/// (`intermediate`, `final`). A proposal read back from JSON would have no models to scaffold or to
/// check, so there is none.
extension Decomposition: Encodable {
    private enum CodingKeys: String, CodingKey {
        case from, to, complete, templates, versions, intermediate, final, recipes, steps, hooks, risks, notes, manualRecipe
    }

    /// Writes the proposal, its derived verdicts (`complete`, `templates`, `versions`) and its models by name.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(isComplete, forKey: .complete)
        try c.encode(hasTemplates, forKey: .templates)
        try c.encode(versions, forKey: .versions)
        try c.encodeIfPresent(intermediate?.name, forKey: .intermediate)
        try c.encodeIfPresent(final?.name, forKey: .final)
        try c.encode(recipes, forKey: .recipes)
        try c.encode(steps, forKey: .steps)
        try c.encode(hooks, forKey: .hooks)
        try c.encode(risks, forKey: .risks)
        try c.encode(notes, forKey: .notes)
        try c.encodeIfPresent(manualRecipe, forKey: .manualRecipe)
    }
}

/// A recipe: its kind, the change it handles (and that change's subject, for scripts that only want
/// that), what it does, its temporary property and hook.
extension Decomposition.Recipe: Encodable {
    private enum CodingKeys: String, CodingKey {
        case kind, subject, summary, change, temporary, hook
    }

    /// Writes the recipe.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind.rawValue, forKey: .kind)
        try c.encode(change.subject, forKey: .subject)
        try c.encode(summary, forKey: .summary)
        try c.encode(change, forKey: .change)
        try c.encodeIfPresent(temporary, forKey: .temporary)
        try c.encodeIfPresent(hook, forKey: .hook)
    }
}

/// A proposed step, with its stage's hooks as `before` and `after` (empty without a stage).
extension Decomposition.ProposedStep: Encodable {
    private enum CodingKeys: String, CodingKey {
        case from, to, kind, inferable, before, after
    }

    /// Writes the step.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(from, forKey: .from)
        try c.encode(to, forKey: .to)
        try c.encode(kind.rawValue, forKey: .kind)
        try c.encode(isInferable, forKey: .inferable)
        try c.encode(stage?.before ?? [], forKey: .before)
        try c.encode(stage?.after ?? [], forKey: .after)
    }
}

/// A proposed hook: its definition's kind, and its statements when it is SQL.
extension Decomposition.Hook: Encodable {
    private enum CodingKeys: String, CodingKey {
        case name, phase, step, kind, template, purpose, sql
    }

    /// Writes the hook.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(phase, forKey: .phase)
        try c.encode(step, forKey: .step)
        try c.encode(definition.kindName, forKey: .kind)
        try c.encode(isTemplate, forKey: .template)
        try c.encode(purpose, forKey: .purpose)
        if case .sql(let statements) = definition { try c.encode(statements, forKey: .sql) }
    }
}

/// A proposal's risk: what, in words, and the count a dry run made on the store (its kind and
/// counting SQL are the planner's).
extension Decomposition.Risk: Encodable {
    private enum CodingKeys: String, CodingKey {
        case subject, message, count
    }

    /// Writes the subject, the message and the count when there is one.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(subject, forKey: .subject)
        try c.encode(message, forKey: .message)
        try c.encodeIfPresent(count, forKey: .count)
    }
}
