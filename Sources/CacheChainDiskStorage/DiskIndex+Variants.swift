import CacheChainCore

/// The queries that find one variant of a key without reading the others (see ``DiskIndex``'s schema:
/// `variant_id`, `vary` and `vary_specs`).
extension DiskIndex {
    /// The id under which the `variant_id` index finds one variant of a key: the XXH64 (seed 0) of the key,
    /// a line feed and the variant key.
    static func variantID(key: String, variant: String) -> Int64 {
        keyHash("\(key)\n\(variant)")
    }

    /// At most two rows of `key`: all of them when the key has one variant (or none).
    /// - Complexity: O(log n), whatever the number of variants.
    func firstRows(key: String) throws(CacheChainError) -> [Row] {
        let slots = Self.slotRange(forKey: key)
        try firstRowsStatement.reset(.integer(slots.lowerBound), .integer(slots.upperBound), .text(key))
        return try firstRowsStatement.collect { Row($0) }
    }

    /// The row of one variant of `key`, if stored.
    /// - Complexity: O(log n), whatever the number of variants.
    func lookup(key: String, variant: String) throws(CacheChainError) -> Row? {
        try variantStatement.reset(.integer(Self.variantID(key: key, variant: variant)), .text(key), .text(variant))
        return try variantStatement.firstRow { Row($0) }
    }

    /// The distinct non-empty `Vary` name lists of the key's rows.
    /// - Complexity: O(log n + s) for s distinct lists (almost always one).
    func varySpecs(key: String) throws(CacheChainError) -> [String] {
        try varySpecsStatement.reset(.text(key))
        return try varySpecsStatement.collect { $0.text(0) }
    }

    /// The number of variants stored for `key`.
    /// - Complexity: O(log n + v): used by stores only.
    func variantCount(key: String) throws(CacheChainError) -> Int {
        let slots = Self.slotRange(forKey: key)
        try variantCountStatement.reset(.integer(slots.lowerBound), .integer(slots.upperBound), .text(key))
        return try variantCountStatement.firstRow { Int($0.integer(0)) } ?? 0
    }

    /// The `limit` least recently used variants of `key`, oldest first.
    func leastRecentVariants(key: String, limit: Int) throws(CacheChainError) -> [(id: Int64, size: Int, meta: [UInt8])] {
        let slots = Self.slotRange(forKey: key)
        try leastRecentVariantsStatement.reset(
            .integer(slots.lowerBound), .integer(slots.upperBound), .text(key), .integer(Int64(limit))
        )
        return try leastRecentVariantsStatement.collect { (id: $0.integer(0), size: Int($0.integer(1)), meta: $0.blob(2)) }
    }
}
