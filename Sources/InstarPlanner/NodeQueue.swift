/// The priority queue of the chain search: nodes by (cost, steps, index), smallest first.
///
/// The search used to scan every node for the next one, which made a search over N versions O(N²) and a
/// plan of thousands of versions take minutes; the order is the same (ties to fewer steps, then to the
/// lower index), so the chains are too. Entries are never updated in place: a node pushed again with a
/// lower key leaves its old entry behind, and the caller skips entries that no longer match.
struct NodeQueue {
    typealias Entry = (cost: Int, steps: Int, node: Int)
    private var heap: [Entry] = []

    var isEmpty: Bool { heap.isEmpty }

    private static func less(_ a: Entry, _ b: Entry) -> Bool { (a.cost, a.steps, a.node) < (b.cost, b.steps, b.node) }

    mutating func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> Entry? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let (left, right) = (2 * parent + 1, 2 * parent + 2)
                var smallest = parent
                if left < heap.count, Self.less(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count, Self.less(heap[right], heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return top
    }
}
