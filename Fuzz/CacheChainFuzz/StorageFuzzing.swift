import CacheChainDiskStorage
import CacheChainStorage

/// The index-row target's input: a flags byte, the metadata length (two bytes), the metadata, the body.
enum StorageFuzzing {
    static func indexRow(_ bytes: [UInt8]) -> Bool {
        var input = FuzzBytes(bytes)
        let flags = input.byte()
        let metaLength = input.u16()
        let rest = input.rest
        let meta = Array(rest.prefix(metaLength))
        let body = Array(rest.dropFirst(metaLength))
        let lengthSkew = Int(flags >> 1 & 3) - 1  // -1, 0, 1, 2: a recorded body length that may not match
        guard let read = DiskFuzzing.readIndexRow(meta: meta, body: body, bodyLength: body.count + lengthSkew, checksumMatches: flags & 1 == 0)
        else { return false }
        precondition(read.decoded == read.remembered, "the decoded-metadata memo changed an entry")
        return true
    }

    /// An input for ``indexRow(_:)`` holding a valid row.
    static func seed(_ meta: [UInt8], body: [UInt8]) -> [UInt8] {
        [2] + [UInt8(meta.count & 0xFF), UInt8(meta.count >> 8 & 0xFF)] + meta + body
    }
}
