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
    ///
    /// A detail that describes a ``FreshnessReport`` is written out when it is first read, not when the
    /// reason is made: every cache hit carries one, and most traces are never read.
    public var detail: String {
        get {
            switch storedDetail {
            case .text(let text): text
            case .freshness(let report): report.description
            }
        }
        set { storedDetail = .text(newValue) }
    }

    /// The detail as given: text, or a report still to be described.
    private var storedDetail: StoredDetail

    /// Creates a reason.
    /// - Parameters:
    ///   - code: The reason code.
    ///   - detail: A human-readable detail.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.storedDetail = .text(detail)
    }

    /// A reason whose detail is `report.description`, written out only when read.
    init(_ code: Code, describing report: FreshnessReport) {
        self.code = code
        self.storedDetail = .freshness(report)
    }

    /// `code: detail`, or just the code.
    public var description: String {
        let detail = detail
        return detail.isEmpty ? code.rawValue : "\(code.rawValue): \(detail)"
    }

    // MARK: - Equality and coding see the detail's text, however it is held

    /// Whether the codes and the details' texts are equal.
    public static func == (lhs: CacheReason, rhs: CacheReason) -> Bool {
        lhs.code == rhs.code && lhs.detail == rhs.detail
    }

    /// Hashes the code and the detail's text.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(detail)
    }

    private enum CodingKeys: String, CodingKey {
        case code, detail
    }

    /// Decodes `code` and `detail`, as they have always been encoded.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Code.self, forKey: .code)
        storedDetail = .text(try container.decode(String.self, forKey: .detail))
    }

    /// Encodes `code` and the detail's text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
        try container.encode(detail, forKey: .detail)
    }

    /// Where a detail's text comes from.
    private enum StoredDetail: Sendable {
        case text(String)
        case freshness(FreshnessReport)
    }
}
