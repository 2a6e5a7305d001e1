extension PipelineBody: Hashable {
    /// Two bodies are equal when they hold the same bytes; a file-backed body that cannot be read equals
    /// nothing but itself.
    /// - Parameters:
    ///   - lhs: A body.
    ///   - rhs: Another body.
    /// - Returns: Whether the bytes are the same.
    public static func == (lhs: PipelineBody, rhs: PipelineBody) -> Bool {
        guard lhs.count == rhs.count else { return false }
        switch (lhs.representation, rhs.representation) {
        case (.bytes(let left), .bytes(let right)):
            return left == right
        case (.file(let left), .file(let right)) where left === right:
            return true
        default:
            guard let left = try? lhs.collect(), let right = try? rhs.collect() else { return false }
            return left == right
        }
    }

    /// Hashes the byte count (consistent with ``==(_:_:)`` without reading files).
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
    }
}

extension PipelineBody: Codable {
    /// Decodes an in-memory body from an array of bytes.
    /// - Parameter decoder: The decoder.
    /// - Throws: A decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(try container.decode([UInt8].self))
    }

    /// Encodes the bytes (reading a file-backed body).
    /// - Parameter encoder: The encoder.
    /// - Throws: ``CacheChainError`` when a file-backed body cannot be read, or an encoding error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(try collect())
    }
}
