"""Generated plans and SwiftData sources of N versions, for the planning benchmarks (bench-plan, bench-scaling)."""

from pathlib import Path


def model_text(version, entities, cap=None):
    """Version v: entity k has attributes a0..a(n) where n grows with the versions touching k.

    Entity k is touched every `entities` versions, starting at version k; each touch adds an attribute (every
    tenth one renamed later through a renaming identifier). With `cap`, see `capped_model_text`: every model
    the same size."""
    if cap is not None:
        return capped_model_text(version, entities, cap)
    lines = [f"name: V{version}", "entities:"]
    for k in range(entities):
        lines.append(f"  E{k}:")
        lines.append("    attributes:")
        lines.append("      title: string?")
        # Entity k gains one attribute every `entities` versions, starting at version k.
        count = 0 if version < k else (version - k) // entities + 1
        for a in range(count):
            if a % 10 == 9 and version >= k + (a + 1) * entities:
                lines.append(f"      r{a}: {{type: int64, optional: true, renamedFrom: a{a}}}")
            else:
                lines.append(f"      a{a}: int64?")
    return "\n".join(lines) + "\n"


def capped_model_text(version, entities, cap):
    """Version v with every model the same size: entity k holds `cap` attributes from the first version on,
    and every `entities` versions (starting at version k) one touch renames slot t % cap through a renaming
    identifier. Each attribute line has the same form at every generation, so the model's bytes do not grow
    with the history either: N versions are N times one model, and the work should be linear in N."""
    lines = [f"name: V{version}", "entities:"]
    for k in range(entities):
        lines.append(f"  E{k}:")
        lines.append("    attributes:")
        lines.append("      title: string?")
        touches = 0 if version < k else (version - k) // entities + 1
        for slot in range(cap):
            # How many touches have hit this slot so far: touches t = 1, 2, … hit slot (t - 1) % cap.
            generation = (touches - 1 - slot) // cap + 1 if touches > slot else 0
            name = f"a{slot}g{generation}"
            previous = f"a{slot}g{generation - 1}" if generation > 0 else None
            renamed = f", renamedFrom: {previous}" if previous else ", indexed: false"
            lines.append(f"      {name}: {{type: int64, optional: true{renamed}}}")
    return "\n".join(lines) + "\n"


def write_plan(folder, versions, entities, cap=None):
    """models/v1.yaml … models/vN.yaml and plan.yaml listing them, oldest first, in `folder`; returns the plan's path."""
    folder = Path(folder)
    (folder / "models").mkdir(parents=True, exist_ok=True)
    for v in range(1, versions + 1):
        (folder / "models" / f"v{v}.yaml").write_text(model_text(v, entities, cap))
    listed = ", ".join(f"models/v{v}.yaml" for v in range(1, versions + 1))
    plan = folder / "plan.yaml"
    plan.write_text(f"name: bench\nversions: [{listed}]\n")
    return plan


def swiftdata_sources(versions, classes=4, fields=5):
    """Swift sources of an app with `versions` VersionedSchemas (S1 … SN) and a SchemaMigrationPlan with a
    lightweight stage between each two: schema v renames one field of class v % classes (`@Attribute(
    originalName:)` names its previous name), so every schema has the same size and every stage is inferable."""
    parts = ["import SwiftData\n"]
    generation = {}  # (class, slot) -> renames so far
    for v in range(1, versions + 1):
        if v > 1:
            touched = (v % classes, (v // classes) % fields)
            generation[touched] = generation.get(touched, 0) + 1
        parts.append(f"enum S{v}: VersionedSchema {{")
        parts.append(f"    static var versionIdentifier = Schema.Version({v}, 0, 0)")
        parts.append("    static var models: [any PersistentModel.Type] { ["
                     + ", ".join(f"C{c}.self" for c in range(classes)) + "] }")
        for c in range(classes):
            parts.append(f"    @Model final class C{c} {{")
            parts.append("        var title: String = \"\"")
            for s in range(fields):
                g = generation.get((c, s), 0)
                name = f"f{s}" if g == 0 else f"f{s}g{g}"
                if g > 0:
                    previous = f"f{s}" if g == 1 else f"f{s}g{g - 1}"
                    parts.append(f"        @Attribute(originalName: \"{previous}\") var {name}: Int?")
                else:
                    parts.append(f"        var {name}: Int?")
            parts.append("        init() {}")
            parts.append("    }")
        parts.append("}")
    schemas = ", ".join(f"S{v}.self" for v in range(1, versions + 1))
    stages = ",\n            ".join(f".lightweight(fromVersion: S{v}.self, toVersion: S{v + 1}.self)"
                                    for v in range(1, versions))
    parts.append("enum AppPlan: SchemaMigrationPlan {")
    parts.append(f"    static var schemas: [any VersionedSchema.Type] {{ [{schemas}] }}")
    parts.append(f"    static var stages: [MigrationStage] {{ [\n            {stages}\n        ] }}")
    parts.append("}")
    return "\n".join(parts) + "\n"
