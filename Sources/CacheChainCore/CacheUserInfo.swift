package import Foundation

/// A typed key for a value kept in a ``CacheUserInfo``.
///
/// Declare a key as a caseless enum and read or write its value through the typed subscript:
/// ```swift
/// enum CachedDateKey: CacheUserInfoKey {
///     typealias Value = Date
///     static let name = "cached-date"
/// }
/// var info = CacheUserInfo()
/// info[CachedDateKey.self] = Date()
/// ```
/// Values are persisted with the entry on every backend, so they must be `Codable`.
public protocol CacheUserInfoKey: Sendable {
    /// The value stored under this key.
    associatedtype Value: Codable & Sendable
    /// The stable name the value is persisted under; it must not change between releases.
    static var name: String { get }
}

/// The `userInfo` of a cached response, with typed keys and `Codable` values that every storage backend
/// persists: the typed counterpart of `CachedURLResponse.userInfo`.
///
/// Values are kept in their encoded (JSON) form, which makes the container `Hashable`, `Codable` and cheap
/// to copy. A value that cannot be encoded is not stored (setting it removes the key's value).
public struct CacheUserInfo: Sendable, Hashable, Codable {
    private var encoded: [String: Data] = [:]

    /// Creates an empty container.
    public init() {}

    /// Creates a container from encoded values, for backends that persist them in their own format.
    /// - Parameter encodedValues: JSON data by key name.
    package init(encodedValues: [String: Data]) {
        encoded = encodedValues
    }

    /// The encoded (JSON) values by key name, for backends that persist them in their own format.
    package var encodedValues: [String: Data] { encoded }

    /// Reads or writes the value for a key; `nil` removes it.
    /// - Parameter key: The key type.
    public subscript<Key: CacheUserInfoKey>(key: Key.Type) -> Key.Value? {
        get {
            guard let data = encoded[Key.name] else { return nil }
            return try? JSONDecoder().decode(Key.Value.self, from: data)
        }
        set { encoded[Key.name] = newValue.flatMap { try? JSONEncoder().encode($0) } }
    }

    /// The names of the keys that hold a value, sorted.
    public var names: [String] { encoded.keys.sorted() }

    /// Whether the container holds no value.
    public var isEmpty: Bool { encoded.isEmpty }

    /// The raw JSON text stored under a name, for tools that list entries without knowing the key types.
    /// - Parameter name: A key's ``CacheUserInfoKey/name``.
    /// - Returns: The JSON text, or `nil` when absent.
    public func jsonText(forName name: String) -> String? {
        encoded[name].flatMap { String(data: $0, encoding: .utf8) }
    }

    /// Copies every value of `other` into this container, replacing values with the same name.
    /// - Parameter other: The values to add.
    public mutating func merge(_ other: CacheUserInfo) {
        encoded.merge(other.encoded) { _, new in new }
    }
}
