/// A path glob of ``PolicyOverrideRule/pathGlob`` (`/img/**/*.png`), matched in time linear in the path:
/// `**` matches any bytes, `*` any bytes but `/`, `?` one byte but `/`, any other byte itself.
///
/// The pattern is read as a nondeterministic automaton with one state per token, and the path is run through it
/// once, keeping the set of states reached (Thompson's construction): each byte of the path costs at most three
/// visits of each state (a move, the empty matches of stars, a reset), so a match takes at most
/// 3 × (path length + 1) × (tokens + 1) steps, whatever the number of `**`. (The backtracking matcher it replaces took time polynomial in the path with the number of stars as the
/// exponent: `/**/a/**/b/**/*.png` against a 4 KB path took 36 s of CPU, on every request.)
package struct PathGlob: Sendable {
    enum Token: Sendable, Equatable {
        case byte(UInt8)
        /// `?`
        case one
        /// `*`
        case star
        /// `**`
        case anything
    }

    let tokens: [Token]

    /// Reads a pattern.
    /// - Parameter pattern: The glob's bytes.
    package init(_ pattern: some Sequence<UInt8>) {
        var tokens: [Token] = []
        for byte in pattern {
            switch byte {
            case UInt8(ascii: "*") where tokens.last == .star: tokens[tokens.count - 1] = .anything
            case UInt8(ascii: "*"): tokens.append(.star)
            case UInt8(ascii: "?"): tokens.append(.one)
            default: tokens.append(.byte(byte))
            }
        }
        self.tokens = tokens
    }

    /// Whether the glob matches the whole of `text`.
    /// - Parameter text: A path, without its query.
    /// - Returns: Whether it matches.
    /// - Complexity: O(n × m) for a path of n bytes and a pattern of m tokens.
    package func matches(_ text: some Sequence<UInt8>) -> Bool {
        match(text).matches
    }

    /// Whether the glob matches `text`, and the steps the match took (states visited): what a test bounds
    /// instead of a time.
    /// - Parameter text: A path, without its query.
    /// - Returns: Whether it matches, and the steps.
    package func match(_ text: some Sequence<UInt8>) -> (matches: Bool, steps: Int) {
        let slash = UInt8(ascii: "/")
        let count = tokens.count
        var steps = 0
        // `current[i]`: token i is the next to match; `current[count]`: the whole pattern has matched.
        var current = [Bool](repeating: false, count: count + 1)
        var next = current
        current[0] = true
        steps += closeOverEmptyStars(&current)
        for byte in text {
            var isAlive = false
            for state in 0..<count where current[state] {
                steps += 1
                switch tokens[state] {
                case .byte(let expected) where expected == byte: next[state + 1] = true
                case .one where byte != slash: next[state + 1] = true
                case .star where byte != slash: next[state] = true
                case .anything: next[state] = true
                default: continue
                }
                isAlive = true
            }
            guard isAlive else { return (false, steps) }
            steps += closeOverEmptyStars(&next)
            swap(&current, &next)
            for state in 0...count { next[state] = false }
            steps += count + 1
        }
        return (current[count], steps)
    }

    /// Adds the states reached by letting `*` and `**` match nothing; returns the steps taken.
    private func closeOverEmptyStars(_ states: inout [Bool]) -> Int {
        for state in 0..<tokens.count where states[state] {
            if tokens[state] == .star || tokens[state] == .anything { states[state + 1] = true }
        }
        return tokens.count
    }
}
