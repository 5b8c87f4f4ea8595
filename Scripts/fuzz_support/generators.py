"""Generated inputs for Scripts/fuzz: deeply nested and very long expressions, YAML, JSON, XML and
keyed archives, written into a case folder with the commands that read them."""

import plistlib
import shutil

from instar_scripts.common import REPO

DEPTHS = [50, 200, 1000, 5000, 20000, 100000]


def expression(rng):
    """NSExpression / NSPredicate text: nested, long, or plain broken."""
    depth = rng.choice(DEPTHS)
    shape = rng.randrange(12)
    if shape == 0:
        return "(" * depth + "$source.a" + ")" * depth
    if shape == 1:
        return "-" * depth + "1"
    if shape == 2:
        return "NOT " * depth + "a == 1"
    if shape == 3:
        return "$source" + ".k" * depth
    if shape == 4:
        return "2 ** " * depth + "2"
    if shape == 5:
        return "FUNCTION(" * depth + "$source" + ", 'f:')" * depth
    if shape == 6:
        return "{" * depth + "1" + "}" * depth
    if shape == 7:
        return "a[" * depth + "0" + "]" * depth
    if shape == 8:
        return " + ".join(["$source.x"] * depth)
    if shape == 9:
        return "FUNCTION($source, 'valueForKeyPath:', '" + ".k" * depth + "')"
    if shape == 10:
        return "TERNARY(" * depth + "a == 1, 1, 2)" * depth
    return "(" * depth + "a == 1" + ")" * depth + " AND b > 2"


def nasty_fragment(rng):
    """A short splice: nesting, a long run, or an extreme number."""
    depth = rng.choice(DEPTHS[:4])
    return rng.choice([
        "[" * depth, "{" * depth, "- " * depth, "(" * depth, "<a>" * depth, "$source" + ".k" * depth,
        "x" * (depth * 10), "9" * 400, "-9223372036854775809", "&a [*a, *a, *a]", "\u202e",
    ])


def yaml_nested(rng):
    depth = rng.choice(DEPTHS)
    shape = rng.randrange(5)
    if shape == 0:
        return "entities: " + "[" * depth + "]" * depth + "\n"
    if shape == 1:
        return "entities:\n  " + "- " * depth + "x\n"
    if shape == 2:
        return "entities: " + "{a: " * depth + "1" + "}" * depth + "\n"
    if shape == 3:
        lines = ["version: V", "entities:"]
        for level in range(min(depth, 3000)):
            lines.append("  " * (level + 1) + f"k{level}:")
        return "\n".join(lines) + " 1\n"
    # The "billion laughs": aliases that expand exponentially.
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 30):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]")
    lines += ["version: V", "entities: *a29"]
    return "\n".join(lines) + "\n"


def json_nested(rng):
    depth = rng.choice(DEPTHS)
    return '{"version": "V", "entities": ' + "[" * depth + "]" * depth + "}"


def archived_expression(rng):
    """A keyed archive of NSExpressions: deep chains, cycles, bad references."""
    objects = ["$null"]

    def add(value):
        objects.append(value)
        return plistlib.UID(len(objects) - 1)

    function_class = add({"$classname": "NSFunctionExpression", "$classes": ["NSFunctionExpression", "NSExpression"]})
    constant_class = add({"$classname": "NSConstantValueExpression", "$classes": ["NSConstantValueExpression"]})
    selector = add("valueForKey:")
    shape = rng.randrange(4)
    leaf = add({"$class": constant_class, "NSConstantValue": add("v")})
    if shape == 0:  # a deep chain of operands
        current = leaf
        for _ in range(rng.choice([100, 1000, 20000])):
            current = add({"$class": function_class, "NSSelectorName": selector, "NSOperand": current,
                           "NSExpressionType": 4})
        root = current
    elif shape == 1:  # a cycle: an expression is its own operand
        root = plistlib.UID(len(objects))
        objects.append({"$class": function_class, "NSSelectorName": selector, "NSOperand": root,
                        "NSExpressionType": 4})
    elif shape == 2:  # references out of range and of the wrong kinds
        root = add({"$class": function_class, "NSSelectorName": plistlib.UID(10 ** 6),
                    "NSOperand": plistlib.UID(rng.choice([0, 2**31, 2**40])), "NSArguments": selector})
    else:  # an argument array that refers to itself
        array_class = add({"$classname": "NSArray", "$classes": ["NSArray"]})
        array = plistlib.UID(len(objects))
        objects.append({"$class": array_class, "NS.objects": [array, array]})
        root = add({"$class": function_class, "NSSelectorName": selector, "NSOperand": leaf,
                    "NSArguments": array, "NSExpressionType": 4})
    archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root}, "$objects": objects}
    return plistlib.dumps(archive, fmt=plistlib.FMT_BINARY)


def xml_model(rng):
    depth = rng.choice(DEPTHS)
    shape = rng.randrange(3)
    head = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<model type="com.apple.IDECoreDataModeler.DataModel">\n'
    if shape == 0:
        body = "<entity name=\"E\">" * depth + "</entity>" * depth
    elif shape == 1:
        body = "".join(f'<entity name="E{i}"><attribute name="a" attributeType="String"/></entity>\n'
                       for i in range(min(depth, 20000)))
    else:
        body = '<entity name="E"><attribute name="' + "a" * depth * 10 + '" attributeType="Integer 64"/></entity>'
    return head + body + "\n</model>\n"


EXTREME_NUMBERS = ["9223372036854775807", "-9223372036854775808", "9223372036854775808", "2147483648", "-1", "0",
                   "1e300", "99999999999999999999999", "1000000000"]


def extreme_plan(rng, folder, commands):
    """A plan whose options and batch sizes are extreme numbers."""
    shutil.copytree(REPO / "Plans" / "flight-log", folder / "plan", dirs_exist_ok=True)
    plan = folder / "plan" / "plan.yaml"
    text = plan.read_text()
    values = [rng.choice(EXTREME_NUMBERS) for _ in range(3)]
    text = text.replace("versions:", f"options:\n  stepCost: {values[0]}\n  maxSkip: {values[1]}\nversions:", 1)
    text = text.replace("size: 500", f"size: {values[2]}")
    plan.write_text(text)
    commands += [["plan", "plan/plan.yaml"], ["lint", "plan/plan.yaml"], ["graph", "plan/plan.yaml"]]
    return f"plan with stepCost {values[0]}, maxSkip {values[1]}, batch size {values[2]}"


def generate(rng, folder, commands):
    """Writes one generated input into `folder`, appends its commands; returns a description."""
    shape = rng.randrange(9)
    if shape == 7:
        return extreme_plan(rng, folder, commands)
    if shape == 8:
        # Out-of-range counts only: a valid huge count (10^9) is slow work, not a hang.
        rows = rng.choice(["9223372036854775807", "-9223372036854775808", "9223372036854775808", "2147483648",
                           "-1", "0", "1e300", "99999999999999999999999", "1000000001"])
        model = REPO / "Plans" / "garage" / "models" / "v1.yaml"
        commands += [["store", "create", str(model), "--store", "s.sqlite"],
                     ["store", "seed", "s.sqlite", f"--rows={rows}", f"--seed={rng.choice(EXTREME_NUMBERS)}"]]
        return f"seeding {rows} rows"
    if shape in (0, 1):
        plan = REPO / "Plans" / "school-classes"
        shutil.copytree(plan, folder / "plan", dirs_exist_ok=True)
        text = expression(rng)
        quoted = "'" + text.replace("'", "''") + "'"
        mapping = folder / "plan" / "v2-to-v3.mapping.yaml"
        mapping.write_text(mapping.read_text().replace('"$source.clazz.name"', quoted))
        commands += [["mapping", "plan/v2-to-v3.mapping.yaml", "--plan", "plan/plan.yaml"],
                     ["plan", "plan/plan.yaml"]]
        return f"mapping expression of {len(text)} characters: {text[:40]}…"
    if shape == 2:
        (folder / "model.yaml").write_text(yaml_nested(rng))
        commands += [["model", "hashes", "model.yaml"]]
        return "nested YAML model"
    if shape == 3:
        (folder / "model.json").write_text(json_nested(rng))
        commands += [["model", "hashes", "model.json"]]
        return "nested JSON model"
    if shape == 4:
        (folder / "plan.yaml").write_text(yaml_nested(rng).replace("entities", "versions"))
        commands += [["plan", "plan.yaml"], ["lint", "plan.yaml"]]
        return "nested YAML plan"
    if shape == 5:
        model = folder / "Gen.xcdatamodel"
        model.mkdir()
        (model / "contents").write_text(xml_model(rng))
        commands += [["model", "hashes", model.name]]
        return "generated Xcode model XML"
    mom = folder / "Gen.mom"
    mom.write_bytes(archived_expression(rng))
    commands += [["model", "hashes", mom.name]]
    return "generated keyed archive as a .mom"
