/// The flags of an archived `NSPropertyDescription`, decoded the way Core Data decodes them.
///
/// Current compilers pack them in `_P` and also write `NSIsOptional`/`NSIsTransient`/… for the flags that
/// are set; Core Data trusts `_P` when it is non-zero and falls back to the separate keys otherwise
/// (archives from old compilers have no `_P`). Reading them the same way keeps Instar and Core Data in
/// agreement even about a file whose two encodings disagree. `_P`'s upper bits say which optional
/// keys were left out: 0x40 "no user info", 0x80 "no version hash modifier".
struct CompiledPropertyFlags {
    var isOptional = false
    var isReadOnly = false
    var isTransient = false
    var isOrdered = false
    var hasUserInfo = true
    var hasVersionHashModifier = true

    init(_ object: ArchivedObject) throws(KeyedArchiveError) {
        if let packed = try object.integer("_P"), packed != 0 {
            isOptional = packed & 0x2 != 0
            isReadOnly = packed & 0x4 != 0
            isTransient = packed & 0x8 != 0
            isOrdered = packed & 0x400 != 0
            hasUserInfo = packed & 0x40 == 0
            hasVersionHashModifier = packed & 0x80 == 0
        } else {
            isOptional = try object.bool("NSIsOptional")
            isReadOnly = try object.bool("NSIsReadOnly")
            isTransient = try object.bool("NSIsTransient")
            isOrdered = try object.bool("NSIsOrdered")
        }
    }
}

/// `NSFlagsKey` of an archived `NSAttributeDescription`: the storage options that feed the attribute's
/// version hash (0x4 external binary storage, 0x10 preserve value in history on deletion).
struct CompiledAttributeFlags {
    var allowsExternalBinaryDataStorage: Bool
    var preservesValueInHistoryOnDeletion: Bool

    init(_ object: ArchivedObject) throws(KeyedArchiveError) {
        let flags = try object.integer("NSFlagsKey") ?? 0
        allowsExternalBinaryDataStorage = flags & 0x4 != 0
        preservesValueInHistoryOnDeletion = flags & 0x10 != 0
    }
}
