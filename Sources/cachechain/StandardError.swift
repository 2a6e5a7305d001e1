import Foundation

/// Writes a line to stderr (stdout carries command output only).
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
