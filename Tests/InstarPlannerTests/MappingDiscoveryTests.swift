import Foundation
import InstarPlanner
import Testing
import InstarTestSupport

/// A plan-less run looks for Xcode mapping models in the folders around its models: folders only, in
/// path order, at most four levels down, never inside a model folder, and not through links.
@Suite struct MappingDiscoveryTests {
    @Test func mappingModelsAreFoundInPathOrderWhereAnAppKeepsThem() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let manager = FileManager.default
        func folder(_ path: String) throws {
            try manager.createDirectory(at: root.appendingPathComponent(path), withIntermediateDirectories: true)
        }
        try folder("App/Mappings/V2toV3.xcmappingmodel")
        try folder("App/Mappings/V1toV2.xcmappingmodel")
        try folder("App/Model.xcdatamodeld/Inside.xcmappingmodel")
        try folder("App/Model.momd/Compiled.xcmappingmodel")
        try folder("a/b/c/d/Deep.xcmappingmodel")  // level 4: found
        try folder("a/b/c/d/e/TooDeep.xcmappingmodel")  // level 5: not looked at
        try folder(".hidden/Hidden.xcmappingmodel")
        try folder("Elsewhere/Linked.xcmappingmodel")
        try manager.createSymbolicLink(
            at: root.appendingPathComponent("App/Link"), withDestinationURL: root.appendingPathComponent("Elsewhere"))
        try Data().write(to: root.appendingPathComponent("App/NotAFolder.xcmappingmodel"))

        let found = PlanMappings.discover(near: root.appendingPathComponent("App")).map(\.lastPathComponent)
        #expect(found == ["V1toV2.xcmappingmodel", "V2toV3.xcmappingmodel"])
        let everywhere = PlanMappings.discover(near: root).map { $0.path.dropFirst(root.path.count + 1) }
        #expect(everywhere == [
            "App/Mappings/V1toV2.xcmappingmodel", "App/Mappings/V2toV3.xcmappingmodel",
            "Elsewhere/Linked.xcmappingmodel", "a/b/c/d/Deep.xcmappingmodel",
        ])
    }
}
