import Foundation
@_spi(Layouts) import InstarModel
@_spi(Layouts) import InstarLayouts

/// What a store says about itself, read without writing (`instar inspect`): which version it is at and
/// how that is known, how far its schema is from that version, its row counts, and the model it keeps of
/// itself (`Z_MODELCACHE`) when it has one.
///
/// One value feeds both renderings: the CLI's text and its JSON (`StoreInspection+Encodable.swift`), so
/// the two cannot say different things.
package struct StoreInspection: Sendable {
    /// Which version, and how it was known. A store described from its cache alone has the cached model as
    /// its version (matched by ``VersionDetection/Method/cache``) when the cache's hashes equal the
    /// metadata's, and no version otherwise.
    package var detection: VersionDetection
    /// Rows of each table (bookkeeping excluded).
    package var rowCounts: [String: Int]
    /// The store's own model, compared with its metadata and with the matched version; nil without one.
    package var cache: CachedModelInspection?
    /// True when no model was given and the store was described from its cache alone.
    package var describedFromCache: Bool

    /// The store is exactly a known version: what `inspect`'s exit status 0 means.
    package var isExactMatch: Bool { detection.isExactMatch }
}

/// The model a store keeps of itself, checked against the store's `NSStoreModelVersionHashes` and,
/// when a bundle's version matched, against that version.
package struct CachedModelInspection: Sendable {
    package let cached: CachedStoreModel
    /// Disagreements between the cache's computed hashes and the store's `NSStoreModelVersionHashes`.
    package let metadataConflicts: [String]
    /// Whether the store records any hashes to compare with.
    package let hasMetadataHashes: Bool
    /// Disagreements with the version a given bundle matched (empty without a bundle or a match).
    package var bundleConflicts: [String] = []

    package init(cached: CachedStoreModel, metadata: StoreMetadata?) {
        self.cached = cached
        let recorded = metadata?.entityHashes ?? [:]
        hasMetadataHashes = !recorded.isEmpty
        metadataConflicts = recorded.isEmpty ? [] : cached.hashConflicts(with: recorded)
    }

    /// The cache agrees with the store's metadata: it may stand for the store's version.
    package var agreesWithMetadata: Bool { hasMetadataHashes && metadataConflicts.isEmpty }
}

extension StoreInspection {
    /// Inspects the store at `path`, read-only.
    ///
    /// - `groups`: candidate versions, one group per model argument (a bundle's versions, or one model).
    ///   Several groups may together be the merged model that wrote the store (`NSManagedObjectModel(byMerging:)`),
    ///   one version of each, which is tried when no version matches alone.
    /// - `layout`: the store's layout; nil lets the store's bookkeeping tell, and a store without any (a
    ///   hand-written schema) is compared in every other layout when the default finds no version.
    ///
    /// With no candidates, a store that keeps no model in its metadata (anything but Instar's layout) is
    /// described from its `Z_MODELCACHE`.
    /// - Throws: ``StoreError`` when the store cannot be read; ``ModelCacheError`` when it must be described
    ///   from its cache and has none (`.noCache`) or an unreadable one.
    package static func of(storeAt path: String, layout: (any StoreLayout)?, candidates groups: [[Model]]) throws
        -> StoreInspection
    {
        let opened = try SQLiteStore.open(at: path, layout: layout, readOnly: true)
        defer { try? opened.close() }
        if groups.isEmpty, (try? opened.metadata())??.storedModel == nil {
            return try describedFromCache(opened)
        }
        return try matched(opened, groups: groups, layoutGiven: layout != nil)
    }

    /// The version among `groups`, with the cache compared to it.
    private static func matched(_ first: SQLiteStore, groups: [[Model]], layoutGiven: Bool) throws(StoreError)
        -> StoreInspection
    {
        let candidates = groups.flatMap { $0 }
        var store = first
        var detection = try store.detectVersion(among: candidates)
        // No layout recognised the store and no version matches it in the default layout: it may be a
        // store without bookkeeping (the sql layout), so its schema is compared in every other layout.
        var reopened: SQLiteStore?
        defer { try? reopened?.close() }
        if !layoutGiven, !detection.isExactMatch, detection.metadataVersionName == nil {
            reopened = try matchInOtherLayouts(first, candidates: candidates, detection: &detection)
            store = reopened ?? first
        }
        if !detection.isExactMatch, groups.count > 1, let merged = try store.detectMergedVersion(groups: groups),
            merged.version != nil
        {
            detection = merged
        }
        let counts = try store.rowCounts()
        var cache = (try? store.cachedModel()).map { CachedModelInspection(cached: $0, metadata: try? store.metadata()) }
        if let version = detection.version, let cached = cache?.cached {
            cache?.bundleConflicts = cached.hashConflicts(
                with: VersionHashes(model: version).entityHashes, recordedBy: "version \(version.name)")
        }
        return StoreInspection(detection: detection, rowCounts: counts, cache: cache, describedFromCache: false)
    }

    /// The store opened in the first other layout in which a candidate matches exactly (with that
    /// detection in `detection`), or nil when none does or the store's bookkeeping names its layout.
    private static func matchInOtherLayouts(
        _ store: SQLiteStore, candidates: [Model], detection: inout VersionDetection
    ) throws(StoreError) -> SQLiteStore? {
        let layouts = LayoutRegistry.all  // in this task, which may have a registry scope of its own
        let recognised: Bool
        do {
            recognised = try store.withDatabase { db in try layouts.contains { try $0.recognizes(db) } }
        } catch {
            throw StoreError.from(error, path: store.path, doing: .readingLayout)
        }
        guard !recognised else { return nil }
        for other in layouts where other.name != store.layout.name {
            guard let candidate = try? SQLiteStore.open(at: store.path, layout: other, readOnly: true) else { continue }
            if let found = try? candidate.detectVersion(among: candidates), found.isExactMatch {
                detection = found
                return candidate
            }
            try? candidate.close()
        }
        return nil
    }

    /// No model given: the store described from the model it keeps of itself, which is its version when
    /// its hashes equal the store's metadata's.
    private static func describedFromCache(_ store: SQLiteStore) throws -> StoreInspection {
        let metadata = try store.metadata()
        let cache = CachedModelInspection(cached: try store.cachedModel(), metadata: metadata)
        let counts = try store.rowCounts()
        let matched = cache.agreesWithMetadata
        let detection = VersionDetection(
            layout: store.layout.name, version: matched ? cache.cached.model : nil, matchedBy: matched ? .cache : nil,
            metadataVersionName: nil, closest: nil, drift: [])
        return StoreInspection(detection: detection, rowCounts: counts, cache: cache, describedFromCache: true)
    }
}
