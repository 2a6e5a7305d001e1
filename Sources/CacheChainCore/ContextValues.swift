/// A typed key for a value carried by an ``InterceptorContext`` (never persisted).
///
/// Modelled on swift-distributed-tracing's `InstrumentationContextKey`:
/// ```swift
/// enum RequestIDKey: ContextValueKey { typealias Value = String }
/// var values = ContextValues()
/// values[RequestIDKey.self] = "abc"   // or, in an interceptor, `context.values[…]` on its copy of the context
/// let response = try await client.send(PipelineRequest(head: request), values: values)
/// ```
public protocol ContextValueKey: Sendable {
    /// The value's type.
    associatedtype Value: Sendable
}

/// Typed values an interceptor hands to the interceptors inside it.
///
/// Unlike ``CacheUserInfo`` these values live only for one request and need not be `Codable`.
public struct ContextValues: Sendable {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    /// Creates an empty set of values.
    public init() {}

    /// Reads or writes the value for a key; `nil` removes it.
    /// - Parameter key: The key type.
    public subscript<Key: ContextValueKey>(key: Key.Type) -> Key.Value? {
        get { storage[ObjectIdentifier(key)] as? Key.Value }
        set { storage[ObjectIdentifier(key)] = newValue }
    }

    /// The number of values held.
    public var count: Int { storage.count }
}
