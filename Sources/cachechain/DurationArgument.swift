import ArgumentParser

/// A duration typed on the command line: whole numbers with a unit, `s`, `m`, `h` or `d`, possibly several
/// (`90s`, `15m`, `1h30m`, `7d`); a bare number is seconds.
enum DurationArgument {
    /// Parses a duration.
    /// - Parameter text: The argument, e.g. `1h30m`.
    /// - Returns: The duration.
    /// - Throws: `ValidationError` naming the accepted forms.
    static func parse(_ text: String) throws -> Duration {
        let problem = ValidationError("'\(text)' is not a duration such as 90s, 15m, 1h30m or 7d (a bare number is seconds)")
        if let seconds = Int64(text), seconds >= 0 { return .seconds(seconds) }
        var total: Int64 = 0
        var digits = ""
        for character in text {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            let unit: Int64
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3_600
            case "d": unit = 86_400
            default: throw problem
            }
            guard let amount = Int64(digits) else { throw problem }
            let (product, overflow) = amount.multipliedReportingOverflow(by: unit)
            let (sum, overflow2) = total.addingReportingOverflow(product)
            guard !overflow, !overflow2 else { throw problem }
            total = sum
            digits = ""
        }
        guard digits.isEmpty, !text.isEmpty else { throw problem }
        return .seconds(total)
    }
}
