import Foundation

/// How a snippet becomes compilable Swift.
///
/// - A snippet that imports `CacheChain` (or the memory-only `CacheChainClient`) is a **complete program**: it
///   is compiled with its own imports only (a missing import is an error), inside a function of its own.
/// - Any other snippet is a **fragment** of a larger program: it is compiled with every module the
///   `DocumentationSnippets` target depends on (plus Foundation and Testing) imported, inside a method of
///   `SnippetContext`, whose properties stand for what the surrounding prose assumes (`client`,
///   `request`, …).
/// - A snippet with a test (`@Test`, `@Suite`) or an `extension` at its top level is compiled at file
///   scope instead of inside a function.
///
/// Every value a snippet declares at its top level is read once after it (`_ = name`), so a snippet that
/// only shows how to create something compiles without an unused-value warning; every other warning is an
/// error (the target is built with `-warnings-as-errors`).
extension DocumentSnippet {
    func swiftSource(name: String, fragmentImports: [String]) -> String {
        let ownImports = code.enumerated().filter { Self.isImport($0.element) }
        let isComplete = ownImports.contains { ["CacheChain", "CacheChainClient"].contains(Self.importedModule($0.element)) }
        let isFileScope = code.contains { line in ["@Test", "@Suite", "extension "].contains { line.hasPrefix($0) } }
        let body = code.map { Self.isImport($0) ? "" : $0 }

        var source = ["// Generated from \(document), line \(fenceLine), by documentation-snippet-extractor: edit \(document), not this file."]
        if !isComplete {
            source += (fragmentImports + ["Foundation", "Testing"]).map { "import \($0)" }
            // URLSession, URLRequest and URLCache live in FoundationNetworking on Linux.
            source += ["#if canImport(FoundationNetworking)", "import FoundationNetworking", "#endif"]
        }
        for (offset, line) in ownImports {
            source += [location(offset), line, "#sourceLocation()"]
        }
        if isFileScope {
            source += [location(0)] + body + ["#sourceLocation()"]
        } else {
            let reads = declaredNames.map { "        _ = \($0)" }
            let function = ["\(isComplete ? "private func" : "func") snippet_\(name)() async throws {", location(0)]
                + body + ["#sourceLocation()"] + reads + ["}"]
            source += isComplete ? function : ["extension SnippetContext {"] + function + ["}"]
        }
        return source.joined(separator: "\n") + "\n"
    }

    /// A directive that makes the next line report as the document's line of `code[offset]`.
    private func location(_ offset: Int) -> String {
        "#sourceLocation(file: \"\(document)\", line: \(fenceLine + 1 + offset))"
    }

    /// The names of the constants and variables the snippet declares at its top level, tuple patterns
    /// (`let (data, response) = …`) included.
    private var declaredNames: [String] {
        code.flatMap { line -> [String] in
            guard line.hasPrefix("let ") || line.hasPrefix("var ") else { return [] }
            let rest = line.dropFirst(4)
            let isName: (Character) -> Bool = { $0.isLetter || $0.isNumber || $0 == "_" }
            guard rest.hasPrefix("("), let close = rest.firstIndex(of: ")") else {
                let name = rest.prefix(while: isName)
                return name.isEmpty ? [] : [String(name)]
            }
            return rest[rest.index(after: rest.startIndex)..<close].split(separator: ",").compactMap { part in
                let name = part.drop { $0 == " " }.prefix(while: isName)
                return name.isEmpty || name == "_" ? nil : String(name)
            }
        }
    }

    /// Whether the snippet is a complete program: it imports `CacheChain` or `CacheChainClient`.
    var isCompleteProgram: Bool {
        code.contains { Self.isImport($0) && ["CacheChain", "CacheChainClient"].contains(Self.importedModule($0)) }
    }

    /// A complete program as a reader pastes it into the `main.swift` of an executable: the block's lines as they
    /// are, top-level code, each reporting the document's line.
    var mainSource: String {
        (["// Generated from \(document), line \(fenceLine), by documentation-snippet-extractor: edit \(document), not this file.",
          location(0)] + code + ["#sourceLocation()"]).joined(separator: "\n") + "\n"
    }

    private static func isImport(_ line: String) -> Bool {
        importedModule(line) != nil
    }

    /// The module an `import` line at the snippet's top level names (`public import X`, `@testable import X`).
    private static func importedModule(_ line: String) -> String? {
        let words = line.split(separator: " ")
        guard line.first?.isWhitespace == false, let position = words.firstIndex(of: "import"), position + 1 < words.count,
            words[..<position].allSatisfy({ ["public", "internal", "package", "@testable"].contains($0) })
        else { return nil }
        return String(words[position + 1])
    }
}
