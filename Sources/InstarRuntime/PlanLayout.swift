@_spi(Layouts) import InstarModel
import InstarPlanner
@_spi(Layouts) import InstarStore

extension Plan {
    /// The layout the plan names, from the one registry (``LayoutRegistry/resolve(_:path:location:)``):
    /// built in or registered, else ``StoreError/Kind/unknownLayout`` pointing at the plan's `layout` key.
    /// `path` is what the error concerns (the store being migrated, or the plan file).
    package func storeLayout(path: String? = nil) throws(StoreError) -> any StoreLayout {
        try LayoutRegistry.resolve(layout, path: path ?? file, location: locations["layout"])
    }

    /// Why the plan's layout name is refused, or nil when it names a known layout.
    package var unknownLayout: UnknownLayoutError? {
        LayoutRegistry.isKnown(layout)
            ? nil : UnknownLayoutError(name: layout, known: LayoutRegistry.names, location: locations["layout"])
    }
}

extension UnknownLayoutError {
    /// The error as a plan file's problem at its `layout` key, for the readers and `instar lint` that
    /// report a plan's problems together.
    package var problem: ModelProblem {
        ModelProblem(
            .invalidValue, "unknown layout '\(name)'", location: location,
            hint: (suggestion.map { "did you mean '\($0)'? " } ?? "") + "layouts: \(known.joined(separator: ", "))")
    }
}
