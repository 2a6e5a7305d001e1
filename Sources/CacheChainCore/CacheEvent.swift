/// Something the cache did or noticed, for metrics and logs.
///
/// Events never carry bodies, header values or credentials: only the kind, the key and reason codes.
public struct CacheEvent: Sendable, Hashable {
    /// What happened.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A stored response was served without contacting the origin.
        case hit
        /// The origin was contacted because no stored response could be used.
        case miss
        /// The origin confirmed a stored response with 304.
        case revalidated
        /// A stale stored response was served.
        case staleServed
        /// A response was written to storage.
        case stored
        /// A response was not stored (the trace says why).
        case notStored
        /// Entries were removed because an unsafe method changed the resource.
        case invalidated
        /// A storage backend failed; the request went on as a miss.
        case storageError
        /// A backend evicted an entry to make room.
        case evicted
        /// A background revalidation started.
        case backgroundRevalidation
        /// A request joined an equivalent one already in flight and waits for its response
        /// (`CachePolicyInterceptor`'s coalescing).
        case coalesced
    }

    /// What happened.
    public var kind: Kind
    /// The key concerned, when there is one.
    public var key: CacheKey?
    /// Reason codes explaining the event.
    public var reasons: [String]
    /// Bytes involved (stored or evicted), when known.
    public var bytes: Int?

    /// Creates an event.
    /// - Parameters:
    ///   - kind: What happened.
    ///   - key: The key concerned.
    ///   - reasons: Reason codes.
    ///   - bytes: Bytes involved.
    public init(_ kind: Kind, key: CacheKey? = nil, reasons: [String] = [], bytes: Int? = nil) {
        self.kind = kind
        self.key = key
        self.reasons = reasons
        self.bytes = bytes
    }
}

/// Where a pipeline sends its ``CacheEvent``s: a closure, so metrics and logging plugins can subscribe.
public struct CacheEventSink: Sendable {
    /// The subscriber; `nil` for ``none``, so that emitting to it does not even build the event.
    private let handler: (@Sendable (CacheEvent) -> Void)?

    /// Creates a sink from a closure; it is called synchronously, so keep it cheap.
    /// - Parameter handler: Receives every event.
    public init(_ handler: @escaping @Sendable (CacheEvent) -> Void) {
        self.handler = handler
    }

    private init(dropping: Void) {
        self.handler = nil
    }

    /// A sink that drops every event (without building them: see ``emit(_:)``).
    public static var none: CacheEventSink { CacheEventSink(dropping: ()) }

    /// Sends an event to the sink.
    ///
    /// The event is an autoclosure: a sink that drops events (``none``, the default) never builds it, so
    /// the reasons a hit would report cost nothing when nobody listens.
    /// - Parameter event: The event.
    public func emit(_ event: @autoclosure () -> CacheEvent) {
        handler?(event())
    }

    /// A sink that forwards each event to this sink and then to `other`.
    /// - Parameter other: The second sink.
    /// - Returns: The combined sink.
    public func combined(with other: CacheEventSink) -> CacheEventSink {
        guard let first = handler else { return other }
        guard let second = other.handler else { return self }
        return CacheEventSink { event in
            first(event)
            second(event)
        }
    }
}
