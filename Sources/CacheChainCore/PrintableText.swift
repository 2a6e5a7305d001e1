/// Text read from a file, made safe to print in an error message: a damaged file may hold control bytes, which
/// a terminal would act on instead of showing.
package enum PrintableText {
    /// The bytes as text with everything outside printable ASCII escaped (`\x0E`, `\\`), at most `limit` bytes
    /// of them (then `…`).
    /// - Parameters:
    ///   - bytes: The bytes, e.g. a file's contents.
    ///   - limit: The most bytes shown.
    /// - Returns: The printable text, e.g. `5\x0E`.
    package static func escaped(_ bytes: some Collection<UInt8>, limit: Int = 40) -> String {
        let hex = Array("0123456789ABCDEF")
        var text = ""
        for byte in bytes.prefix(limit) {
            switch byte {
            case UInt8(ascii: "\\"): text += "\\\\"
            case 0x20...0x7E: text.append(Character(Unicode.Scalar(byte)))
            default: text += "\\x" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 15)])
            }
        }
        return bytes.count > limit ? text + "…" : text
    }

    /// Whether every byte is printable ASCII other than a space (`!` to `~`): what an identifier written by
    /// this package holds, and a damaged one usually does not.
    /// - Parameter bytes: The bytes.
    /// - Returns: Whether they are all visible ASCII.
    package static func isVisibleASCII(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
