import ArgumentParser
import Foundation
@_spi(Layouts) import Instar

/// Output formats shared by the reporting commands.
enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}

/// `--format text|json`, one option shared by every reporting command (so its name, values and help
/// cannot drift apart between commands).
struct FormatOption: ParsableArguments {
    @Option(help: "Output format: text or json.")
    var format: OutputFormat = .text
}

/// Exit codes that scripts can rely on (sysexits-style, documented in `instar --help`).
enum InstarExit {
    static let failure = ExitCode(1)
    /// Another migration holds the store.
    static let locked = ExitCode(2)
    /// Stopped by the time budget at a safe point: run again to continue (sysexits' EX_TEMPFAIL).
    static let paused = ExitCode(75)
    static let invalidInput = ExitCode(65)
    static let unreadable = ExitCode(66)
}

/// Loads a model for a command, turning problems into a readable message and the right exit code.
func loadModel(_ reference: String) throws -> Model {
    do {
        let model = try ModelLoader.load(reference)
        reportWarnings(of: [model])
        return model
    } catch {
        printError(error.description)
        let unreadable = error.problems.allSatisfy { $0.kind == .unreadable }
        throw unreadable ? InstarExit.unreadable : InstarExit.invalidInput
    }
}

/// Like ``loadModel(_:)``, but an `.xcdatamodeld` bundle named without `#Version` stands for every
/// version it holds (candidates for a store's version), not only the current one.
func loadModels(_ reference: String) throws -> [Model] {
    let bundleSuffixes = [".xcdatamodeld", ".xcdatamodeld/", ".momd", ".momd/"]
    guard bundleSuffixes.contains(where: { reference.hasSuffix($0) }) else {
        return [try loadModel(reference)]
    }
    do {
        let versions = try ModelBundle.read(xcdatamodeld: URL(fileURLWithPath: reference)).versions
        reportWarnings(of: versions)
        return versions
    } catch {
        printError(error.description)
        let unreadable = error.problems.allSatisfy { $0.kind == .unreadable }
        throw unreadable ? InstarExit.unreadable : InstarExit.invalidInput
    }
}

/// Prints what validation let through as warnings, once per problem: a bundle's versions often
/// share the same one, which is named with the first version that has it and a count.
func reportWarnings(of models: [Model]) {
    var order: [String] = []
    var seen: [String: (problem: ModelProblem, count: Int)] = [:]
    for model in models {
        for warning in model.warnings {
            let key = [warning.entity ?? "", warning.property ?? "", warning.message].joined(separator: "\u{1F}")
            if let known = seen[key] {
                seen[key] = (known.problem, known.count + 1)
            } else {
                seen[key] = (warning, 1)
                order.append(key)
            }
        }
    }
    for key in order {
        let (problem, count) = seen[key]!
        printError(problem.description + (count > 1 ? "\n  (the same in \(count - 1) other version(s))" : ""))
    }
}

/// The layout a `--layout` option names (nil when none is given), resolved by the one registry; an
/// unknown name is a usage error that lists the layouts (``UnknownLayoutError``).
func storeLayout(named name: String?) throws -> (any StoreLayout)? {
    guard let name else { return nil }
    guard let layout = LayoutRegistry.named(name) else {
        printError(UnknownLayoutError(name: name, known: LayoutRegistry.names).description)
        throw ExitCode.validationFailure
    }
    return layout
}

/// Writes to standard output (Swift 6: `print` to stdout is fine, but we want explicit newlines).
func printOut(_ text: String) {
    Console.current.writeOut(text.hasSuffix("\n") ? text : text + "\n")
}

func printError(_ text: String) {
    Console.current.writeError("instar: " + text + (text.hasSuffix("\n") ? "" : "\n"))
}

/// Opens a store for a command, or prints why not and exits with a code scripts can trust.
func openStore(_ path: String, readOnly: Bool) throws -> SQLiteStore {
    do {
        return try SQLiteStore.open(at: path, readOnly: readOnly)
    } catch {
        throw fail(error)
    }
}

/// Prints a store error and returns the exit code for it.
/// - Parameter store: the command's store, when the error may concern another file (see ``ErrorHints``).
func fail(_ error: StoreError, store: String? = nil) -> ExitCode {
    printError(ErrorHints.text(error, store: store))
    switch error.kind {
    case .notFound, .notARegularFile: return InstarExit.unreadable
    case .notADatabase, .unknownLayout: return InstarExit.invalidInput
    case .locked: return InstarExit.locked  // as for another migration's lease: try again later
    default: return InstarExit.failure
    }
}

/// Loads a plan file, printing every problem with its location.
func loadPlan(_ path: String) throws -> Plan {
    do {
        let plan = try PlanFileReader.read(path: path)
        // The planner cannot see the layout registry: a misspelt `layout:` is refused here, at its key.
        if let unknown = plan.unknownLayout {
            printError(unknown.description)
            throw InstarExit.invalidInput
        }
        return plan
    } catch let error as PlanError {
        printError(error.description)
        let unreadable = error.problems.allSatisfy { $0.kind == .unreadable }
        throw unreadable ? InstarExit.unreadable : InstarExit.invalidInput
    }
}

func isTerminal(_ handle: FileHandle) -> Bool { isatty(handle.fileDescriptor) != 0 }

/// Writes a command's output file, or prints why not and exits with status 65 (nothing written).
///
/// Never over one of the command's `inputs` (the same device and inode, whatever the path says), never
/// over or through a symbolic link, a FIFO, a device or a directory, and over an existing regular file
/// only with `force`. The text goes to a new file beside `output` (created exclusively, links not
/// followed) that is then linked into place, or renamed over the old file with `force`: a reader never
/// sees half a file, and nothing Instar did not create is written through.
func writeOutputFile(_ text: String, to output: String, inputs: [String], force: Bool) throws {
    let kind = try checkOutputTarget(output, inputs: inputs, force: force)
    let url = URL(fileURLWithPath: output)
    let temporary = url.deletingLastPathComponent()
        .appendingPathComponent(".\(url.lastPathComponent).instar-\(UUID().uuidString.prefix(8))").path
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
        printError("\(output): cannot write (\(String(cString: strerror(errno)))); nothing was written")
        throw InstarExit.failure
    }
    let bytes = Array(text.utf8)
    var written = 0
    var failure: Int32 = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            failure = errno
            break
        }
        written += count
    }
    if failure == 0, fsync(descriptor) != 0 { failure = errno }
    close(descriptor)
    defer { unlink(temporary) }
    guard failure == 0 else {
        printError("\(output): cannot write (\(String(cString: strerror(failure)))); nothing was written")
        throw InstarExit.failure
    }
    // Without --force, link() fails if anything (even a dangling link) appeared at the path meanwhile.
    let placed = kind == .regular ? rename(temporary, output) : link(temporary, output)
    guard placed == 0 else {
        let reason = errno == EEXIST ? "something appeared at the path while writing" : String(cString: strerror(errno))
        printError("\(output): cannot write (\(reason)); nothing was written")
        throw InstarExit.failure
    }
}

/// The checks of ``writeOutputFile(_:to:inputs:force:)``, which a command also runs before it reads
/// anything: what is at `output` now (missing, or a regular file it may replace).
@discardableResult
func checkOutputTarget(_ output: String, inputs: [String], force: Bool) throws -> FileKind {
    func refuse(_ message: String) -> ExitCode {
        printError("\(output): \(message); nothing was written")
        return InstarExit.invalidInput
    }
    if FileKind.isSymbolicLink(output) {
        throw refuse("a symbolic link: instar does not write through a link it did not create")
    }
    let kind = FileKind.of(output)
    switch kind {
    case .missing:
        return kind
    case .regular:
        if let identity = FileKind.identity(output),
            let input = inputs.first(where: { FileKind.identity($0) == identity })
        {
            throw refuse("this is \(input), which the command reads: writing here would replace it")
        }
        guard force else { throw refuse("a file already exists here; choose another path, or pass --force to replace it") }
        return kind
    default:
        throw refuse("\(kind.noun), not a regular file")
    }
}

extension InstarExit {
    // `instar check`'s verdicts (ReleaseVerdict), each its own status so that CI can tell them apart.
    /// The migration will fail on a given store's rows (or on every store: no chain).
    static let willFail = ExitCode(3)
    /// A step loses values, or changes a meaning, that the intent file does not declare.
    static let undeclaredChange = ExitCode(4)
    /// A store's version cannot be told, or a step's app code cannot run here: no verdict.
    static let cannotDecide = ExitCode(5)
}
