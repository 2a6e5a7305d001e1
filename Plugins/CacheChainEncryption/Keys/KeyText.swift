import CacheChainCore
import Foundation
internal import COpenSSL

/// Decoding and encoding of keys as text (hex or base64), for key files and environment variables.
enum KeyText {
    /// Decodes 64 hex digits or a standard base64 string of 32 bytes; `nil` for anything else.
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.utf8.count == 64, let bytes = Hex.decode(trimmed) { return bytes }
        guard trimmed.utf8.count == 44, let data = Data(base64Encoded: trimmed), data.count == EncryptionKey.byteCount else { return nil }
        return Array(data)
    }

    /// The base64 form of a key's bytes.
    static func base64(_ key: EncryptionKey) -> String {
        key.material.withBytes { Data($0).base64EncodedString() }
    }
}

/// Lowercase hexadecimal.
enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { output in
            for (index, byte) in bytes.enumerated() {
                output[2 * index] = digits[Int(byte >> 4)]
                output[2 * index + 1] = digits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }

    static func encode(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBytes { encode($0) }
    }

    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}

/// Overwrites a temporary array that held key bytes.
func wipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { cachechain_cleanse($0.baseAddress, $0.count) }
}
