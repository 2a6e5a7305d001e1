import Foundation
import PackagePlugin

/// Compiles every ```` ```swift ```` block of the documentation: `README.md` (and any other top-level
/// Markdown file), the guides under `Docs/`, `Examples/README.md`, `Benchmarks/README.md`, the DocC articles and
/// the `///` comments under `Sources/` and `Plugins/`.
///
/// It plans one run of `documentation-snippet-extractor`, which writes one Swift file per block; the
/// target the plugin is applied to (`DocumentationSnippets`) compiles them, so `swift build` fails on a
/// snippet that does not compile, and the error names the document and line (the generated code carries
/// `#sourceLocation` directives). Nothing is registered by hand: every block is compiled.
///
/// SwiftPM asks a plugin for its commands only when it plans a build (after a change to the manifest or
/// to a target's files, or after a failed build), not on every build. The command reads the documents
/// again on every change, so edited snippets are always compiled as they are now; when a document gained
/// or lost a block since the plan, the extractor fails and says so, and the next build plans again.
@main
struct DocumentationSnippetsPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let root = context.package.directoryURL
        let work = context.pluginWorkDirectoryURL
        var inventory: [String] = []
        var inputs: [URL] = []
        var outputs: [URL] = []
        for document in try Self.documents(in: root) {
            let source = root.appending(path: document)
            inputs.append(source)
            let count = Self.swiftFenceCount(in: try String(contentsOf: source, encoding: .utf8))
            inventory.append("\(count) \(document)")
            let stem = String(document.map { $0.isLetter || $0.isNumber ? $0 : "_" })
            outputs += (0..<count).map { work.appending(path: "Snippets/\(stem)_\($0 + 1).swift") }
        }
        // The plan, for the extractor to check the documents against.
        let inventoryFile = work.appending(path: "snippet-inventory.txt")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        try Data((inventory.joined(separator: "\n") + "\n").utf8).write(to: inventoryFile)
        // Fragments are compiled with every module the snippet target depends on imported.
        let fragmentImports = Self.moduleNames(of: target).joined(separator: ",")
        return [
            .buildCommand(
                displayName: "Extracting \(outputs.count) Swift snippets from the documentation",
                executable: try context.tool(named: "documentation-snippet-extractor").url,
                arguments: [
                    root.path(percentEncoded: false), inventoryFile.path(percentEncoded: false),
                    work.appending(path: "Snippets").path(percentEncoded: false), fragmentImports,
                ],
                inputFiles: inputs + [inventoryFile],
                outputFiles: outputs
            )
        ]
    }

    /// The documents searched, relative to the package root: top-level Markdown files, Markdown and Swift files
    /// under `Sources/` and `Plugins/`, Markdown files under `Docs/`, and the guides of `Examples/` and `Benchmarks/`.
    static func documents(in root: URL) throws -> [String] {
        let files = FileManager.default
        var documents = try files.contentsOfDirectory(atPath: root.path(percentEncoded: false))
            .filter { $0.hasSuffix(".md") }
        for folder in ["Sources", "Plugins", "Docs"] {
            let base = root.appending(path: folder)
            guard let walker = files.enumerator(atPath: base.path(percentEncoded: false)) else { continue }
            for case let path as String in walker where path.hasSuffix(".md") || (folder != "Docs" && path.hasSuffix(".swift")) {
                documents.append("\(folder)/\(path)")
            }
        }
        for guide in ["Examples/README.md", "Benchmarks/README.md"] where files.fileExists(atPath: root.appending(path: guide).path(percentEncoded: false)) {
            documents.append(guide)
        }
        return documents.sorted()
    }

    /// How many lines open a Swift code block (```` ```swift ````, also inside a `///` comment). The extractor
    /// recognises the same lines (`DocumentSnippet.isOpeningFence`).
    static func swiftFenceCount(in text: String) -> Int {
        text.split(separator: "\n", omittingEmptySubsequences: false).count { line in
            var content = line.drop { $0 == " " || $0 == "\t" }
            if content.hasPrefix("///") { content = content.dropFirst(3).drop { $0 == " " } }
            return content.trimmingCharacters(in: .whitespaces) == "```swift"
        }
    }

    /// The modules a target depends on directly (products contribute their targets).
    static func moduleNames(of target: any Target) -> [String] {
        var names: [String] = []
        for dependency in target.dependencies {
            switch dependency {
            case .target(let module): names.append(module.name)
            case .product(let product): names += product.targets.map(\.name)
            @unknown default: break
            }
        }
        return names
    }
}
