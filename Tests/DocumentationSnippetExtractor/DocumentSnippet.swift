import Foundation

/// One ```` ```swift ```` block of a document: its code lines, without the block's indentation or the
/// `///` of a documentation comment, and where they start.
struct DocumentSnippet {
    /// The document, relative to the package root.
    let document: String
    /// The 1-based line of the opening fence.
    let fenceLine: Int
    /// The code, one element per line.
    let code: [String]

    /// Reads the block that opens at `fenceLine`.
    /// - Throws: ``SnippetError`` when that line is no ```` ```swift ```` fence or the block never closes.
    init(document: String, lines: [String], fenceLine: Int) throws {
        guard (1...lines.count).contains(fenceLine), let fence = lines[fenceLine - 1].range(of: "```swift") else {
            throw SnippetError("line \(fenceLine) does not open a ```swift block")
        }
        // What precedes the fence (indentation, `/// `) precedes every line of the block.
        let prefix = String(lines[fenceLine - 1][..<fence.lowerBound])
        let barePrefix = prefix.trimmingTrailingSpaces()
        var code: [String] = []
        for line in lines[fenceLine...] {
            let content: String
            if line.hasPrefix(prefix) {
                content = String(line.dropFirst(prefix.count))
            } else if line.trimmingTrailingSpaces() == barePrefix || line.allSatisfy(\.isWhitespace) {
                content = ""
            } else {
                throw SnippetError("line \(fenceLine + code.count + 1) leaves the block opened at line \(fenceLine) before its closing ```")
            }
            if content.trimmingTrailingSpaces() == "```" {
                self.document = document
                self.fenceLine = fenceLine
                self.code = code
                return
            }
            code.append(content)
        }
        throw SnippetError("the ```swift block opened at line \(fenceLine) is never closed")
    }
}

extension DocumentSnippet {
    /// Whether a line opens a Swift code block: ```` ```swift ````, indented or inside a `///` comment. The
    /// plugin counts the same lines (`DocumentationSnippetsPlugin.swiftFenceCount`).
    static func isOpeningFence(_ line: String) -> Bool {
        var content = line.drop { $0 == " " || $0 == "\t" }
        if content.hasPrefix("///") { content = content.dropFirst(3).drop { $0 == " " } }
        return content.trimmingCharacters(in: .whitespaces) == "```swift"
    }

    /// Every Swift block of a document, in order.
    /// - Throws: ``SnippetError`` for a block that never closes.
    static func all(in lines: [String], document: String) throws -> [DocumentSnippet] {
        try lines.indices.filter { isOpeningFence(lines[$0]) }.map {
            try DocumentSnippet(document: document, lines: lines, fenceLine: $0 + 1)
        }
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        String(self[..<(lastIndex { !$0.isWhitespace }.map(index(after:)) ?? startIndex)])
    }
}
