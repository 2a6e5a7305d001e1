import Foundation

/// The documents the `DocumentationSnippetsPlugin` reads, relative to the package root (the same rules as its
/// `documents(in:)`): top-level Markdown files, Markdown and Swift files under `Sources/` and `Plugins/`, Markdown
/// files under `Docs/`, and the guides of `Examples/` and `Benchmarks/`.
func documentationFiles(in root: URL) throws -> [String] {
    let files = FileManager.default
    var documents = try files.contentsOfDirectory(atPath: root.path(percentEncoded: false)).filter { $0.hasSuffix(".md") }
    for folder in ["Sources", "Plugins", "Docs"] {
        guard let walker = files.enumerator(atPath: root.appending(path: folder).path(percentEncoded: false)) else { continue }
        for case let path as String in walker where path.hasSuffix(".md") || (folder != "Docs" && path.hasSuffix(".swift")) {
            documents.append("\(folder)/\(path)")
        }
    }
    for guide in ["Examples/README.md", "Benchmarks/README.md"] where files.fileExists(atPath: root.appending(path: guide).path(percentEncoded: false)) {
        documents.append(guide)
    }
    return documents.sorted()
}

/// Writes each complete program of the documentation as `<stem>_<N>/main.swift` under `output`, and the list of
/// them to `output/programs.txt`.
/// - Throws: ``SnippetError`` for a block that never closes, or a file system error.
func writePrograms(root: URL, output: URL) throws {
    let files = FileManager.default
    try? files.removeItem(at: output)
    try files.createDirectory(at: output, withIntermediateDirectories: true)
    var listing: [String] = []
    for document in try documentationFiles(in: root) {
        let text = try String(contentsOf: root.appending(path: document), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (index, snippet) in try DocumentSnippet.all(in: lines, document: document).enumerated() where snippet.isCompleteProgram {
            let name = "\(SnippetInventory.stem(of: document))_\(index + 1)"
            let directory = output.appending(path: name)
            try files.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(snippet.mainSource.utf8).write(to: directory.appending(path: "main.swift"))
            listing.append("\(name) \(document):\(snippet.fenceLine)")
        }
    }
    try Data((listing.joined(separator: "\n") + "\n").utf8).write(to: output.appending(path: "programs.txt"))
}
