/// An intrusive doubly linked list over an array of slots: O(1) insert at the head, unlink and move to
/// the head, with freed slots reused. The building block of ``MemoryStorage``'s true LRU order.
struct LRUList<Element> {
    private struct Slot {
        var element: Element?
        var previous: Int
        var next: Int
    }

    private var slots: [Slot] = []
    private var free: [Int] = []
    /// Most recently used slot, or -1.
    private(set) var head = -1
    /// Least recently used slot, or -1.
    private(set) var tail = -1
    /// Live elements.
    private(set) var count = 0

    /// Inserts an element as the most recently used and returns its slot.
    /// - Complexity: O(1) amortized.
    mutating func insertAtHead(_ element: Element) -> Int {
        let index: Int
        if let reused = free.popLast() {
            index = reused
            slots[index] = Slot(element: element, previous: -1, next: head)
        } else {
            index = slots.count
            slots.append(Slot(element: element, previous: -1, next: head))
        }
        if head >= 0 { slots[head].previous = index }
        head = index
        if tail < 0 { tail = index }
        count += 1
        return index
    }

    /// Removes the element in a slot and returns it.
    /// - Complexity: O(1).
    mutating func remove(_ index: Int) -> Element? {
        guard index >= 0, index < slots.count, let element = slots[index].element else { return nil }
        unlink(index)
        slots[index].element = nil
        free.append(index)
        count -= 1
        return element
    }

    /// Marks a slot as the most recently used.
    /// - Complexity: O(1).
    mutating func moveToHead(_ index: Int) {
        guard index != head, index >= 0, index < slots.count, slots[index].element != nil else { return }
        unlink(index)
        slots[index].previous = -1
        slots[index].next = head
        if head >= 0 { slots[head].previous = index }
        head = index
        if tail < 0 { tail = index }
    }

    /// The element in a slot.
    /// - Complexity: O(1).
    subscript(index: Int) -> Element? {
        guard index >= 0, index < slots.count else { return nil }
        return slots[index].element
    }

    /// Replaces the element in a live slot without changing its position.
    /// - Complexity: O(1).
    mutating func replace(_ index: Int, with element: Element) {
        guard index >= 0, index < slots.count, slots[index].element != nil else { return }
        slots[index].element = element
    }

    mutating func removeAll() {
        slots.removeAll()
        free.removeAll()
        head = -1
        tail = -1
        count = 0
    }

    private mutating func unlink(_ index: Int) {
        let previous = slots[index].previous
        let next = slots[index].next
        if previous >= 0 { slots[previous].next = next } else { head = next }
        if next >= 0 { slots[next].previous = previous } else { tail = previous }
    }
}
