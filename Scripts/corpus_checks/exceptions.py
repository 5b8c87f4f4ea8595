"""The documented exceptions: stores that match no version of their bundle, or disagree with it, each
with its verified reason."""

# Stores whose hashes are known NOT to match any committed model version, with the reason.
# Key: "<corpus folder of the repo>/<store path from stores.json>", e.g.
#   "larromba__EasyLife/EasyLifeTests/EasyLife.sqlite": "created by an uncommitted model revision ..."
# A drifting store listed here counts as a pass (it is still printed in the drift list);
# a drifting store that is not listed counts as a failure.
KNOWN_DRIFT = {
    # Verified: deleting the Project.todoItem / TodoItem.project relationship pair from the committed
    # "EasyLife 1.3.0" XML reproduces both entity hashes of these stores exactly, so they were written by
    # an uncommitted revision of that version.
    "larromba__EasyLife/EasyLifeTests/EasyLife 1.3.0.sqlite":
        "written by an uncommitted revision of EasyLife 1.3.0 without the Project.todoItem/TodoItem.project pair",
    "larromba__EasyLife/EasyLifeTests/EasyLife.sqlite":
        "written by an uncommitted revision of EasyLife 1.3.0 without the Project.todoItem/TodoItem.project pair",
    # The corpus MANIFEST: "2 stores of a code-defined model": the SampleModel2 model is built in Swift
    # code (not in the corpus), so no XML version can match.
    "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V1.sqlite":
        "model defined in Swift code, no XML version exists",
    "alemar11__CoreDataPlus/Tests/Resources/SampleModel2/Fixtures/SampleModel2_V2.sqlite":
        "model defined in Swift code, no XML version exists",
}

# The version a known-drift store was written by (a revision of it), for the Core Data layout checks:
# the version pairs it would take part in are listed as skipped. Stores of a model that is not in the
# corpus (SampleModel2, defined in Swift code) belong to no version.
KNOWN_DRIFT_VERSION = {
    "larromba__EasyLife/EasyLifeTests/EasyLife 1.3.0.sqlite": "EasyLife 1.3.0",
    "larromba__EasyLife/EasyLifeTests/EasyLife.sqlite": "EasyLife 1.3.0",
}

# Stores that disagree with their own metadata, with the reason: the Core Data layout checks do not
# create their version (create check skipped) and expect `instar migrate` to refuse them (schema drift).
KNOWN_BAD_STORES = {
    "apptentive__apptentive-ios/Apptentive/ApptentiveTests/data/v2CorruptDatabase/ATDataModel.sqlite":
        "a deliberately damaged fixture (`v2CorruptDatabase`): its metadata hashes are ATDataModel 3's but its "
        "tables are ATDataModel 2's (no ZATRECORD.ZCUSTOMDATA)",
}

# Stores whose version is not in the corpus, with the verified reason. Each `expect` is checked against
# the store (a pass only when every fact holds; a listed store that matches a version exactly is a failure,
# the list is then stale):
#   closest          (bundle, version) the closest version by equal entity hashes
#   equal/differ/missing/extra   entity names whose store hash equals / differs from the closest version's,
#                    entities only in that version, only in the store
#   nowhere          these store entity hashes occur in no model version of the whole corpus
#   no_model         the repository has no XML model version at all
#   compiled         a compiled VersionInfo.plist whose hashes of the closest version equal the XML's
#   lacks_columns    {table: [columns]} columns the closest version implies that the store does not have
#   framework, identifiers, tables, entity_numbers (Z_ENT -> Z_NAME)   metadata, table and Z_PRIMARYKEY facts
NOT_IN_BUNDLE = {
    "Awful__Awful.app/AwfulData.sqlite": {
        "reason": "a 2012 store (framework 386) whose model version is no longer in the bundle: the only "
                  "version `Model` has a `Favorite` entity the store lacks and a different `AwfulForum`",
        "expect": {"closest": ("Classes/Models/Model.xcdatamodeld", "Model"), "equal": ["AwfulThread", "AwfulUser"],
                   "differ": ["AwfulForum"], "missing": ["Favorite"], "extra": [], "nowhere": ["AwfulForum"],
                   "framework": 386}},
    "Karim-ezzedine__CartKit/Tests/CartKitStorageCoreDataTests/LegacyCoreData/CartStorage_v1.sqlite": {
        "reason": "legacy store whose version is not in the bundle: same three entities as `CartStorage`, all "
                  "three hashes differ (nor does the compiled CartStorage.momd have its version); ZCDCART lacks "
                  "the model's promotionKindsJSON and sessionId",
        "expect": {"closest": ("Sources/CartKitStorageCoreData/Resources/CartStorage.xcdatamodeld", "CartStorage"),
                   "equal": [], "differ": ["CDCart", "CDCartItem", "CDCartItemModifier"], "missing": [],
                   "extra": [], "nowhere": ["CDCart", "CDCartItem", "CDCartItemModifier"],
                   "compiled": "Sources/CartKitStorageCoreData/Resources/CartStorage.momd/VersionInfo.plist",
                   "lacks_columns": {"ZCDCART": ["ZPROMOTIONKINDSJSON", "ZSESSIONID"]}}},
    "Karim-ezzedine__CartKit/Tests/CartKitStorageSwiftDataTests/LegacySwiftData/CartKitSwiftData_v1.sqlite": {
        "reason": "a SwiftData store: its model is Swift `@Model` classes (entities CartModel, CartItemModel, "
                  "CartItemModifierModel, in no .xcdatamodeld), identifier `1.0.0`, persistent-history tables "
                  "and entities CHANGE/TRANSACTION/TRANSACTIONSTRING numbered 16001-16003",
        "expect": {"equal": [], "extra": ["CartItemModel", "CartItemModifierModel", "CartModel"],
                   "nowhere": ["CartItemModel", "CartItemModifierModel", "CartModel"], "identifiers": ["1.0.0"],
                   "tables": ["ATRANSACTION", "ACHANGE", "ATRANSACTIONSTRING"],
                   "entity_numbers": {16001: "CHANGE", 16002: "TRANSACTION", 16003: "TRANSACTIONSTRING"}}},
    "magicalpanda__MagicalRecord/Samples/iOS/Resources/RecipeData/Recipes.sqlite": {
        "reason": "Apple's Recipes sample store (framework 241); its model exists only in the old binary format "
                  "(no `contents` XML), so the corpus has no model version of this repository",
        "expect": {"no_model": True, "nowhere": ["Image", "Ingredient", "Recipe", "RecipeType"], "framework": 241}},
}

# Stores written through a MERGED model (entities of several models), of which the store's own repository
# holds only part. `parts` maps each entity to the (repository folder, bundle) one of whose versions must
# have its hash; the union of those versions' identifiers must be the store's NSStoreModelVersionIdentifiers.
MERGED_MODEL = {
    "duckduckgo__iOS/DuckDuckGoTests/AppRatingPrompt_v1/Database.sqlite": {
        "reason": "written through the app's merged model; of its models only AppRatingPrompt.xcdatamodeld is in "
                  "duckduckgo/iOS, the others come from its BrowserServicesKit dependency (HTTPSUpgrade, "
                  "RemoteMessaging), which the corpus also holds",
        "parts": {
            "AppRatingPromptEntity": ("duckduckgo__iOS", "DuckDuckGo/AppRatingPrompt.xcdatamodeld"),
            "HTTPSExcludedDomain": ("duckduckgo__BrowserServicesKit",
                                    "Sources/BrowserServicesKit/SmarterEncryption/Store/HTTPSUpgrade.xcdatamodeld"),
            "HTTPSStoredBloomFilterSpecification": (
                "duckduckgo__BrowserServicesKit",
                "Sources/BrowserServicesKit/SmarterEncryption/Store/HTTPSUpgrade.xcdatamodeld"),
            "RemoteMessageManagedObject": ("duckduckgo__BrowserServicesKit",
                                           "Sources/RemoteMessaging/CoreData/RemoteMessaging.xcdatamodeld"),
            "RemoteMessagingConfigManagedObject": ("duckduckgo__BrowserServicesKit",
                                                   "Sources/RemoteMessaging/CoreData/RemoteMessaging.xcdatamodeld"),
        }},
}

# `instar test` (check coredata-test): drops that a bundle's diff calls a probable rename but that the app
# meant, passed as `--accept-drop`. Key: the bundle's path under the corpus; value: {name: verified reason}.
ACCEPTED_DROPS = {
    "duckduckgo__BrowserServicesKit/Sources/Bookmarks/BookmarksModel.xcdatamodeld": {
        "BookmarkEntity.isFavorite":
            "BookmarksModel 3 removes the flag and adds an unrelated isPendingDeletion Boolean; favourites are "
            "the favoriteFolder relationship, which every version keeps (Z_FOK_FAVORITEFOLDER in the V1-V3 stores)",
    },
}
