"""SwiftData schema sources for Scripts/fuzz (kind `swift`): a corpus app's model files, mutated.

Mutations aim at what a Swift reader finds hard: deep nesting (types, `#if`, brackets, array literals,
optionals), spliced Swift tokens, duplicated classes, odd macro arguments, cyclic type aliases and
struct composites, stages that go backwards or to themselves, and the generic text mutations. Every
function takes a `random.Random`, so a case is reproducible from its seed and number.
"""

import re

from . import mutators

SWIFT_TOKENS = ["@Model", "@Model final class", "{", "}", "(", ")", "[", "]", "<", ">", "#if DEBUG\n", "#endif\n",
                "#else\n", "typealias", "extension", ".self", "static var", "enum", "struct", "case", "?", "!",
                "\\.", "\\", "\"", "\"\"\"", "#\"", "\\(", "//", "/*", "*/", ":", ",", ";", "= ", "@Attribute(",
                "@Relationship(", "#Unique<", "#Index<", "VersionedSchema", "SchemaMigrationPlan",
                "Schema.Version(", "MigrationStage.lightweight(", "`", "\u202e", "\x00", "0x", "1e999",
                "-9223372036854775808", "[Int]", "Int?", "some", "any", "inout", "throws", "async"]

ODD_MACRO_ARGUMENTS = [
    "@Attribute(.unique, .unique, originalName: \"\", hashModifier: \"\\u{0}\")",
    "@Attribute(.transformable(by: ))", "@Attribute(.transformable(by: \"\"))", "@Attribute(originalName: 1)",
    "@Attribute(.externalStorage, .spotlight, .ephemeral, .allowsCloudEncryption, .preserveValueOnDeletion)",
    "@Attribute(" + ", ".join([".unique"] * 200) + ")", "@Attribute(.unique(.unique(.unique)))",
    "@Relationship(deleteRule: .nope, inverse: \\.)", "@Relationship(inverse: \\Missing.nothing.at.all)",
    "@Relationship(minimumModelCount: -1, maximumModelCount: 99999999999999999999)",
    "@Relationship(deleteRule: .cascade, deleteRule: .deny)", "@Relationship()", "@Attribute()",
    "@Transient @Attribute(.unique) @Relationship", "#Unique<Item>([\\.a, \\.a], [], [\\.])",
    "#Index<Item>([\\Item.a.b.c], [\\.missing])", "#Unique([])", "#Index()",
]


def seed_sets(corpus):
    """Folders of Swift sources, one app each: [(name, [files])]."""
    root = corpus / "swiftdata"
    if not root.is_dir():
        return []
    sets = []
    for app in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("_")):
        # A snapshot at a past commit (`@<commit>/`) is its own app: read together with HEAD's sources
        # it would only declare every class twice.
        snapshots = sorted(p for p in app.iterdir() if p.is_dir() and p.name.startswith("@"))
        head = sorted(p for p in app.rglob("*.swift") if not any(part.startswith("@") for part in p.relative_to(app).parts))
        for name, files in [(app.name, head)] + [(f"{app.name}/{s.name}", sorted(s.rglob("*.swift"))) for s in snapshots]:
            if files:
                sets.append((name, files))
    return sets


def nested(rng, body):
    """A model wrapped in deep nesting of one kind."""
    kind = rng.randrange(8)
    depth = rng.choice([20, 65, 300, 1500, 5000, 10000])
    if kind == 0:
        return "enum E {\n" * depth + body + "}\n" * depth
    if kind == 1:
        return "#if A\n" * depth + body + "#endif\n" * depth
    if kind == 2:
        levels = rng.randint(8, 30)
        return body + "\nlet grid: " + "[" * levels + "Int" + "]" * levels + " = []\n"
    if kind == 3:
        levels = rng.randint(8, 30)
        return body + "\nlet literal = " + "[" * levels + "1" + "]" * levels + "\n"
    if kind == 4:
        levels = rng.randint(8, 30)
        return body + "\nvar x: " + "[" * levels + "Int" + "?]?" * levels + "\n"
    if kind == 5:
        return body + "\nlet open = " + "[" * rng.randint(8, 5000)
    if kind == 6:
        return body + "\nlet chain = a" + ".b" * depth + "\nlet opt: Int" + "?" * depth + "\n"
    return body + "\nlet sum = " + "(" * min(depth, 3000) + "1" + ")" * min(depth, 3000) + "\n"


def cyclic(rng, body):
    """Cyclic type aliases or struct composites, and a model property that uses them."""
    if rng.random() < 0.5:
        n = rng.randint(1, 40)
        aliases = "".join(f"typealias Cyc{i} = Cyc{(i + 1) % n}\n" for i in range(n))
        return aliases + body + "\n@Model final class CycleUser { var c: Cyc0; var d: [Cyc0?] = [] }\n" \
            "let cycleSchema = Schema([CycleUser.self])\n"
    return body + "\nstruct P: Codable { var q: Q }\nstruct Q: Codable { var p: P? }\n" \
        "@Model final class CompositeUser { var p: P?; var placement = P.q }\nlet compositeSchema = Schema([CompositeUser.self])\n"


def duplicated_classes(rng, text):
    """One `@Model` class block, repeated."""
    match = re.search(r"@Model[^{]*\{", text)
    if not match:
        return text
    end = text.find("\n}", match.end())
    block = text[match.start():(end + 2 if end >= 0 else len(text))]
    return text + ("\n" + block) * rng.randint(1, 50)


def odd_macros(rng, text):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 5)):
        i = rng.randrange(len(lines))
        lines[i:i] = [rng.choice(ODD_MACRO_ARGUMENTS)]
    return "\n".join(lines)


def odd_stages(rng, text):
    """Stages swapped (backwards), pointed at themselves, or doubled into a cycle."""
    calls = list(re.finditer(r"fromVersion:\s*([\w.]+)\.self,\s*toVersion:\s*([\w.]+)\.self", text))
    if not calls:
        return text
    m = rng.choice(calls)
    a, b = m.group(1), m.group(2)
    choice = rng.randrange(3)
    if choice == 0:
        replacement = f"fromVersion: {b}.self, toVersion: {a}.self"
    elif choice == 1:
        replacement = f"fromVersion: {a}.self, toVersion: {a}.self"
    else:
        replacement = m.group(0) + f"), .lightweight(fromVersion: {b}.self, toVersion: {a}.self"
    return text[:m.start()] + replacement + text[m.end():]


def splice_tokens(rng, text):
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(SWIFT_TOKENS) + text[at:]
    return text


def mutate(rng, text):
    """One to three Swift-aware mutations, sometimes followed by byte-level ones."""
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(7)
        if op == 0:
            text = nested(rng, text)
        elif op == 1:
            text = cyclic(rng, text)
        elif op == 2:
            text = duplicated_classes(rng, text)
        elif op == 3:
            text = odd_macros(rng, text)
        elif op == 4:
            text = odd_stages(rng, text)
        elif op == 5:
            text = splice_tokens(rng, text)
        else:
            text = mutators.mutate_text(text.encode(), rng).decode("utf-8", "replace")
    return text


def build(rng, seed_set, folder):
    """Writes the app's files (one or more mutated) into folder/Sources; returns the origin and commands."""
    name, files = seed_set
    target = folder / "Sources"
    target.mkdir()
    chosen = rng.sample(range(len(files)), k=min(len(files), rng.randint(1, 3)))
    for index, path in enumerate(files):
        text = path.read_text(encoding="utf-8", errors="replace")
        if index in chosen:
            text = mutate(rng, text)
        (target / f"{index:03d}-{path.name}").write_text(text, encoding="utf-8")
    commands = [["model", "swiftdata", "Sources"], ["plan", "--swiftdata", "Sources"],
                ["lint", "--swiftdata", "Sources"] + (["--cloudkit"] if rng.random() < 0.5 else [])]
    origin = f"{name} ({len(files)} files, mutated {', '.join(files[i].name for i in sorted(chosen))})"
    return origin, commands
