/// A dictionary that forgets its oldest insertion once it holds `capacity` values. O(1) per call.
package struct BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private var values: [Key: Value] = [:]
    private var order: [Key] = []
    private var oldest = 0
    private let capacity: Int

    /// Creates an empty memo.
    /// - Parameter capacity: The most values kept (at least 1).
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    package var count: Int { values.count }

    package func value(for key: Key) -> Value? {
        values[key]
    }

    /// Keeps `value` for `key` (replacing one kept for it), forgetting the oldest insertion when full.
    package mutating func insert(_ value: Value, for key: Key) {
        if values.updateValue(value, forKey: key) != nil { return }
        if order.count < capacity {
            order.append(key)
            return
        }
        values[order[oldest]] = nil
        order[oldest] = key
        oldest = (oldest + 1) % capacity
    }
}
