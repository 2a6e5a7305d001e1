// documentation-snippet-extractor: turns the ```swift blocks of the documentation into Swift files that
// the `DocumentationSnippets` target compiles (run by the `DocumentationSnippetsPlugin` build plugin).
//
// Usage: documentation-snippet-extractor ROOT INVENTORY OUTPUT-DIRECTORY IMPORTS
//   ROOT       the package directory
//   INVENTORY  the plan: one line per document, "COUNT PATH" (PATH relative to ROOT)
//   OUTPUT-DIRECTORY  where "<PATH with every non-alphanumeric character as _>_<N>.swift" goes, N from 1
//   IMPORTS    comma-separated modules that fragments import
//
// Usage: documentation-snippet-extractor --programs ROOT OUTPUT-DIRECTORY
//   writes every complete program (a block that imports CacheChain or CacheChainClient) of the documents the plugin
//   reads to "OUTPUT-DIRECTORY/<stem>_<N>/main.swift", as top-level code, and lists them in
//   "OUTPUT-DIRECTORY/programs.txt" (one "<stem>_<N> DOCUMENT:LINE" line each); scripts/check-snippet-programs.sh
//   compiles each as the main.swift of an executable, as a reader who pastes it would.
import Foundation

if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--programs" {
    do {
        try writePrograms(root: URL(filePath: CommandLine.arguments[2]), output: URL(filePath: CommandLine.arguments[3]))
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: documentation snippets: \(error)\n".utf8))
        exit(1)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 4 else {
    FileHandle.standardError.write(Data("usage: documentation-snippet-extractor ROOT INVENTORY OUTPUT-DIRECTORY IMPORTS\n".utf8))
    exit(64)
}
let root = URL(filePath: arguments[0])
let output = URL(filePath: arguments[2])
let fragmentImports = arguments[3].split(separator: ",").map(String.init)
do {
    let plan = try SnippetInventory(contentsOf: URL(filePath: arguments[1]))
    var changed: [String] = []
    var files: [(URL, String)] = []
    for (document, plannedCount) in plan.documents {
        let text = try String(contentsOf: root.appending(path: document), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let snippets = try DocumentSnippet.all(in: lines, document: document)
        guard snippets.count == plannedCount else {
            changed.append("\(document) has \(snippets.count) Swift snippets, the build was planned with \(plannedCount)")
            continue
        }
        for (index, snippet) in snippets.enumerated() {
            let name = "\(SnippetInventory.stem(of: document))_\(index + 1)"
            files.append((output.appending(path: "\(name).swift"), snippet.swiftSource(name: name, fragmentImports: fragmentImports)))
        }
    }
    guard changed.isEmpty else {
        // SwiftPM asks build plugins for their files only when it plans a build, which a change of the
        // manifest triggers: touching it (its contents unchanged) makes the next build plan again.
        try FileManager.default.setAttributes(
            [.modificationDate: Date()],
            ofItemAtPath: root.appending(path: "Package.swift").path(percentEncoded: false)
        )
        throw SnippetError(changed.joined(separator: "; ") + ". The next build plans them anew: build again.")
    }
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    for (file, source) in files {
        // Unchanged files are left alone, so editing one document recompiles only its snippets.
        if (try? String(contentsOf: file, encoding: .utf8)) != source {
            try Data(source.utf8).write(to: file)
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: documentation snippets: \(error)\n".utf8))
    exit(1)
}
