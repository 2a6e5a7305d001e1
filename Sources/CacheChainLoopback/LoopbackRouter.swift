#if Loopback
import CacheChainCore

/// The origin's shared, lock-protected state: routes, the request log and the connection count.
///
/// Created before the server binds, so every accepted connection finds it; the event loop's handlers
/// and the test's thread both reach it through the mutex.
final class LoopbackRouter: Sendable {
    enum Entry: Sendable {
        case fixed(LoopbackRoute)
        case dynamic(@Sendable (LoopbackRequest) -> LoopbackRoute)
    }

    struct State {
        var routes: [String: Entry] = [:]
        var requests: [LoopbackRequest] = []
        var connections = 0
    }

    let state = LockedValue(State())

    func set(_ entry: Entry, for path: String) {
        state.withLock { $0.routes[path] = entry }
    }

    func connectionAccepted() {
        state.withLock { $0.connections += 1 }
    }

    /// Logs a request and returns its answer: the exact path's route, else the route for the path
    /// without its query, else a `404`.
    func answer(for request: LoopbackRequest) -> LoopbackRoute {
        let entry = state.withLock { state -> Entry? in
            state.requests.append(request)
            return state.routes[request.path] ?? state.routes[String(request.pathWithoutQuery)]
        }
        switch entry {
        case .fixed(let route): return route.answeringRange(of: request)
        case .dynamic(let handler): return handler(request).answeringRange(of: request)
        case nil:
            return LoopbackRoute(status: 404, headers: [("Content-Type", "text/plain")], body: "no route for \(request.path)")
        }
    }
}
#endif
