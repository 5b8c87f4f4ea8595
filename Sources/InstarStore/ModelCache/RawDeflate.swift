import CZlib
import Foundation
import InstarModelIO

/// Raw DEFLATE (RFC 1951, no zlib or gzip header), the compression of a store's cached model.
///
/// Core Data and SwiftData compress `Z_MODELCACHE.Z_CONTENT` with zlib at window bits −15 (Apple's
/// `COMPRESSION_ZLIB` is exactly that). Apple's `Compression` framework exists on Apple platforms only;
/// zlib itself is everywhere, so it is used directly through the `CZlib` system module.
package enum RawDeflate {
    /// The most a cache may inflate to: what a model archive may hold (``ArchiveLimits/bytes``, 16 MiB,
    /// 526× the largest real cache, 31,881 bytes inflated). Inflating stops as soon as it is passed, so a
    /// stream that would inflate a thousandfold costs at most this much (plus one 64 KiB chunk).
    package static let maximumInflatedSize = ArchiveLimits.bytes

    /// Why bytes did not inflate.
    package enum Failure: Error, Sendable, Hashable {
        /// zlib rejected the stream (its message, e.g. "invalid block type").
        case invalid(String)
        /// The bytes ended before the DEFLATE stream did.
        case truncated
        /// The stream inflates past the limit: `inflated` is how many bytes it had given when inflating
        /// stopped (more than `limit`).
        case tooLarge(inflated: Int, limit: Int)
    }

    /// Inflates a complete raw-DEFLATE stream, refusing it once it has given more than `limit` bytes.
    package static func inflate(_ input: Data, limit: Int = maximumInflatedSize) throws(Failure) -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .invalid("zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        var input = [UInt8](input)
        let inputCount = input.count
        let status: Int32 = input.withUnsafeMutableBufferPointer { source in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(inputCount)
            while true {
                let code: Int32 = chunk.withUnsafeMutableBufferPointer { target in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                if code == Z_STREAM_END { return code }
                if output.count > limit { return Z_MEM_ERROR }
                // No progress possible: input exhausted (Z_BUF_ERROR) or an error code.
                if code != Z_OK { return code }
                if stream.avail_in == 0 && stream.avail_out != 0 { return Z_BUF_ERROR }
            }
        }
        switch status {
        case Z_STREAM_END: return output
        case Z_BUF_ERROR: throw .truncated
        case Z_MEM_ERROR: throw .tooLarge(inflated: output.count, limit: limit)
        default:
            let message = stream.msg.map { String(cString: $0) } ?? "zlib error \(status)"
            throw .invalid(message)
        }
    }

    /// Compresses `input` as one raw-DEFLATE stream: how a test (or a tool) writes a cache Core Data
    /// can read.
    package static func deflate(_ input: Data, level: Int32 = Z_DEFAULT_COMPRESSION) -> Data {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return Data() }
        defer { deflateEnd(&stream) }
        var source = [UInt8](input)
        let bound = Int(deflateBound(&stream, uLong(source.count)))
        var target = [UInt8](repeating: 0, count: bound)
        let written: Int = source.withUnsafeMutableBufferPointer { from in
            target.withUnsafeMutableBufferPointer { to in
                stream.next_in = from.baseAddress
                stream.avail_in = uInt(from.count)
                stream.next_out = to.baseAddress
                stream.avail_out = uInt(to.count)
                // The output buffer is deflateBound's size, so one Z_FINISH call completes the stream.
                guard CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END else { return 0 }
                return to.count - Int(stream.avail_out)
            }
        }
        return Data(target[0..<written])
    }
}
