import Foundation
import Synchronization

/// What ``printError(_:)`` lets through to stderr: everything (the default), only `Error:` lines (`get -sS`), or
/// nothing (`get -s`, as curl's `--silent`). What the user asked to see (`-v`, `--trace`) is written with
/// ``printDiagnostic(_:)``, which no filter holds back.
enum StandardErrorFilter: Int {
    /// Warnings, notes and errors.
    case everything
    /// Only the lines that start with `Error:` (`-s -S`).
    case errorsOnly
    /// Nothing (`-s`).
    case nothing

    private static let current = Atomic<Int>(StandardErrorFilter.everything.rawValue)

    /// The filter in force for this process.
    static var active: Self {
        get { Self(rawValue: current.load(ordering: .relaxed)) ?? .everything }
        set { current.store(newValue.rawValue, ordering: .relaxed) }
    }

    /// Whether a line passes.
    func passes(_ line: String) -> Bool {
        switch self {
        case .everything: true
        case .errorsOnly: line.hasPrefix("Error:")
        case .nothing: false
        }
    }
}

/// Writes a line to stderr (stdout carries command output only), unless ``StandardErrorFilter/active`` holds it
/// back.
func printError(_ line: String) {
    guard StandardErrorFilter.active.passes(line) else { return }
    printDiagnostic(line)
}

/// Writes a line to stderr whatever the filter: output the user asked for (`-v`, `--trace`).
func printDiagnostic(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
