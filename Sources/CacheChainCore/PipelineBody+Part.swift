extension PipelineBody {
    /// The bytes at `positions`, without loading a file-backed body: a file-backed part reads the same file
    /// region through its own descriptor (what a range served from the cache sends).
    /// - Parameter positions: Positions inside the body (`0..<count`).
    /// - Returns: A body holding those bytes.
    /// - Throws: ``CacheChainError`` with code ``CacheChainError/Code/bodyUnreadable`` when the bytes cannot
    ///   be read.
    package func part(_ positions: Range<Int>) throws(CacheChainError) -> PipelineBody {
        precondition(positions.lowerBound >= 0 && positions.upperBound <= count, "the part lies inside the body")
        switch representation {
        case .file(let file): return PipelineBody(file: try BodyFile(partOf: file, start: positions.lowerBound, length: positions.count))
        case .bytes(let bytes): return PipelineBody(bytes[positions])
        }
    }
}
