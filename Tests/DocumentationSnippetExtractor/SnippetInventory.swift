import Foundation

/// The plugin's plan: how many Swift snippets each document had when SwiftPM planned the build.
struct SnippetInventory {
    /// Each document (relative to the package root) with its planned snippet count.
    let documents: [(path: String, count: Int)]

    /// Reads an inventory file: one `COUNT PATH` line per document.
    /// - Throws: ``SnippetError`` for a line that is not `COUNT PATH`, or the read error.
    init(contentsOf file: URL) throws {
        var documents: [(String, Int)] = []
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            guard let space = line.firstIndex(of: " "), let count = Int(line[..<space]) else {
                throw SnippetError("\(file.path): '\(line)' is not 'COUNT PATH'")
            }
            documents.append((String(line[line.index(after: space)...]), count))
        }
        self.documents = documents
    }

    /// A document's path as part of a Swift identifier and file name: every character that is not a letter
    /// or a digit becomes `_` (`README.md` → `README_md`).
    static func stem(of document: String) -> String {
        String(document.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
