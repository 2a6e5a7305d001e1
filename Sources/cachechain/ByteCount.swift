import ArgumentParser
import Foundation

/// A size on the command line: bytes, or a number with a `K`, `M`, `G` or `T` suffix (powers of 1024, as curl's
/// `--max-filesize`; `KiB`, `MB`… and lowercase are read the same way), e.g. `--disk-capacity 2G`.
struct ByteCount: ExpressibleByArgument, CustomStringConvertible, Hashable {
    /// The size in bytes.
    let bytes: Int

    /// A size of `bytes` bytes.
    init(_ bytes: Int) {
        self.bytes = bytes
    }

    /// Reads `1073741824`, `1G`, `1.5G`, `512M`, `64KiB`, `2gb`; `nil` for anything else or a negative size.
    init?(argument: String) {
        var text = Substring(argument.trimmingCharacters(in: .whitespaces).uppercased())
        for unit in ["IB", "B"] where text.hasSuffix(unit) && text.count > unit.count {
            text = text.dropLast(unit.count)
            break
        }
        var multiplier = 1.0
        if let last = text.last, let power = Self.units.firstIndex(of: last) {
            multiplier = Double(1 << (10 * (power + 1)))
            text = text.dropLast()
        }
        guard !text.isEmpty, text.allSatisfy({ $0.isNumber || $0 == "." }), let number = Double(text), number >= 0 else {
            return nil
        }
        let bytes = (number * multiplier).rounded()
        guard bytes < Double(Int.max) else { return nil }
        self.bytes = Int(bytes)
    }

    /// The suffixes, in order of power.
    private static let units: [Character] = ["K", "M", "G", "T"]

    /// The shortest exact form: `1G`, `64M`, `1536K`, `1000`.
    var description: String {
        var value = bytes
        var power = 0
        while value != 0, value % 1024 == 0, power < Self.units.count {
            value /= 1024
            power += 1
        }
        return power == 0 ? "\(bytes)" : "\(value)\(Self.units[power - 1])"
    }

    /// Human-readable, for messages and `stats`: `1.0 GiB`, `64.0 MiB`, `512 B`.
    var humanReadable: String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes)
        var power = -1
        while value >= 1024, power < Self.units.count - 1 {
            value /= 1024
            power += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(Self.units[power])iB"
    }

    static var defaultCompletionKind: CompletionKind { .default }

    var defaultValueDescription: String { description }
}
