/// Why a document's snippet could not be extracted (a block that never closes, a bad argument).
struct SnippetError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
