// zlib's C API, for inflating the raw-DEFLATE model cache of Core Data and SwiftData stores
// (Z_MODELCACHE.Z_CONTENT). zlib ships with every Apple SDK (libz) and with Debian's zlib1g-dev.
#include <zlib.h>
