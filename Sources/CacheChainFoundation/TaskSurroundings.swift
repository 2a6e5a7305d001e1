import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What FoundationNetworking keeps for a task but does not publish: the session that created it, the serial
/// queue its loading runs on, and the body an upload task was given.
///
/// A `URLProtocol` sees its `request`, its `cachedResponse` and its `task`, and through the task's public API
/// only the delegate, not the session. FoundationNetworking (swift-corelibs-foundation, checked on Swift 6.3)
/// stores the session in `URLSessionTask.session`, the queue in `URLSessionTask.workQueue` and an upload's body
/// in `URLSessionTask.knownBody`, all `internal`. They are read here by reflection (`Mirror`, which lists
/// stored properties whatever their access level); nothing is written. `FoundationNetworkingFactsTests` checks
/// on every run that these properties are still there, so a Foundation release that renames one fails a test
/// instead of quietly changing behaviour.
struct TaskSurroundings {
    /// The session the task belongs to (`nil` once FoundationNetworking has let it go, or if it moved).
    let session: URLSession?
    /// The task's serial work queue, where FoundationNetworking calls `startLoading` and `stopLoading`.
    let workQueue: DispatchQueue?
    /// The body FoundationNetworking holds for the task (an upload task's data, file or stream).
    let knownBody: KnownBody?

    /// A task body as FoundationNetworking keeps it.
    enum KnownBody {
        case data(Data)
        case file(URL)
        case stream(InputStream)
    }

    /// Reads the surroundings of a task.
    ///
    /// Listing a task's children by reflection costs about as much as a whole memory hit many times over (every
    /// stored property is boxed: ~140 µs on a loaded 2-core VM), so the positions of the three properties are found
    /// once per task class (``TaskLayout``) and only those three children are read afterwards; a position whose
    /// label no longer matches falls back to the full listing.
    /// - Parameter task: The task, as given to the protocol.
    init(of task: URLSessionTask) {
        let layout = TaskLayout.of(task)
        var mirrors = MirrorChain(of: task)
        let session = layout.session.flatMap { mirrors.child(at: $0, labelled: "session") }
        let workQueue = layout.workQueue.flatMap { mirrors.child(at: $0, labelled: "workQueue") }
        let knownBody = layout.knownBody.flatMap { mirrors.child(at: $0, labelled: "knownBody") }
        if layout.isComplete, let session, let workQueue, let knownBody {
            self.init(session: session as? URLSession, workQueue: workQueue as? DispatchQueue, knownBody: Self.body(in: knownBody))
        } else {
            self.init(listing: task)
        }
    }

    private init(session: URLSession?, workQueue: DispatchQueue?, knownBody: KnownBody?) {
        self.session = session
        self.workQueue = workQueue
        self.knownBody = knownBody
    }

    /// Reads the surroundings by listing every stored property of the task and its superclasses.
    private init(listing task: URLSessionTask) {
        fullListings.add(1, ordering: .relaxed)
        var session: URLSession?
        var workQueue: DispatchQueue?
        var knownBody: KnownBody?
        var mirror: Mirror? = Mirror(reflecting: task)
        while let current = mirror {
            for child in current.children {
                switch child.label {
                case "session": session = session ?? (child.value as? URLSession)
                case "workQueue": workQueue = workQueue ?? (child.value as? DispatchQueue)
                case "knownBody": knownBody = knownBody ?? Self.body(in: child.value)
                default: break
                }
            }
            mirror = current.superclassMirror
        }
        self.init(session: session, workQueue: workQueue, knownBody: knownBody)
    }

    /// Reads FoundationNetworking's `_Body` enum (`none`, `data(DispatchData)`, `file(URL)`, `stream(InputStream)`),
    /// itself wrapped in an `Optional`.
    private static func body(in value: Any) -> KnownBody? {
        var current = value
        // Unwrap the Optional, then the enum case: each is one labelled child.
        for _ in 0..<2 {
            guard let child = Mirror(reflecting: current).children.first else { return nil }
            switch (child.label, child.value) {
            case ("data", let data as DispatchData): return .data(Data(data))
            case ("data", let data as Data): return .data(data)
            case ("file", let url as URL): return .file(url)
            case ("stream", let stream as InputStream): return .stream(stream)
            default: current = child.value
            }
        }
        return nil
    }
}

/// What tests of structure count in the URLSession bridge.
package enum URLSessionBridgeCounters {
    /// How many times a task's surroundings were read by listing all its children (in this process): only when a
    /// task class's remembered ``TaskLayout`` does not match, never per task.
    package static var fullTaskListings: Int { fullListings.load(ordering: .relaxed) }
}

private let fullListings = Atomic<Int>(0)
