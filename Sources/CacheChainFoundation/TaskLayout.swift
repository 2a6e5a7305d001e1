import CacheChainCore
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a task class keeps the properties ``TaskSurroundings`` reads: for each, the superclass level (0 for the
/// task's own class) and the child's index in that level's reflection. Found once per class by listing its children.
struct TaskLayout: Sendable {
    /// A stored property's place in a task's reflection.
    struct Position: Sendable, Hashable {
        /// How many `superclassMirror` steps up from the task's own class.
        let level: Int
        /// The child's index at that level.
        let index: Int
    }

    var session: Position?
    var workQueue: Position?
    var knownBody: Position?

    /// Whether every property was found (otherwise readers list the children).
    var isComplete: Bool { session != nil && workQueue != nil && knownBody != nil }

    /// The layout of a task's class, found on its first task and remembered.
    /// - Parameter task: A task.
    /// - Returns: Its class's layout.
    static func of(_ task: URLSessionTask) -> TaskLayout {
        let type = ObjectIdentifier(Swift.type(of: task))
        if let known = known.withLock({ $0[type] }) { return known }
        var layout = TaskLayout()
        var mirror: Mirror? = Mirror(reflecting: task)
        var level = 0
        while let current = mirror {
            for (index, child) in current.children.enumerated() {
                let position = Position(level: level, index: index)
                switch child.label {
                case "session": layout.session = layout.session ?? position
                case "workQueue": layout.workQueue = layout.workQueue ?? position
                case "knownBody": layout.knownBody = layout.knownBody ?? position
                default: break
                }
            }
            mirror = current.superclassMirror
            level += 1
        }
        known.withLock { $0[type] = layout }
        return layout
    }

    /// The layouts found so far, by task class (a handful: data, upload, download and stream tasks).
    private static let known = LockedValue<[ObjectIdentifier: TaskLayout]>([:])
}

/// A task's reflection and its superclasses', each made when first needed.
struct MirrorChain {
    private var levels: [Mirror]

    init(of task: URLSessionTask) {
        levels = [Mirror(reflecting: task)]
    }

    /// The value of the child at a position, when its label is the expected one.
    /// - Parameters:
    ///   - position: Where the child was found on the class's first task.
    ///   - label: Its expected label.
    /// - Returns: The child's value, or nil when the position holds something else.
    mutating func child(at position: TaskLayout.Position, labelled label: String) -> Any? {
        while levels.count <= position.level {
            guard let next = levels[levels.count - 1].superclassMirror else { return nil }
            levels.append(next)
        }
        let children = levels[position.level].children
        guard position.index < children.count else { return nil }
        let child = children[children.index(children.startIndex, offsetBy: position.index)]
        return child.label == label ? child.value : nil
    }
}
