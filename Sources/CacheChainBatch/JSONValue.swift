import Foundation

/// A JSON value, as the batch protocol reads and writes it.
///
/// Objects keep their members in order, so replies are written with their fields in the order the
/// protocol documents (`id`, `status`, `status_text`, `headers`, …). Integers and other numbers are kept
/// apart, so an `id` of `17` is an integer and `17.5` is not.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in 64 bits.
    case integer(Int64)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in order (lookups take the first member of a name).
    case object([Member])

    /// One member of an object.
    public struct Member: Sendable, Hashable {
        /// The member's name.
        public var name: String
        /// The member's value.
        public var value: JSONValue

        /// Creates a member.
        /// - Parameters:
        ///   - name: The name.
        ///   - value: The value.
        public init(_ name: String, _ value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    /// The value of an object's member, or `nil` when this is not an object or has no such member.
    /// - Parameter name: The member's name.
    /// - Complexity: O(*n*) in the number of members.
    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// Parses one JSON text (a whole line of the protocol).
    /// - Parameter bytes: UTF-8 JSON.
    /// - Returns: The value.
    /// - Throws: `BatchLineError` when the bytes are not valid UTF-8 JSON.
    public static func parse(_ bytes: [UInt8]) throws(BatchLineError) -> JSONValue {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw BatchLineError("the line is not valid UTF-8")
        }
        do {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        } catch let DecodingError.dataCorrupted(context) {
            throw BatchLineError("not valid JSON: \(Self.reason(context))")
        } catch {
            throw BatchLineError("not valid JSON")
        }
    }

    private static func reason(_ context: DecodingError.Context) -> String {
        if let underlying = context.underlyingError as? NSError,
            let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
        {
            return detail
        }
        return context.debugDescription
    }
}

extension JSONValue: Decodable {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes any JSON value.
    /// - Parameter decoder: The decoder.
    /// - Throws: A decoding error for input that is not JSON.
    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                try container.allKeys.map { Member($0.stringValue, try container.decode(JSONValue.self, forKey: $0)) }
            )
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !container.isAtEnd { elements.append(try container.decode(JSONValue.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}
