import Synchronization

/// Which libcurl thread each `https` origin that may speak HTTP/2 keeps to, so its concurrent requests share
/// one HTTP/2 connection however many threads the transport runs (RFC 9113 §9.1: a client should not open
/// more than one HTTP/2 connection to an origin). Each thread has its own connection pool, so a transfer
/// sent to another thread would open another connection.
///
/// - An origin not seen yet is pinned to the thread its first request goes to, so a first burst of requests
///   waits there for the first connection (`CURLOPT_PIPEWAIT`) instead of opening one per thread.
/// - An origin that answered over HTTP/2 stays pinned.
/// - An origin that answered over HTTP/1.x is released: its concurrent requests spread over the threads
///   again, one connection each, as plain `http` origins always do.
///
/// At most ``capacity`` origins are remembered; past that the table starts afresh, which costs at most one
/// more connection to an origin, never a wrong answer.
final class OriginAffinity: Sendable {
    /// Where an origin's transfers go.
    enum Placement: Equatable {
        /// Always to this thread (the index of a loop).
        case pinned(Int)
        /// To the thread with the fewest transfers in flight: the origin answered over HTTP/1.x.
        case spread
    }

    /// The most origins remembered.
    let capacity: Int
    private let placements = Mutex<[String: Placement]>([:])

    /// Creates an empty table.
    /// - Parameter capacity: The most origins remembered (at least 1).
    init(capacity: Int = 1024) {
        self.capacity = max(1, capacity)
    }

    /// The thread for a transfer to `origin`: its pinned thread, `leastLoaded()` when it spreads, or, for an
    /// origin not seen yet, `leastLoaded()` pinned from now on.
    /// - Parameters:
    ///   - origin: The origin, e.g. `https://example.com`.
    ///   - leastLoaded: The index of the thread with the fewest transfers in flight.
    /// - Returns: The index of the thread.
    func loop(for origin: String, leastLoaded: () -> Int) -> Int {
        placements.withLock { placements in
            switch placements[origin] {
            case .pinned(let index):
                return index
            case .spread:
                return leastLoaded()
            case nil:
                if placements.count >= capacity { placements.removeAll(keepingCapacity: true) }
                let index = leastLoaded()
                placements[origin] = .pinned(index)
                return index
            }
        }
    }

    /// Learns from a finished transfer which version `origin` speaks: over HTTP/1.x it is released and
    /// spreads from now on; over HTTP/2 (or with no version known) it keeps its placement.
    /// - Parameters:
    ///   - version: The version the response arrived over.
    ///   - origin: The origin.
    func record(_ version: CurlTransport.NegotiatedHTTPVersion?, for origin: String) {
        guard version == .http1_0 || version == .http1_1 else { return }
        placements.withLock { $0[origin] = .spread }
    }

    /// Where `origin`'s transfers go now; `nil` for an origin not seen yet (for tests).
    func placement(of origin: String) -> Placement? {
        placements.withLock { $0[origin] }
    }
}
