/// Where a cached response may be kept: the counterpart of `URLCache.StoragePolicy`.
public enum StoragePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Memory and disk (and any other persistent tier).
    case allowed
    /// Memory only: persistent tiers must refuse the entry.
    case allowedInMemoryOnly
    /// Not stored anywhere.
    case notAllowed
}
