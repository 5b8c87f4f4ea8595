import Foundation
import InstarMapping
@_spi(Layouts) import InstarModel

/// Finding a plan's Core Data mapping models and matching each to two of its versions.
///
/// Core Data looks for a mapping model between the store's model and the app's before it infers one,
/// and uses it when it finds one. An app's mapping models sit beside its `.xcdatamodeld` in the project
/// (CareKit keeps them two folders down, apptentive and objc.io beside the bundle), so a bundle's
/// folder is searched; a plan may also list them (`mappings:`). Each is matched by the entity hashes of
/// the versions it was made between; one that matches no pair of the plan's versions is reported with
/// the closest pair, never silently dropped. Instar's own mapping files (`*.mapping.yaml`, `*.mapping.json`)
/// name their two versions instead; a name that is not one of the plan's is an error where it is written.
package enum PlanMappings {
    /// The outcome of matching: the mappings that now fix steps, and those that fit no pair.
    package struct Matched: Sendable {
        package var mappings: [PlannedMapping] = []
        package var unmatched: [MappingMatchError] = []
        package var unreadable: [MappingError] = []
    }

    /// Every `.xcmappingmodel` folder below `folder` (at most `depth` levels down), in path order. Model
    /// folders are not entered: a mapping model is never kept inside one, and a compiled `.momd` beside
    /// an app's store holds a file per version, which a launch would otherwise list for nothing.
    package static func discover(near folder: URL, depth: Int = 4) -> [URL] {
        var found: [URL] = []
        func walk(_ url: URL, _ level: Int) {
            // Names and `lstat` (a link to a folder is not entered, as before): asking each URL for its
            // resource values cost several times as much on Linux, and a launch walks the folder
            // beside its bundle.
            guard level <= depth, let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
            for name in names.sorted() where !name.hasPrefix(".") {
                let entry = url.appendingPathComponent(name)
                var info = stat()
                guard lstat(entry.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
                if entry.pathExtension == "xcmappingmodel" {
                    found.append(entry)
                } else if !["xcdatamodeld", "xcdatamodel", "momd", "build", ".build"].contains(entry.pathExtension) {
                    walk(entry, level + 1)
                }
            }
        }
        walk(folder, 0)
        return found
    }

    /// Reads and matches `files` against `versions`. A mapping model whose pair runs backwards (a
    /// downgrade mapping) is kept out: migrations run forward.
    package static func match(_ files: [URL], versions: [Model]) -> Matched {
        var result = Matched()
        for file in files {
            if MappingFileReader.isMappingFile(file) {
                // Instar's mapping file names its versions; they are checked, not searched for.
                do {
                    let found = try MappingFileReader.read(path: file.path).resolved(among: versions, from: .plan)
                    result.mappings.append(
                        PlannedMapping(from: found.source.name, to: found.destination.name, model: found.model))
                } catch {
                    result.unreadable.append(error)
                }
                continue
            }
            let model: MappingModel
            do {
                model = try XcodeMappingReader.read(url: file)
            } catch {
                result.unreadable.append(error)
                continue
            }
            do {
                let match = try MappingVersionMatcher.match(model, versions: versions)
                guard let from = versions.firstIndex(where: { $0.name == match.source.name }),
                    let to = versions.firstIndex(where: { $0.name == match.destination.name }), from < to
                else { continue }
                result.mappings.append(
                    PlannedMapping(
                        from: match.source.name, to: match.destination.name,
                        model: model.resolved(source: match.source, destination: match.destination)))
            } catch {
                result.unmatched.append(error)
            }
        }
        return result
    }
}
