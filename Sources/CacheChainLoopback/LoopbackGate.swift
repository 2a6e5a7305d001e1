#if Loopback
import CacheChainCore

/// Holds a route's answers back until a test opens it: a slow origin response whose end the test
/// controls, with no timer involved.
///
/// ```swift
/// let gate = LoopbackGate()
/// var slow = LoopbackRoute(body: "finally")
/// slow.gate = gate
/// origin.route("/slow", slow)
/// // … requests for /slow wait; everything else is answered …
/// gate.open()   // every held answer goes out (after the route's delay, if any); later ones at once
/// ```
public final class LoopbackGate: Sendable {
    private struct State {
        var isOpen = false
        var waiting: [@Sendable () -> Void] = []
    }

    private let state = LockedValue(State())

    /// Creates a closed gate.
    public init() {}

    /// Whether the gate has been opened.
    public var isOpen: Bool { state.withLock { $0.isOpen } }

    /// The number of answers held back right now.
    public var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Opens the gate: releases every held answer and lets later ones through at once. Safe to call twice.
    public func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for release in waiting { release() }
    }

    /// Runs `action` once the gate is open: at once when it already is.
    func whenOpen(_ action: @escaping @Sendable () -> Void) {
        let isOpen = state.withLock { state in
            if !state.isOpen { state.waiting.append(action) }
            return state.isOpen
        }
        if isOpen { action() }
    }
}
#endif
