/// One entry of a decision trace: a stable reason code and a human-readable detail.
///
/// Every response carries a list of these saying why it was or wasn't served from the cache and why it
/// was or wasn't stored.
public struct CacheReason: Sendable, Hashable, Codable, CustomStringConvertible {
    /// A stable, machine-readable reason code (its raw value is kebab-case, e.g. `no-store`).
    public struct Code: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The code's text, e.g. `vary-star`.
        public var rawValue: String
        /// Creates a code; interceptors may define their own.
        /// - Parameter rawValue: The code's text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }
    }

    /// The reason code.
    public var code: Code
    /// What exactly happened, for people (may be empty).
    public var detail: String

    /// Creates a reason.
    /// - Parameters:
    ///   - code: The reason code.
    ///   - detail: A human-readable detail.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// `code: detail`, or just the code.
    public var description: String { detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)" }
}
