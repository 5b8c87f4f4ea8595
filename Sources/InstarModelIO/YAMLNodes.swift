import Foundation
@_spi(Layouts) import InstarModel
import Yams

/// Reading YAML (and JSON, which is YAML) with positions, for model and plan files.
///
/// Decoding straight into `Codable` types would lose line numbers and stop at the first mistake.
/// Instead files are composed into Yams nodes, and readers walk them with these helpers, collecting
/// every problem with `file:line:column`.
package struct YAMLSource {
    package let file: String
    package let root: Node

    /// Parses `text`; a syntax error becomes a ``ModelProblem`` with the parser's line and column.
    package static func parse(_ text: String, file: String) throws(ModelError) -> YAMLSource {
        if let excess = YAMLNesting.excess(text) {
            throw ModelError(YAMLNesting.problem(file: file, excess))
        }
        do {
            // Tags are not resolved (every scalar stays a string): readers interpret values by key, and
            // Yams' default resolution runs several regular expressions per scalar, which dominated
            // the time to load hundreds of model versions.
            guard let node = try Yams.compose(yaml: text, .basic) else {
                throw ModelError(ModelProblem(.syntax, "the file is empty", location: SourceLocation(file: file)))
            }
            return YAMLSource(file: file, root: node)
        } catch let error as ModelError {
            throw error
        } catch let error as YamlError {
            throw ModelError(Self.problem(from: error, file: file))
        } catch {
            throw ModelError(ModelProblem(.syntax, "\(error)", location: SourceLocation(file: file)))
        }
    }

    /// Reads a file from disk and parses it.
    package static func load(path: String) throws(ModelError) -> YAMLSource {
        let text: String
        do {
            text = try RegularFile.readText(path)
        } catch {
            throw ModelError(
                ModelProblem(
                    .unreadable, "cannot read the file: \(error.localizedDescription)",
                    location: SourceLocation(file: path), hint: "check that the path exists and is readable"))
        }
        return try parse(text, file: path)
    }

    static func problem(from error: YamlError, file: String) -> ModelProblem {
        switch error {
        case .scanner(let context, let problem, let mark, _),
            .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let detail = context.map { "\(problem) \($0.text)" } ?? problem
            return ModelProblem(
                .syntax, "invalid YAML/JSON: \(detail)",
                location: SourceLocation(file: file, line: mark.line, column: mark.column))
        case .duplicatedKeysInMapping(let duplicates, let context):
            return ModelProblem(
                .syntax, "duplicate key \(duplicates.map { "'\($0)'" }.joined(separator: ", "))",
                location: SourceLocation(file: file, line: context.mark.line, column: context.mark.column),
                hint: "each key may appear once in a mapping")
        default:
            return ModelProblem(.syntax, "invalid YAML/JSON: \(error)", location: SourceLocation(file: file))
        }
    }

    package func location(of node: Node) -> SourceLocation {
        SourceLocation(file: file, line: node.mark?.line, column: node.mark?.column)
    }
}

/// Collects problems while walking a YAML tree.
package struct YAMLWalker {
    package let source: YAMLSource
    package private(set) var problems: [ModelProblem] = []

    package init(source: YAMLSource) {
        self.source = source
    }

    package mutating func report(
        _ kind: ModelProblem.Kind, _ message: String, at node: Node, entity: String? = nil, property: String? = nil,
        hint: String? = nil, key: String? = nil, value: String? = nil
    ) {
        var problem = ModelProblem(
            kind, message, location: source.location(of: node), entity: entity, property: property, hint: hint)
        problem.key = key
        problem.value = value
        problems.append(problem)
    }

    /// The key/value pairs of a mapping node, or a reported problem and an empty list.
    package mutating func pairs(_ node: Node, what: String, entity: String? = nil) -> [(key: String, keyNode: Node, value: Node)] {
        guard let mapping = node.mapping else {
            report(.invalidValue, "\(what) must be a mapping (key: value pairs)", at: node, entity: entity)
            return []
        }
        var result: [(key: String, keyNode: Node, value: Node)] = []
        for (key, value) in mapping {
            guard let name = key.scalar?.string else {
                report(.invalidValue, "keys in \(what) must be plain names", at: key, entity: entity)
                continue
            }
            result.append((name, key, value))
        }
        return result
    }

    /// Reports keys that are not in `allowed`, suggesting the closest allowed key.
    package mutating func checkKeys(
        _ pairs: [(key: String, keyNode: Node, value: Node)], allowed: [String], what: String,
        entity: String? = nil, property: String? = nil
    ) {
        for pair in pairs where !allowed.contains(pair.key) {
            let closest = Spelling.closest(to: pair.key, among: allowed)
            let hint = closest.map { Spelling.didYouMean($0) + " " } ?? ""
            report(
                .unknownKey, "unknown key '\(pair.key)' in \(what)", at: pair.keyNode, entity: entity,
                property: property, hint: hint + "allowed keys: \(allowed.joined(separator: ", "))")
            problems[problems.count - 1].suggestion = closest
        }
    }

    package mutating func string(_ node: Node, what: String, entity: String? = nil, property: String? = nil) -> String? {
        guard let scalar = node.scalar else {
            report(.invalidValue, "\(what) must be a single value", at: node, entity: entity, property: property)
            return nil
        }
        return scalar.string
    }

    package mutating func bool(_ node: Node, what: String, entity: String? = nil, property: String? = nil) -> Bool? {
        guard let text = node.scalar?.string, let value = DefaultValue.parseBoolean(text) else {
            report(
                .invalidValue, "\(what) must be true or false", at: node, entity: entity, property: property)
            return nil
        }
        return value
    }

    package mutating func int(_ node: Node, what: String, entity: String? = nil, property: String? = nil) -> Int? {
        guard let text = node.scalar?.string, let value = Int(text) else {
            report(.invalidValue, "\(what) must be a whole number", at: node, entity: entity, property: property)
            return nil
        }
        return value
    }

    package mutating func stringList(_ node: Node, what: String, entity: String? = nil) -> [String] {
        if let scalar = node.scalar { return [scalar.string] }
        guard let sequence = node.sequence else {
            report(.invalidValue, "\(what) must be a list of names", at: node, entity: entity)
            return []
        }
        return sequence.compactMap { string($0, what: "an item of \(what)", entity: entity) }
    }
}

